/**
 * An export that fails half-way (docs/export.md#files): the writers are aborted, so a Stata
 * table's temporary spool files are closed and removed, the temporary output names and the HTTP
 * download's temporary folder are removed, and the error that stopped the export is the one
 * reported. Failures: the real Stata encoder refusing a value on row 3, the output failing
 * (ENOSPC) while another table still spools, Ctrl-C between pages, and the same through the HTTP
 * download, spooled and streamed. The data hold a 3,000-byte text, so the household table is
 * spooled (a Stata strL); this process's TMPDIR is a folder of the test, checked empty and with
 * no file of it held open (Linux /proc/self/fd) after every failure.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, show } from '../../helpers/run-cli.js';
import { tempHome } from '../../helpers/temp-home.js';
import { CHINESE_1000, EDGE_DICTIONARY, EDGE_LABEL, writeEdgeFixture } from '../../helpers/edge-export-fixture.js';
import { openFilesUnder } from '../../helpers/open-files.js';
import { openStore, type Store } from '../../../src/core/home/index.js';
import { exportPrepared } from '../../../src/core/export/export-folder.js';
import { downloadPrepared } from '../../../src/core/export/export-download.js';
import { prepareExport, type ExportInput } from '../../../src/core/export/prepare.js';
import { stataFormat } from '../../../src/export/formats/stata/index.js';
import { parquetFormat } from '../../../src/export/formats/parquet/index.js';
import { csvFormat } from '../../../src/export/formats/csv/index.js';
import type { ByteSink, ExportCell, ExportFormat } from '../../../src/export/model.js';
import { AppError } from '../../../src/shared/errors.js';

const home = await tempHome();
const tmp = join(home.root, 'tmp');
let store: Store;
const TABLES = ['edge_cases', 'edge_household', 'edge_emptyrec', 'edge_notes'];

before(async () => {
  const { dcf, dat } = writeEdgeFixture(home.root);
  for (const args of [
    ['dict', 'upload', dcf, '--label', EDGE_LABEL],
    ['cases', 'import', EDGE_DICTIONARY, dat, '-q'],
  ]) {
    const r = runCli(home.root, args);
    assert.equal(r.code, 0, show(r));
  }
  store = await openStore(home);
  mkdirSync(tmp);
  // os.tmpdir() reads TMPDIR on each call: the spools and download folders of this process go here.
  process.env.TMPDIR = tmp;
});
after(async () => {
  await store.close();
  await home.cleanup();
});

/** What a faulty format saw: the tables whose writers were aborted, the files open under TMPDIR when the fault struck. */
interface Seen {
  aborted: string[];
  openAtFault?: string[];
  /** Resolves when a write to the real output of the table fails (a client gone away). */
  outputFailed: Promise<void>;
}

type Fault = { row: number; column: string; value: ExportCell } | { sinkWritesBeforeFailure: number };

function enospc(): Error {
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
}

/**
 * `base` with one fault planted in the writer of `table`: a cell of row `row` replaced by a value
 * the real encoder refuses, or its output failing after some writes (a full disk). The writers
 * themselves are the real ones; only what they are given is changed.
 */
function faulty(base: ExportFormat, table: string, fault: Fault): { format: ExportFormat; seen: Seen } {
  let onOutputFailure!: () => void;
  const seen: Seen = { aborted: [], outputFailed: new Promise<void>((resolve) => (onOutputFailure = resolve)) };
  const format: ExportFormat = {
    ...base,
    open(t, sink, options, stats) {
      const here = t.name === table;
      let writes = 0;
      const out: ByteSink = {
        async write(chunk) {
          if (here && 'sinkWritesBeforeFailure' in fault && ++writes > fault.sinkWritesBeforeFailure) {
            seen.openAtFault = openFilesUnder(tmp);
            throw enospc();
          }
          try {
            await sink.write(chunk);
          } catch (err) {
            onOutputFailure();
            throw err;
          }
        },
      };
      const writer = base.open(t, out, options, stats);
      const at = 'row' in fault ? t.columns.findIndex((c) => c.name === fault.column) : -1;
      let rows = 0;
      return {
        writeRow(cells) {
          rows++;
          if (!here || !('row' in fault) || rows !== fault.row) return writer.writeRow(cells);
          seen.openAtFault = openFilesUnder(tmp);
          const changed = [...cells];
          changed[at] = fault.value;
          return writer.writeRow(changed);
        },
        close: () => writer.close(),
        async abort() {
          seen.aborted.push(t.name);
          await writer.abort();
        },
      };
    },
  };
  return { format, seen };
}

