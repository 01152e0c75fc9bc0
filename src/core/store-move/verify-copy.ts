import { AppError } from '../../shared/errors.js';
import type { HomePaths } from '../../shared/home.js';
import { storeSetting } from '../../store/store-setting.js';
import { compareStores, differs, openSqliteSnapshot, type TableComparison } from '../../store/postgresql/move-store.js';

/** What `sds store verify` found: every table equal. */
export interface VerifyCopyResult {
  /** The PostgreSQL store of the home, password masked. */
  store: string;
  /** The SQLite home compared with. */
  against: string;
  tables: TableComparison[];
  rows: number;
}

/**
 * Compares the PostgreSQL store of `home` (its store setting) with the SQLite store of the home
 * `against`, as `sds store copy` did after copying: per table, the row count and a checksum
 * computed alike on both. STORE_COPY_DIFFERS listing each table that differs; USAGE when the
 * home's store is not a PostgreSQL one.
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
    const tables = await compareStores(source, setting.url, setting.shownUrl);
    const differing = tables.filter((t) => !t.equal);
    if (differing.length > 0) throw differs(differing, `(PostgreSQL store ${setting.shownUrl}, SQLite home ${against.root})`);
    return { store: setting.shownUrl, against: against.root, tables, rows: tables.reduce((n, t) => n + t.postgresql_rows, 0) };
  } finally {
    source.close();
  }
}
