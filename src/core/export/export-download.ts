/**
 * The export as one HTTP download (docs/export.md#over-http): one table asked → that one file,
 * several → a zip of their files and the codebook; a workbook (Excel) is always its one file. A single table of a format that needs no
 * statistics (CSV, Parquet) is streamed straight from the store as it is written; otherwise the
 * export is written to a temporary folder first and streamed from there (the statistics pass
 * must end before the first byte, and a zip's entries follow one another while a pass writes
 * every table at once), then the folder is removed when the response ends or is abandoned.
 */
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { ByteSink } from '../../export/model.js';
import type { Store } from '../home/index.js';
import { exportFileNames, exportPrepared } from './export-folder.js';
import { temporaryExportFolder, zipPrepared } from './export-zip.js';
import { AppError } from '../../shared/errors.js';
import { GEOJSON, geoJsonDownload } from './geojson-export.js';
import type { ExportDownload } from './export-results.js';
import { openSnapshot, prepareExport, writeRows, type ExportInput, type ExportSnapshot, type PreparedExport } from './prepare.js';

export type { ExportDownload } from './export-results.js';

/** Bytes into a stream the HTTP response reads, waiting when the client is slower than the export. */
class StreamSink implements ByteSink {
  constructor(private readonly out: PassThrough) {}

  async write(chunk: Uint8Array): Promise<void> {
    if (this.out.destroyed)
      throw new AppError('REQUEST_ABORTED', 'the client closed the connection before the export was sent; the export stopped');
    if (!this.out.write(chunk)) await Promise.race([once(this.out, 'drain'), once(this.out, 'close')]);
  }
}

/**
 * Prepares the download of `input` (only the tables in `input.records`, any of them the cases
 * table, or all with the codebook when none is named). Errors of the input (unknown dictionary,
 * format or record) are thrown here, before any byte is sent; a failure while streaming ends the
 * stream with that error.
 */
export async function exportDownload(store: Store, input: ExportInput): Promise<ExportDownload> {
  if (input.format === GEOJSON) return geoJsonDownload(store, input);
  return downloadPrepared(store, await prepareExport(store, input, false));
}

/**
 * exportDownload once the input is checked and planned. On a failure the table writers are
 * aborted (their temporary files closed and removed) and the temporary folder removed: before
 * the first byte the error is thrown, while streaming the body ends with it.
 */
export async function downloadPrepared(store: Store, prepared: PreparedExport): Promise<ExportDownload> {
  const { format, plan } = prepared;
  const exportTime = new Date().toISOString();
  if (format.layout !== 'workbook' && plan.tables.length === 1 && !format.needsStats) {
    const out = new PassThrough();
    const writer = format.open(plan.tables[0]!.table, new StreamSink(out), prepared.options);
    // The writer first: a format that refuses its options must not leave a snapshot open.
    let snapshot: ExportSnapshot;
    try {
      snapshot = await openSnapshot(store, prepared);
    } catch (err) {
      await writer.abort().catch(() => undefined);
      throw err;
    }
    const reading = snapshot;
    void (async () => {
      try {
        await writeRows(prepared, reading, exportTime, (_t, row) => writer.writeRow(row), {});
        await writer.close();
        out.end();
      } catch (err) {
        await writer.abort().catch(() => undefined);
        out.destroy(err as Error);
      } finally {
        await reading.close();
      }
    })();
    return { fileName: exportFileNames(prepared)[0]!, mediaType: format.mediaType, body: out };
  }
  // A workbook is one file whatever the tables, written whole before its first byte is sent.
  if (format.layout !== 'workbook' && plan.tables.length > 1) {
    const zip = await zipPrepared(store, prepared, { now: () => new Date(exportTime) });
    return { fileName: zip.fileName, mediaType: 'application/zip', body: zip.body };
  }
  const { folder, remove } = await temporaryExportFolder();
  try {
    const result = await exportPrepared(store, prepared, folder, { force: true, now: () => new Date(exportTime) });
    const body = createReadStream(join(folder, result.files[0]!.file));
    body.once('close', () => void remove());
    return { fileName: result.files[0]!.file, mediaType: format.mediaType, body };
  } catch (err) {
    // Awaited: the folder is gone when the caller hears of the failure.
    await remove();
    throw err;
  }
}