const isCode =
  (code: string, details?: Record<string, unknown>) =>
  (err: unknown): boolean => {
    assert.ok(err instanceof AppError, `an AppError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (details) assert.deepEqual(err.details, details);
    return true;
  };

/** Nothing left: no file in TMPDIR (spools, download folders) or the output folder, none of them held open. */
function assertNothingLeft(out?: string): void {
  assert.deepEqual(openFilesUnder(tmp), [], 'no temporary file held open');
  assert.deepEqual(readdirSync(tmp), [], 'no temporary file or folder left');
  if (out !== undefined) {
    assert.deepEqual(openFilesUnder(out), [], 'no output file held open');
    assert.deepEqual(readdirSync(out), [], 'no output file, temporary or not');
  }
}

/** The spool files of a strL table, open (and unlinked) when the fault struck. */
function assertSpooling(seen: Seen): void {
  assert.ok(
    (seen.openAtFault ?? []).filter((f) => /sds-stata-/.test(f)).length >= 2,
    `the household table was spooling when the fault struck: ${JSON.stringify(seen.openAtFault)}`,
  );
}

const stataInput = (extra: Partial<ExportInput> = {}): ExportInput => ({ dictionary: EDGE_DICTIONARY, format: 'stata', ...extra });

describe('the Stata writer of a strL table', () => {
  it('abort closes and removes its two spool files, once; a close after it sends nothing', async () => {
    let bytes = 0;
    const sink = {
      async write(chunk: Uint8Array): Promise<void> {
        bytes += chunk.length;
      },
    };
    const notes = { name: 'n', label: 'N', columns: [{ name: 'note', source: 'note', label: 'Note', type: { kind: 'text' as const } }] };
    const writer = stataFormat.open(notes, sink, { labels: 'codes', rowGroupRows: 1 }, { rows: 2, maxBytes: [3000] });
    await writer.writeRow([CHINESE_1000]);
    assert.equal(openFilesUnder(tmp).filter((f) => /sds-stata-/.test(f)).length, 2, 'spooling');
    await writer.abort();
    await writer.abort();
    assertNothingLeft();
    await writer.close();
    assert.equal(bytes, 0, 'a strL table sends nothing before it is closed, and nothing after the abort');
  });
});

describe('a failing export to a folder', () => {
  it('Stata: the encoder refusing row 3 of a spooled table surfaces STATA_VALUE_UNREPRESENTABLE and leaves nothing', async () => {
    const { format, seen } = faulty(stataFormat, 'edge_household', { row: 3, column: 'kind', value: 500 });
    const out = join(home.root, 'out-encoder');
    await assert.rejects(
      exportPrepared(store, { ...(await prepareExport(store, stataInput())), format }, out, {}),
      isCode('STATA_VALUE_UNREPRESENTABLE', { table: 'edge_household', column: 'kind', row: 3 }),
    );
    assertSpooling(seen);
    assert.deepEqual(seen.aborted, TABLES, 'every writer aborted');
    assertNothingLeft(out);
  });

  it('Stata: the output failing (ENOSPC) while another table spools surfaces IO_ERROR and leaves nothing', async () => {
    // The cases table writes its header at its first row and the rest when it is closed, first
    // of all tables: the household table has every row spooled by then.
    const { format, seen } = faulty(stataFormat, 'edge_cases', { sinkWritesBeforeFailure: 1 });
    const out = join(home.root, 'out-sink');
    await assert.rejects(exportPrepared(store, { ...(await prepareExport(store, stataInput())), format }, out, {}), (err: unknown) => {
      isCode('IO_ERROR')(err);
      assert.equal(((err as AppError).cause as NodeJS.ErrnoException).code, 'ENOSPC');
      return true;
    });
    assertSpooling(seen);
    assert.deepEqual(seen.aborted, TABLES);
    assertNothingLeft(out);
  });

  it('Stata: Ctrl-C between pages (the signal) stops the export and leaves nothing, spools included', async () => {
    const stop = new AbortController();
    let openAtStop: string[] = [];
    const out = join(home.root, 'out-signal');
    const run = exportPrepared(store, await prepareExport(store, stataInput()), out, {
      signal: stop.signal,
      onProgress: (p) => {
        if (p.phase === 'write' && p.done > 0 && !stop.signal.aborted) {
          openAtStop = openFilesUnder(tmp);
          stop.abort();
        }
      },
    });
    await assert.rejects(run, { name: 'AbortError' });
    assert.ok(openAtStop.filter((f) => /sds-stata-/.test(f)).length >= 2, `spooling when stopped: ${JSON.stringify(openAtStop)}`);
    assertNothingLeft(out);
  });
});

describe('a failing HTTP download', () => {
  for (const records of [undefined, ['HOUSEHOLD']]) {
    it(`Stata, ${records ? 'one table' : 'a zip of every table'}: the error surfaces before any byte, the temporary folder and spools are gone`, async () => {
      const { format, seen } = faulty(stataFormat, 'edge_household', { row: 3, column: 'kind', value: 500 });
      const prepared = { ...(await prepareExport(store, stataInput({ records }), false)), format };
      await assert.rejects(
        downloadPrepared(store, prepared),
        isCode('STATA_VALUE_UNREPRESENTABLE', { table: 'edge_household', column: 'kind', row: 3 }),
      );
      assertSpooling(seen);
      assert.ok(seen.aborted.includes('edge_household'), `the spooling writer aborted: ${seen.aborted.join(', ')}`);
      assertNothingLeft();
    });
  }

  it('Parquet, streamed: an encoder refusal ends the body with PARQUET_VALUE_INVALID and aborts the writer', async () => {
    const { format, seen } = faulty(parquetFormat, 'edge_household', { row: 3, column: 'kind', value: 'x' });
    const prepared = {
      ...(await prepareExport(store, { dictionary: EDGE_DICTIONARY, format: 'parquet', records: ['HOUSEHOLD'] }, false)),
      format,
    };
    const download = await downloadPrepared(store, prepared);
    await assert.rejects(async () => {
      for await (const _chunk of download.body) {
        // read to the end
      }
    }, isCode('PARQUET_VALUE_INVALID'));
    // The writer is aborted before the body is ended with the error.
    assert.deepEqual(seen.aborted, ['edge_household']);
    assertNothingLeft();
  });

  it('CSV, streamed: a client that goes away stops the export and aborts the writer', async () => {
    const { format, seen } = faulty(csvFormat, 'edge_household', { sinkWritesBeforeFailure: Number.MAX_SAFE_INTEGER });
    const prepared = {
      ...(await prepareExport(store, { dictionary: EDGE_DICTIONARY, format: 'csv', records: ['HOUSEHOLD'] }, false)),
      format,
    };
    const download = await downloadPrepared(store, prepared);
    download.body.destroy();
    // The export finds the client gone at its next write (REQUEST_ABORTED); the abort follows
    // in the same chain of promises, done before the event loop turns.
    await seen.outputFailed;
    await new Promise(setImmediate);
    assert.deepEqual(seen.aborted, ['edge_household']);
    assertNothingLeft();
  });
});
