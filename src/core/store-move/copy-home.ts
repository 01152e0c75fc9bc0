import { AppError } from '../../shared/errors.js';
import type { HomePaths } from '../../shared/home.js';
import { storeSetting } from '../../store/store-setting.js';
import {
  copyStore,
  fileMetadataOf,
  openSqliteExclusive,
  runningRunnersOf,
  type CopyProgress,
  type TableComparison,
} from '../../store/postgresql/move-store.js';
import { processAlive } from '../breakout/index.js';
import { copyFilesIntoStore, type FilesMoved } from './copy-files.js';

/** A store URL without its password (a URL that does not parse is left as it is). */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}

/** How to copy a home's store into PostgreSQL. */
export interface CopyHomeOptions {
  /** The PostgreSQL store: a postgresql:// URL; its password from SDS_STORE_PASSWORD or store.password_file as for every store URL. */
  to: string;
  onProgress?: (p: CopyProgress) => void;
  /** Stops the copy before it commits: the PostgreSQL store is left as it was, the signal's reason thrown. */
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/** What `sds store copy` did. */
export interface CopyHomeResult {
  home: string;
  /** The SQLite store copied, left as it was: the rollback copy. */
  sqlite_store: string;
  /** The PostgreSQL store, its password masked. */
  store: string;
  schema_version: number;
  migrations_applied: string[];
  tables: TableComparison[];
  rows: number;
  /** The home's files put into the PostgreSQL store, per area. */
  files: FilesMoved;
  /**
   * The setting that makes the home use the PostgreSQL store: its URL without a password (which
   * goes in SDS_STORE_PASSWORD or store.password_file, never in config.json).
   */
  setting: { environment: string; config_json: { store: { url: string } }; password: string };
}

/**
 * Copies the stopped SQLite home `home` into the empty PostgreSQL store `opts.to`
 * (docs/production.md, "Moving a home to PostgreSQL"): takes the store file's exclusive lock and
 * checks that no scheduled run is going (HOME_IN_USE while `sds serve`, a scheduled run or another
 * command has the home), refuses a store that needs migrating, copies every table and every file of
 * the home's folders (copy-files.ts) in one transaction, the tables' counts and checksums
 * compared and each file's hash checked against its metadata before it commits
 * (store/postgresql/move-store.ts). The SQLite file and the home's folders are left untouched as
 * the rollback copy; the report gives the setting to use.
 */
export async function copyHomeToPostgres(home: HomePaths, opts: CopyHomeOptions): Promise<CopyHomeResult> {
  const dest = storeSetting({ ...home, storeUrl: opts.to }, opts.env);
  if (dest.kind !== 'postgresql') {
    throw new AppError('USAGE', `a home is copied into a PostgreSQL store (a postgresql:// URL), not ${opts.to || 'an empty value'}`, {
      field: 'to',
    });
  }
  const source = openSqliteExclusive(home);
  try {
    // A scheduled run still watched by a live process (its breakout child writes the home's
    // target and logs): the exclusive lock keeps it from committing, not from running.
    if (runningRunnersOf(source).some((pid) => processAlive(pid))) {
      throw new AppError('HOME_IN_USE', `a scheduled run holds the home ${home.root}: wait for it to end, or stop the scheduler`, {
        path: home.root,
      });
    }
    const meta = fileMetadataOf(source);
    const copied = await copyStore(source, dest.url, dest.shownUrl, {
      onProgress: opts.onProgress,
      signal: opts.signal,
      files: (sink) => copyFilesIntoStore(home, sink, meta, opts.signal),
    });
    const files = copied.files!;
    return {
      home: home.root,
      sqlite_store: home.db,
      store: dest.shownUrl,
      schema_version: copied.schema_version,
      migrations_applied: copied.migrations_applied,
      tables: copied.tables,
      rows: copied.tables.reduce((n, t) => n + t.postgresql_rows, 0),
      files,
      setting: {
        environment: `SDS_STORE_URL=${withoutPassword(dest.shownUrl)}`,
        config_json: { store: { url: withoutPassword(dest.shownUrl) } },
        password: 'SDS_STORE_PASSWORD, or a file named by store.password_file',
      },
    };
  } finally {
    source.close();
  }
}
