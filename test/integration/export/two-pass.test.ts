/**
 * The export pipeline with a format that needs statistics (docs/export.md#how-an-export-runs):
 * the measuring pass and the writing pass read the same store snapshot, so the rows and longest
 * texts measured are those written, even when a case is deleted between the two passes; a
 * failing writer leaves no file, temporary or not.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { openStore, type Store } from '../../../src/core/home/index.js';
import { deleteCase } from '../../../src/core/cases/index.js';
import { exportPrepared } from '../../../src/core/export/export-folder.js';
import { prepareExport } from '../../../src/core/export/prepare.js';
import type { ExportFormat, TableStats } from '../../../src/export/model.js';

const home = await tempHome();
let store: Store;

before(async () => {
  for (const args of [
    ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan'],
    ['cases', 'import', 'CEN2000', fixture('popstan-census.dat'), '-q'],
  ]) {
    const r = runCli(home.root, args);
    assert.equal(r.code, 0, show(r));
  }
  store = await openStore(home);
});
after(async () => {
  await store.close();
  await home.cleanup();
});

/** A format that needs statistics: it writes them first, then one JSON line per row. */
const measured: ExportFormat = {
  name: 'stata',
  extension: '.jsonl',
  mediaType: 'application/jsonl',
  needsStats: true,
  open(_table, sink, _options, stats?: TableStats) {
    assert.ok(stats, 'statistics are given to a format that needs them');
    const enc = (v: unknown) => Buffer.from(JSON.stringify(v) + '\n');
    let first: Promise<void> | undefined = sink.write(enc(stats));
    return {
      async writeRow(cells) {
        if (first) await first;
        first = undefined;
        await sink.write(enc(cells));
      },
      async close() {
        if (first) await first;
      },
      async abort() {},
    };
  },
};

test('rows and longest UTF-8 texts measured are those written, though a case is deleted between the passes', async () => {
  const prepared = { ...(await prepareExport(store, { dictionary: 'CEN2000', format: 'csv' })), format: measured };
  const victim = (await store.cases.changedPage(prepared.dict.id, { revision: 0, guid: '' }, Number.MAX_SAFE_INTEGER, 1, true))[0]!.guid;
  const phases: string[] = [];
  const out = join(home.root, 'measured');
  let deleting: Promise<unknown> | undefined;
  const result = await exportPrepared(store, prepared, out, {
    onProgress: (p) => {
      if (phases.at(-1) !== p.phase) {
        phases.push(p.phase);
        // Committed on the main connection while the export holds its snapshot (awaited below).
        if (p.phase === 'write') deleting = deleteCase(store, 'CEN2000', victim);
      }
    },
  });
  await deleting;
  assert.deepEqual(phases, ['count', 'write']);
  assert.equal((await store.cases.get(prepared.dict.id, victim))!.deleted, true, 'the case was deleted meanwhile');
  for (const f of result.files.filter((x) => x.table !== null)) {
    const [statsLine, ...lines] = readFileSync(join(out, f.file), 'utf8').trimEnd().split('\n');
    const stats = JSON.parse(statsLine!) as TableStats;
    const rows = lines.filter(Boolean).map((l) => JSON.parse(l) as unknown[]);
    assert.equal(stats.rows, rows.length, `${f.file}: rows measured = rows written`);
    assert.equal(f.rows, rows.length);
    const widths = stats.maxBytes.map((_, i) =>
      Math.max(0, ...rows.map((r) => (typeof r[i] === 'string' ? Buffer.byteLength(r[i] as string) : 0))),
    );
    assert.deepEqual(stats.maxBytes, widths, `${f.file}: longest texts`);
  }
  const cases = readFileSync(join(out, 'popstan_cases.jsonl'), 'utf8');
  assert.ok(cases.includes(victim), 'the snapshot still holds the case deleted after the export started');
  assert.ok(result.cases > 4000);
});

test('a writer that fails leaves no file in the folder, temporary or not, and every writer is aborted', async () => {
  const aborted: string[] = [];
  const failing: ExportFormat = {
    ...measured,
    needsStats: false,
    open(table) {
      let n = 0;
      return {
        async writeRow() {
          if (++n === 1000) throw new Error('disk on fire');
        },
        async close() {},
        async abort() {
          aborted.push(table.name);
        },
      };
    },
  };
  const prepared = { ...(await prepareExport(store, { dictionary: 'CEN2000', format: 'csv' })), format: failing };
  const out = join(home.root, 'failing');
  await assert.rejects(exportPrepared(store, prepared, out, {}), /disk on fire/);
  assert.deepEqual(readdirSync(out), []);
  assert.deepEqual(
    aborted,
    prepared.plan.tables.map((t) => t.table.name),
  );
});
