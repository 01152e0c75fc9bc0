/**
 * The csweb module: moving from CSWeb (docs/migrating-from-csweb.md). Opens a CSWeb 8 database and
 * imports its dictionaries and cases, keeping revisions so tablets keep syncing incrementally,
 * with its accounts and, given its files folder, its synced files and application packages.
 */
import type { Connection } from 'mysql2/promise';
import { connectCsweb, parseCswebUrl } from '../../csweb/connect.js';

export { importFromCsweb } from './import-csweb.js';
export type { CswebImportOptions } from './import-csweb.js';
export { verifyCsweb } from './verify.js';
export type { CswebVerifyReport, VerifyDictionary, VerifyFigures } from './verify.js';
export type { CswebImportReport, DictionaryImport, ReportEntry } from './import-report.js';
export { importCswebFiles } from './files.js';
export type { CswebFilesOptions, CswebFilesResult } from './files.js';
export { importCswebUsers } from './users.js';
export { warningsToShow } from './reported-warnings.js';
export type { WarningsToShow } from './reported-warnings.js';
export type { CswebUserOutcome, CswebUsersResult } from './users.js';

/**
 * Opens the CSWeb database at `mysql://USER@HOST:PORT/DB` with `password` (from the environment,
 * never the address). Bad addresses are CSWEB_ADDRESS_INVALID, a refused connection or login
 * CSWEB_CONNECT_FAILED naming the host and database.
 */
export async function openCsweb(url: string, password: string | undefined): Promise<Connection> {
  return connectCsweb(parseCswebUrl(url), password);
}
