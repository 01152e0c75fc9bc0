/**
 * What an export gives back (docs/export.md): the files it wrote, the result it reports, the
 * options of an export to a folder, a download ready to send. Types only, in a file of their own
 * so that every way of exporting (folder, zip, download, GeoJSON) can name them without importing
 * each other.
 */
import type { Readable } from 'node:stream';
import type { ExportProgress } from './prepare.js';

/** One file an export wrote. */
export interface ExportedFile {
  file: string;
  /** The table it holds; `null` for the codebook and for a workbook (its `sheets` name its tables). */
  table: string | null;
  /** Rows of the table; of a workbook, of all its tables; of the codebook, its lines. */
  rows: number;
  bytes: number;
  /** A workbook's sheets (docs/export.md#excel): each table's sheet and rows; the codebook sheet is not listed. */
  sheets?: { sheet: string; table: string; rows: number }[];
}

export interface ExportResult {
  dictionary: string;
  format: string;
  folder: string;
  /** Cases exported. */
  cases: number;
  /** Cases left out because their stored data could not be read. */
  skipped_cases: number;
  /** Values written as NULL or truncated (as the breakout warns about them), plus the skipped cases. */
  warnings: number;
  files: ExportedFile[];
}

export interface ExportFolderOptions {
  /** Replace files of the same names in the folder. */
  force?: boolean;
  onProgress?: (p: ExportProgress) => void;
  /** Stops between pages of cases; the temporary files are removed. */
  signal?: AbortSignal;
  /** Time written as `breakout_time` (default: now). */
  now?: () => Date;
}

/** A download ready to send: its name, media type and bytes (a stream that ends when it is whole). */
export interface ExportDownload {
  fileName: string;
  mediaType: string;
  body: Readable;
}
