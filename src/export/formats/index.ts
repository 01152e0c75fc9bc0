/** The export formats by name (docs/export.md). */
import type { ExportFormat } from '../model.js';
import { csvFormat } from './csv/index.js';
import { parquetFormat } from './parquet/index.js';
import { spssFormat } from './spss/index.js';
import { stataFormat } from './stata/index.js';

export const EXPORT_FORMATS: Record<ExportFormat['name'], ExportFormat> = {
  csv: csvFormat,
  stata: stataFormat,
  spss: spssFormat,
  parquet: parquetFormat,
};
