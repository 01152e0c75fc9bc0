/**
 * The export formats by name (docs/export.md), each loaded when an export asks for it: a format's
 * writer library (hyparquet-writer for Parquet, exceljs for Excel) is then never imported by the commands that do not
 * export (docs/cli.md#start-up-time).
 */
import type { AnyExportFormat } from '../model.js';

export const EXPORT_FORMATS: Record<AnyExportFormat['name'], () => Promise<AnyExportFormat>> = {
  csv: async () => (await import('./csv/index.js')).csvFormat,
  stata: async () => (await import('./stata/index.js')).stataFormat,
  spss: async () => (await import('./spss/index.js')).spssFormat,
  parquet: async () => (await import('./parquet/index.js')).parquetFormat,
  xlsx: async () => (await import('./xlsx/index.js')).xlsxFormat,
};
