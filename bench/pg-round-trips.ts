/**
 * The PostgreSQL store's sync paths in process, each against the path it replaced, alternated in
 * one run (bench/README.md, "The two stores side by side"): uploads written in one statement
 * (`cases.readForUpload` and `writeUploadIfUnchanged`) against the upload transaction, and
 * download pages read in one statement (`sync.snapshotPage`) against the read transaction. The
 * older paths are what `writeUpload` and `downloadCases` still take when the store offers no
 * one-statement path, so they are run by hiding it. Counts the statements sent per request.
 *
 * `node --import tsx bench/pg-round-trips.ts`; needs the local PostgreSQL server
 * (`BENCH_PG_URL`, default postgresql://postgres@localhost/postgres?host=/var/run/postgresql).
 * Knobs: BENCH_RT_ROUNDS (5), BENCH_RT_CASES (20,000 cases stored), BENCH_RT_UPLOADS (20 uploads
 * of BENCH_RT_UPLOAD_CASES (100) cases, 10 at once), BENCH_RT_PAGES (40 pages of 100).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { resolveHome } from '../src/shared/home.js';
import { initHome } from '../src/core/home/init.js';
import { openPostgresStore } from '../src/store/postgresql/open-postgres-store.js';
import type { Store } from '../src/store/open-store.js';
import type { CaseWrite } from '../src/store/cases-repo.js';
import type { MergeOutcome } from '../src/core/cases/merge.js';
import { writeUpload } from '../src/core/cases/write.js';
import { downloadCases } from '../src/core/sync/sync.js';
import { limitsOf } from '../src/core/home/limits.js';

const ROUNDS = Number(process.env.BENCH_RT_ROUNDS ?? 5);
const STORED = Number(process.env.BENCH_RT_CASES ?? 20_000);
const UPLOADS = Number(process.env.BENCH_RT_UPLOADS ?? 20);
const UPLOAD_CASES = Number(process.env.BENCH_RT_UPLOAD_CASES ?? 100);
const PAGES = Number(process.env.BENCH_RT_PAGES ?? 40);
const AT_ONCE = 10;
const admin = process.env.BENCH_PG_URL ?? 'postgresql://postgres@localhost/postgres?host=/var/run/postgresql';

const dbName = `sds_bench_rt_${process.pid}`;
const adminClient = new pg.Client({ connectionString: admin });
await adminClient.connect();
await adminClient.query(`CREATE DATABASE ${dbName}`);
const url = new URL(admin);
url.pathname = `/${dbName}`;
const dir = mkdtempSync(join(tmpdir(), 'sds-bench-rt-'));
const home = resolveHome(dir);
await initHome(home);
const store = await openPostgresStore({ connectionString: url.toString(), max: 10 }, home, { migrate: true });

// Every statement sent by any client of the process (the pool's included).
let statements = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  statements += 1;
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof query;

/** The store with its one-statement paths hidden: what the code did before them. */
function withoutOneStatementPaths(s: Store): Store {
  const hidden = async () => undefined;
  const cases = Object.assign(Object.create(s.cases) as Store['cases'], { readForUpload: hidden });
  const sync = Object.assign(Object.create(s.sync) as Store['sync'], { snapshotPage: hidden });
  return Object.create(s, { cases: { value: cases }, sync: { value: sync } }) as Store;
}

const caseOf = (guid: string, key: string): CaseWrite => ({
  guid,
  caseKey: key,
  label: `case ${key}`,
  data: JSON.stringify({ ID: key, ANSWERS: 'x'.repeat(400) }),
  verified: false,
  deleted: false,
  clock: [{ deviceId: 'tablet', revision: 1 }],
  partialSave: null,
  notes: [],
});

