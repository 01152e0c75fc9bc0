import { AppError } from '../../shared/errors.js';
import type { HomePaths } from '../../shared/home.js';
import { storeSetting } from '../../store/store-setting.js';
import { compareStores, differs, openSqliteSnapshot, type TableComparison } from '../../store/postgresql/move-store.js';
import { compareFiles, type FileDifference } from './copy-files.js';

/** What `sds store verify` found: every table equal. */
export interface VerifyCopyResult {
  /** The PostgreSQL store of the home, password masked. */
  store: string;
  /** The SQLite home compared with. */
  against: string;
  tables: TableComparison[];
  rows: number;
  /** The files compared, per area (names and sha256): all the same. */
  files: { area: string; files: number; bytes: number }[];
}

/**
 * Compares the PostgreSQL store of `home` (its store setting) with the SQLite store of the home
 * `against`, as `sds store copy` did after copying: per table, the row count and a checksum
 * computed alike on both; and the files of the home's folders with those of the store, per area
 * (names and sha256). STORE_COPY_DIFFERS listing each table and file that differs; USAGE when
 * the home's store is not a PostgreSQL one.
 */
export async function verifyHomeCopy(home: HomePaths, against: HomePaths, env: NodeJS.ProcessEnv = process.env): Promise<VerifyCopyResult> {
  const setting = storeSetting(home, env);
  if (setting.kind !== 'postgresql') {
    throw new AppError(
      'USAGE',
      `the store of the home ${home.root} is its SQLite file: a copy is verified with the PostgreSQL store as the home's store (SDS_STORE_URL or store.url)`,
    );
  }
  const source = openSqliteSnapshot(against);
  try {
    const { tables, files: stored } = await compareStores(source, setting.url, setting.shownUrl);
    const files = await compareFiles(against, stored);
    const differing = tables.filter((t) => !t.equal);
    const where = `(PostgreSQL store ${setting.shownUrl}, SQLite home ${against.root})`;
    if (differing.length > 0 || files.differences.length > 0) throw withFiles(differs(differing, where), files.differences, where);
    return {
      store: setting.shownUrl,
      against: against.root,
      tables,
      rows: tables.reduce((n, t) => n + t.postgresql_rows, 0),
      files: files.areas,
    };
  } finally {
    source.close();
  }
}

/** One file difference in words. */
function fileLine(d: FileDifference): string {
  if (d.postgresql_sha256 === undefined) return `${d.area}/${d.file}: in the SQLite home only (sha256 ${d.sqlite_sha256})`;
  if (d.sqlite_sha256 === undefined) return `${d.area}/${d.file}: in the PostgreSQL store only (sha256 ${d.postgresql_sha256})`;
  return `${d.area}/${d.file}: sha256 ${d.sqlite_sha256} in the SQLite home, ${d.postgresql_sha256} in the PostgreSQL store`;
}

/** The STORE_COPY_DIFFERS of the tables, with the files that differ added (or alone when no table differs). */
function withFiles(err: AppError, files: FileDifference[], where: string): AppError {
  if (files.length === 0) return err;
  const tables = (err.details as { tables: string[] }).tables.length > 0 ? `${err.message}; ` : `the stores differ ${where}: `;
  return new AppError('STORE_COPY_DIFFERS', `${tables}files: ${files.map(fileLine).join('; ')}`, { ...err.details, files });
}
