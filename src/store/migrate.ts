import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database } from 'better-sqlite3';
import { AppError } from '../shared/errors.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The numbered `NNNN-name.sql` files shipped with this build, in order. */
export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}-[a-z0-9-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), name: f.slice(5, -4), sql: readFileSync(dir + f, 'utf8') }));
}

export interface MigrateResult {
  from: number;
  to: number;
  applied: string[];
}

/** The `NNNN-name` label of a migration, as reports and messages show it. */
export const migrationLabel = (m: Migration): string => `${String(m.version).padStart(4, '0')}-${m.name}`;

/** One migration of this build and whether the store has it. */
export interface MigrationState {
  version: number;
  name: string;
  state: 'applied' | 'pending';
}

/** Where a store stands: its schema version, the latest this build knows, and every migration. */
export interface SchemaStatus {
  version: number;
  latest: number;
  migrations: MigrationState[];
  pending: string[];
}

/**
 * The schema status of an open store, read only (user_version): nothing is applied and no write
 * lock is taken, so `sds migrate --status` may run beside a busy server.
 */
export function schemaStatus(db: Database, migrations: Migration[] = loadMigrations()): SchemaStatus {
  return statusAt(currentVersion(db), migrations);
}

/** The SchemaStatus of a store at `version` (shared with the PostgreSQL store). */
export function statusAt(version: number, migrations: Migration[]): SchemaStatus {
  const states = migrations.map((m): MigrationState => ({
    version: m.version,
    name: m.name,
    state: m.version <= version ? 'applied' : 'pending',
  }));
  return {
    version,
    latest: migrations.at(-1)?.version ?? 0,
    migrations: states,
    pending: migrations.filter((m) => m.version > version).map(migrationLabel),
  };
}

/**
 * Refuses a store this build cannot use as it is: STORE_TOO_NEW when a newer sds wrote it,
 * STORE_NEEDS_MIGRATION when migrations are pending (they are applied only by `sds migrate` and
 * at the creation of a home, docs/upgrading.md#why-commands-refuse-an-old-store). `home` names the home in the message.
 */
export function requireCurrentSchema(db: Database, home: string, migrations: Migration[] = loadMigrations()): SchemaStatus {
  return requireUsableStatus(schemaStatus(db, migrations), home);
}

/** The checks of requireCurrentSchema on a status already read (shared with the PostgreSQL store). */
export function requireUsableStatus(status: SchemaStatus, home: string): SchemaStatus {
  if (status.version > status.latest) throw tooNew(status.version, status.latest);
  if (status.pending.length > 0) {
    throw new AppError(
      'STORE_NEEDS_MIGRATION',
      `the store of the home ${home} is at schema version ${status.version} but this sds needs version ${status.latest}; ` +
        `pending migrations: ${status.pending.join(', ')}; the home must be migrated before it is used`,
      { home, version: status.version, needs: status.latest, pending: status.pending },
    );
  }
  return status;
}

/** STORE_TOO_NEW: the store is at `version`, newer than the `known` latest of this build. */
export function tooNew(version: number, known: number): AppError {
  return new AppError('STORE_TOO_NEW', `the store is at schema version ${version} but this sds knows only up to ${known}; upgrade sds`, {
    version,
    known,
  });
}

/**
 * Applies pending migrations, each in its own IMMEDIATE transaction so two processes racing at
 * start-up serialise: the loser re-reads the version inside its transaction and finds nothing
 * left to do. A store written by a newer sds is refused rather than silently misread.
 */
export function migrate(db: Database, migrations: Migration[] = loadMigrations()): MigrateResult {
  const latest = migrations.at(-1)?.version ?? 0;
  const from = currentVersion(db);
  if (from > latest) throw tooNew(from, latest);
  const applied: string[] = [];
  for (const m of migrations) {
    const step = db.transaction(() => {
      if (currentVersion(db) >= m.version) return false;
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
      return true;
    });
    if (step.immediate()) applied.push(migrationLabel(m));
  }
  return { from, to: currentVersion(db), applied };
}

/** Schema version recorded in the store file (SQLite's user_version). */
export function currentVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}