const dict = (
  await store.dictionaries.save({
    name: 'BENCH_DICT',
    label: 'bench',
    version: '8.0',
    description: '',
    source: Buffer.from('[Dictionary]\nName=BENCH_DICT\n'),
    sourceFormat: 'text',
    syncName: null,
    model: { name: 'BENCH_DICT' } as never,
  })
).row;
for (let i = 0; i < STORED; i += 500) {
  await store.transaction(async (tx) => {
    const r = await tx.cases.nextRevision(dict.id, 'bench');
    const rows = Array.from({ length: Math.min(500, STORED - i) }, (_, k) => ({
      write: caseOf(`s${String(i + k).padStart(8, '0')}`, String(i + k)),
      revision: r,
    }));
    await tx.cases.upsertMany(dict.id, rows);
  });
}
await store.pool.query('ANALYZE');
const limits = limitsOf(store);

let uploadSeq = 0;
/** UPLOADS uploads of new cases, AT_ONCE at a time; ms per upload and statements per upload. */
async function uploads(s: Store): Promise<{ ms: number; statements: number }> {
  const before = statements;
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < UPLOADS) {
      next += 1;
      const n = uploadSeq++;
      const cases = Array.from({ length: UPLOAD_CASES }, (_, k) => caseOf(`u${n}-${k}`, `U${n}-${k}`));
      const tally: Record<MergeOutcome, number> = { inserted: 0, updated: 0, unchanged: 0, older: 0 };
      await writeUpload(
        s,
        dict.id,
        cases,
        () => s.settings.serverDeviceId(),
        { origin: 'sync:bench', device: `tablet${n % AT_ONCE}`, username: 'bench' },
        tally,
        limits,
      );
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, worker));
  return { ms: (performance.now() - t0) / UPLOADS, statements: (statements - before) / UPLOADS };
}

/** PAGES download pages of 100 from the start, one after the other; ms and statements per page. */
async function pages(s: Store): Promise<{ ms: number; statements: number }> {
  const before = statements;
  const t0 = performance.now();
  let after = { revision: 0, guid: '' };
  for (let p = 0; p < PAGES; p++) {
    const chunk = await downloadCases(
      s,
      'BENCH_DICT',
      {
        device: 'reader',
        lastRevision: after.revision,
        hasLastRevision: true,
        startAfter: after.guid,
        count: 100,
        universe: '',
        excludeRevisions: [],
      },
      'bench',
    );
    const last = chunk.cases.at(-1)!;
    after = { revision: last.revision, guid: last.guid };
  }
  return { ms: (performance.now() - t0) / PAGES, statements: (statements - before) / PAGES };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const old = withoutOneStatementPaths(store);
const results = { upload: { one: [] as number[], old: [] as number[] }, page: { one: [] as number[], old: [] as number[] } };
const counts = { upload: { one: 0, old: 0 }, page: { one: 0, old: 0 } };
try {
  for (let round = 0; round < ROUNDS; round++) {
    // Alternated, the order swapped every round.
    const order: ['one' | 'old', Store][] =
      round % 2 === 0
        ? [
            ['one', store],
            ['old', old],
          ]
        : [
            ['old', old],
            ['one', store],
          ];
    const line: string[] = [];
    for (const [name, s] of order) {
      const u = await uploads(s);
      const p = await pages(s);
      results.upload[name].push(u.ms);
      results.page[name].push(p.ms);
      counts.upload[name] = u.statements;
      counts.page[name] = p.statements;
      line.push(
        `${name}: upload ${u.ms.toFixed(1)} ms (${u.statements.toFixed(1)} statements), page ${p.ms.toFixed(2)} ms (${p.statements.toFixed(1)})`,
      );
    }
    console.log(`round ${round + 1}: ${line.join('; ')}`);
  }
  for (const k of ['upload', 'page'] as const) {
    const one = median(results[k].one);
    const was = median(results[k].old);
    console.log(
      `${k}: one statement ${one.toFixed(2)} ms (${counts[k].one.toFixed(1)} statements), before ${was.toFixed(2)} ms (${counts[k].old.toFixed(1)} statements): ${(was / one).toFixed(2)}× (medians of ${ROUNDS})`,
    );
  }
} finally {
  pg.Client.prototype.query = query;
  await store.close();
  await adminClient.query(`DROP DATABASE ${dbName}`);
  await adminClient.end();
  rmSync(dir, { recursive: true, force: true });
}
