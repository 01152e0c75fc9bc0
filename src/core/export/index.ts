/**
 * The export module: `sds export` and `GET /api/dictionaries/{name}/export` (docs/export.md),
 * over the export engine (src/export): the cases of a dictionary as files for analysts (CSV,
 * Stata, SPSS, Parquet) with a codebook.
 */
export { exportToFolder } from './export-folder.js';
export type { ExportedFile, ExportFolderOptions, ExportResult } from './export-folder.js';
export { exportDownload } from './export-download.js';
export { exportZip } from './export-zip.js';
export type { ExportZip } from './export-zip.js';
export type { ExportDownload } from './export-download.js';
export { exportFormatNames } from './prepare.js';
export type { ExportInput, ExportProgress } from './prepare.js';
export { geoJsonDownload } from './geojson-export.js';
export type { GeoJsonDownload, GeoJsonResult } from './geojson-export.js';
