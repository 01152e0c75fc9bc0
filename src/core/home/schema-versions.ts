import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { HomePaths } from '../../shared/home.js';
import { currentVersion, loadMigrations } from '../../store/migrate.js';

/** The store schema versions: the latest this build knows, and the one applied in a home's store. */
export interface SchemaVersions {
  latest: number;
  /** null when the home has no store file yet. */
  applied: number | null;
}

/**
 * The schema version this build migrates to, and the home's applied one read from its store
 * file opened read-only, so asking (`sds --version`) never creates a home or a store.
 */
export function schemaVersions(home: HomePaths | undefined): SchemaVersions {
  const latest = loadMigrations().at(-1)?.version ?? 0;
  if (!home || !existsSync(home.db)) return { latest, applied: null };
  const db = new Database(home.db, { readonly: true, fileMustExist: true });
  try {
    return { latest, applied: currentVersion(db) };
  } finally {
    db.close();
  }
}
