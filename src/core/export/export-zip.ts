/**
 * An export as one zip stream (docs/export.md#a-zip-on-standard-output): the files are written to
 * a temporary folder under the system's temporary directory first, since a zip's entries follow
 * one another while a pass writes every table at once, then sent as a zip of the files and the
 * codebook. The folder is removed when the stream ends, fails or is given up.
 */
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { lazyRequire } from '../../shared/lazy-require.js';
import type { Store } from '../home/index.js';
import { exportPrepared, type ExportedFile, type ExportFolderOptions, type ExportResult } from './export-folder.js';
import { prepareExport, type ExportInput, type PreparedExport } from './prepare.js';

/** yazl, loaded when a zip is first written (docs/cli.md#start-up-time). */
const loadYazl = lazyRequire<typeof import('yazl')>('yazl');

/** A zip ready to send: its name, the export's result and its bytes. */
export interface ExportZip {
  /** `<label>_<format>.zip`. */
  fileName: string;
  result: ExportResult;
  /** Ends when the zip is whole; the temporary folder goes when it closes. */
  body: Readable;
  /** Removes the temporary folder at once, for a process that exits before the body closes. */
  discard: () => void;
}

/** A temporary folder for an export, and how to remove it (awaitable, never throws). */
export async function temporaryExportFolder(): Promise<{ folder: string; remove: () => Promise<void> }> {
  const folder = await mkdtemp(join(tmpdir(), 'sds-export-'));
  return { folder, remove: () => rm(folder, { recursive: true, force: true }).catch(() => undefined) };
}

/**
 * The files of `folder` as a zip stream, in order; `cleanup` runs once the stream has closed (ended,
 * failed or destroyed). A file that cannot be read fails the stream.
 */
function zipOfFiles(folder: string, files: readonly ExportedFile[], cleanup: () => void): Readable {
  const zip = new (loadYazl().ZipFile)();
  const body = zip.outputStream as Readable;
  zip.on('error', (err: Error) => body.destroy(err));
  for (const f of files) zip.addFile(join(folder, f.file), f.file);
  zip.end();
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    cleanup();
  };
  body.once('close', once);
  body.once('end', once);
  return body;
}

/**
 * Exports `input` (as `sds export` does: the cases table always comes) into a temporary folder,
 * then gives it as one zip of every file and the codebook. Errors of the input and of the export
 * are thrown before any byte of the zip, with the folder already removed.
 */
export async function exportZip(store: Store, input: ExportInput, opts: ExportFolderOptions = {}): Promise<ExportZip> {
  return zipPrepared(store, await prepareExport(store, input), opts);
}

/** exportZip once the input is checked and planned (also the HTTP route's zip of several tables). */
export async function zipPrepared(store: Store, prepared: PreparedExport, opts: ExportFolderOptions): Promise<ExportZip> {
  const { folder, remove } = await temporaryExportFolder();
  try {
    const result = await exportPrepared(store, prepared, folder, { ...opts, force: true });
    const body = zipOfFiles(folder, result.files, () => void remove());
    const discard = () => rmSync(folder, { recursive: true, force: true });
    return { fileName: `${prepared.plan.breakout.prefix}_${prepared.format.name}.zip`, result, body, discard };
  } catch (err) {
    // Awaited: the folder is gone when the caller hears of the failure.
    await remove();
    throw err;
  }
}
