/**
 * `sds export … --out DIR` (docs/export.md#files): one file per table and `codebook.csv`, each
 * written under a hidden temporary name in DIR, fsynced, then all renamed into place and DIR
 * fsynced, so DIR never holds a half-written export file under its real name. An existing file
 * of the same name is refused (EXPORT_FILE_EXISTS) unless `force`. When anything fails, every
 * table's writer is aborted (its temporary files closed and removed) and the temporary names
 * removed, and the error that stopped the export is the one thrown.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { FileSink } from './file-sink.js';
import { join, resolve } from 'node:path';
import { AppError } from '../../shared/errors.js';
import { fsyncDirectory } from '../../shared/durable-file.js';
import { CODEBOOK_FILE, codebookHeader, codebookLines } from '../../export/codebook.js';
import type { TableWriter } from '../../export/model.js';
import type { Store } from '../home/index.js';
import { gatherStats, openSnapshot, prepareExport, writeRows, type ExportInput, type PreparedExport } from './prepare.js';
import type { PassResult } from './export-pass.js';
import type { ExportedFile, ExportFolderOptions, ExportResult } from './export-results.js';
import { exportGeoJsonToFolder, GEOJSON } from './geojson-export.js';

export type { ExportedFile, ExportFolderOptions, ExportResult } from './export-results.js';

interface Staged {
  tmp: string;
  target: string;
  sink: FileSink;
  closed: boolean;
}

/** Makes `folder` (and its parents) or says why it cannot be one. */
function makeFolder(folder: string): void {
  if (existsSync(folder) && !statSync(folder).isDirectory()) {
    throw new AppError('EXPORT_OUT_INVALID', `${folder} is not a folder`, { path: folder });
  }
  try {
    mkdirSync(folder, { recursive: true });
  } catch (err) {
    throw new AppError('EXPORT_OUT_INVALID', `cannot make the folder ${folder}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, {
      path: folder,
    });
  }
}

/**
 * The file names an export of `prepared` writes: one per table, then the codebook; for a workbook
 * format, its one file named after the dictionary's label (`popstan.xlsx`).
 */
export function exportFileNames(prepared: PreparedExport): string[] {
  const { format, plan } = prepared;
  if (format.layout === 'workbook') return [plan.breakout.prefix + format.extension];
  return [...plan.tables.map((t) => t.table.name + format.extension), CODEBOOK_FILE];
}

/**
 * Exports the cases of `input.dictionary` into the folder `out` (made if missing), one file per
 * table in the format's form plus `codebook.csv`. Reads a snapshot of the store in pages: twice
 * for a format that needs table statistics first (Stata, SPSS), once otherwise.
 */
export async function exportToFolder(
  store: Store,
  input: ExportInput & { out: string },
  opts: ExportFolderOptions = {},
): Promise<ExportResult> {
  if (input.format === GEOJSON) return exportGeoJsonToFolder(store, input, opts);
  const prepared = await prepareExport(store, input);
  return exportPrepared(store, prepared, resolve(input.out), opts);
}

/** exportToFolder once the input is checked and planned (also the HTTP route's temporary export). */
export async function exportPrepared(
  store: Store,
  prepared: PreparedExport,
  folder: string,
  opts: ExportFolderOptions,
): Promise<ExportResult> {
  makeFolder(folder);
  const names = exportFileNames(prepared);
  if (opts.force !== true) {
    const present = names.filter((n) => existsSync(join(folder, n)));
    if (present.length > 0) {
      throw new AppError(
        'EXPORT_FILE_EXISTS',
        `${folder} already holds ${present.join(', ')}; give --force to replace ${present.length === 1 ? 'it' : 'them'}, or another --out`,
        { path: folder, files: present.join(', ') },
      );
    }
  }
  const exportTime = (opts.now?.() ?? new Date()).toISOString();
  const snapshot = await openSnapshot(store, prepared);
  const staged: Staged[] = [];
  const stamp = randomBytes(6).toString('hex');
  const stage = async (name: string): Promise<Staged> => {
    const tmp = join(folder, `.${name}.${stamp}.part`);
    const s: Staged = { tmp, target: join(folder, name), sink: new FileSink(await open(tmp, 'wx', 0o644)), closed: false };
    staged.push(s);
    return s;
  };
  // What gives up each writer's temporary files on a failure (a table's, a workbook's).
  const aborts: (() => Promise<void>)[] = [];
  try {
    const { format, plan, options } = prepared;
    let files: ExportedFile[];
    let pass: PassResult;
    if (format.layout === 'workbook') {
      // One file for every table (docs/export.md#excel): the codebook is inside it.
      const s = await stage(names[0]!);
      const book = format.open(
        plan.tables.map((t) => t.table),
        s.sink,
        options,
      );
      aborts.push(() => book.abort());
      const written = await writeRows(prepared, snapshot, exportTime, (t, row) => book.tables[t]!.writeRow(row), opts);
      pass = written.pass;
      for (const w of book.tables) await w.close();
      await book.close(opts.signal);
      const sheets = plan.tables.map((t, i) => ({ sheet: book.names[i]!, table: t.table.name, rows: written.rows[i]! }));
      files = [{ file: names[0]!, table: null, rows: written.rows.reduce((a, b) => a + b, 0), bytes: 0, sheets }];
    } else {
      const stats = format.needsStats ? await gatherStats(prepared, snapshot, exportTime, opts) : undefined;
      const writers: TableWriter[] = [];
      for (let t = 0; t < plan.tables.length; t++) {
        const s = await stage(names[t]!);
        const w = format.open(plan.tables[t]!.table, s.sink, options, stats?.[t]);
        writers.push(w);
        aborts.push(() => w.abort());
      }
      const written = await writeRows(prepared, snapshot, exportTime, (t, row) => writers[t]!.writeRow(row), opts);
      pass = written.pass;
      for (const w of writers) await w.close();
      const book = await stage(CODEBOOK_FILE);
      let bookRows = 0;
      await book.sink.write(Buffer.from(codebookHeader(), 'utf8'));
      for (let t = 0; t < plan.tables.length; t++) {
        const lines = codebookLines(plan.tables[t]!.table, names[t]!);
        bookRows += lines.length;
        await book.sink.write(Buffer.from(lines.join(''), 'utf8'));
      }
      files = staged.map((_s, i) => ({
        file: names[i]!,
        table: i < plan.tables.length ? plan.tables[i]!.table.name : null,
        rows: i < plan.tables.length ? written.rows[i]! : bookRows,
        bytes: 0,
      }));
    }
    for (const s of staged) {
      await s.sink.fh.sync();
      await s.sink.fh.close();
      s.closed = true;
    }
    for (const s of staged) await rename(s.tmp, s.target);
    fsyncDirectory(folder);
    staged.forEach((s, i) => (files[i]!.bytes = s.sink.bytes));
    return {
      dictionary: prepared.dict.name,
      format: format.name,
      folder,
      cases: pass.cases,
      skipped_cases: pass.skipped,
      warnings: pass.warnings,
      files,
    };
  } catch (err) {
    // Each writer lets go of what it holds (a Stata table's temporary files) before its output
    // goes; a failure there must not hide the error that stopped the export.
    for (const abort of aborts) await abort().catch(() => undefined);
    for (const s of staged) {
      if (!s.closed) await s.sink.fh.close().catch(() => undefined);
      await rm(s.tmp, { force: true });
    }
    if (err instanceof AppError || opts.signal?.aborted) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
      throw new AppError('IO_ERROR', `could not write the export into ${folder}: ${code}`, { path: folder }, { cause: err });
    }
    throw err;
  } finally {
    await snapshot.close();
  }
}
