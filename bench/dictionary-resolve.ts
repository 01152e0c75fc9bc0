// What finding a sync request's dictionary costs on the SQLite store (`resolveWithModel`, once per
// upload), for the Popstan census dictionary and for a census-sized one made from it (its records
// copied BENCH_RESOLVE_COPIES times, default 15, under new names), with one small write on the
// same connection between calls, as uploads make. `node --import tsx bench/dictionary-resolve.ts`
// (BENCH_RESOLVE_CALLS, default 20000). Runs the compiled build: `npm run build` first.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shipped } from './shipped.js';

type HomeModule = typeof import('../src/shared/home.js');
type InitModule = typeof import('../src/core/home/init.js');
type StoreModule = typeof import('../src/store/open-store.js');
type DictionariesModule = typeof import('../src/core/dictionaries/dictionaries.js');

const CALLS = Number(process.env.BENCH_RESOLVE_CALLS ?? 20_000);
const COPIES = Number(process.env.BENCH_RESOLVE_COPIES ?? 15);
const RECORD_TYPES = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

interface Named {
  name: string;
  valueSets?: { name: string }[];
}
interface JsonDictionary {
  name: string;
  levels: { records: (Named & { recordType: string; items: Named[] })[] }[];
}

/** The Popstan census dictionary with its records copied `copies` times under new names and record types. */
function censusSized(source: string, copies: number): Buffer {
  const dict = JSON.parse(source.replace(/^\uFEFF/, '')) as JsonDictionary;
  const level = dict.levels[0]!;
  const originals = [...level.records];
  let type = 0;
  for (let c = 1; c <= copies; c++) {
    for (const r of originals) {
      const copy = JSON.parse(JSON.stringify(r)) as (typeof originals)[number];
      copy.name = `${r.name}_${c}`;
      copy.recordType = RECORD_TYPES[type++]!;
      for (const item of copy.items) {
        item.name = `${item.name}_${c}`;
        for (const vs of item.valueSets ?? []) vs.name = `${vs.name}_${c}`;
      }
      level.records.push(copy);
    }
  }
  dict.name = 'CENSUS_SIZED_DICT';
  return Buffer.from(JSON.stringify(dict));
}

const dir = mkdtempSync(join(tmpdir(), 'sds-bench-resolve-'));
try {
  const { resolveHome } = await shipped<HomeModule>('shared/home.js');
  const { initHome } = await shipped<InitModule>('core/home/init.js');
  const { openStore } = await shipped<StoreModule>('store/open-store.js');
  const { uploadDictionary } = await shipped<DictionariesModule>('core/dictionaries/dictionaries.js');
  const home = resolveHome(join(dir, 'home'));
  await initHome(home);
  const store = await openStore(home);
  const popstan = readFileSync(new URL('../fixtures/cspro/popstan-census.json.dcf', import.meta.url), 'utf8');
  await uploadDictionary(store, { source: Buffer.from(popstan), label: 'popstan' });
  await uploadDictionary(store, { source: censusSized(popstan, COPIES), label: 'census_sized' });
  const { db } = store as unknown as { db: import('better-sqlite3').Database };
  const modelBytes = (name: string) =>
    (db.prepare('SELECT length(CAST(model AS BLOB)) AS n FROM dictionaries WHERE name = ?').get(name) as { n: number }).n;
  for (const name of ['CEN2000', 'CENSUS_SIZED_DICT']) {
    const runs: number[] = [];
    for (let run = 0; run < 3; run++) {
      const t0 = performance.now();
      for (let i = 0; i < CALLS; i++) {
        await store.dictionaries.resolveWithModel(name);
        if (i % 10 === 0) await store.transaction((tx) => tx.settings.set('bench-probe', String(i)));
      }
      runs.push(((performance.now() - t0) * 1000) / CALLS);
    }
    console.log(
      `resolve ${name} (model ${Math.round(modelBytes(name) / 1024)} KB): ${runs.map((r) => r.toFixed(1)).join(' / ')} µs a call (a write every 10 calls included)`,
    );
  }
  await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
