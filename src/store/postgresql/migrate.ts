/**
 * Schema migrations of the PostgreSQL store (docs/decisions.md, "One set of migrations per store
 * database"): the numbered files of src/store/migrations/postgresql/, the version in the one row
 * of `sds_schema` (0 while the table is absent), each migration applied in its own transaction
 * under a transaction-scoped advisory lock, so nodes starting together serialise on it and the
 * losers find nothing left to do. Pure I/O over a connected pg client; it opens nothing itself.
 */
import { fileURLToPath } from 'node:url';
import type { ClientBase } from 'pg';
import { nowIso } from '../clock.js';
import {
  loadMigrations,
  migrationLabel,
  requireUsableStatus,
  statusAt,
  tooNew,
  type MigrateResult,
  type Migration,
  type SchemaStatus,
} from '../migrate.js';

/** The folder of the PostgreSQL migrations (copied beside the SQLite ones by scripts/copy-assets.mjs). */
export const POSTGRES_MIGRATIONS_DIR = fileURLToPath(new URL('../migrations/postgresql/', import.meta.url));

/**
 * The key of pg_advisory_xact_lock that serialises migrations: the ASCII bytes of "sdsmigra" as a
 * 64-bit integer. Advisory locks are per database, so stores in other databases never wait on it.
 */
export const SCHEMA_LOCK_KEY = '8314897725789794913';

/** The PostgreSQL migrations shipped with this build, in order. */
export function loadPostgresMigrations(dir = POSTGRES_MIGRATIONS_DIR): Migration[] {
  return loadMigrations(dir);
}

/** The schema version of the store the client is connected to: 0 while `sds_schema` is absent. */
export async function postgresVersion(client: ClientBase): Promise<number> {
  return (await readVersion(client)).version;
}

async function readVersion(client: ClientBase): Promise<{ present: boolean; version: number }> {
  const found = await client.query<{ present: boolean }>(`SELECT to_regclass('sds_schema') IS NOT NULL AS present`);
  if (!found.rows[0]?.present) return { present: false, version: 0 };
  const row = await client.query<{ version: number }>('SELECT coalesce(max(version), 0)::integer AS version FROM sds_schema');
  return { present: true, version: row.rows[0]?.version ?? 0 };
}

/**
 * The schema status of the store, read only: no lock is taken and nothing is created, so
 * `sds migrate --status` may run beside busy servers.
 */
export async function postgresSchemaStatus(client: ClientBase, migrations: Migration[] = loadPostgresMigrations()): Promise<SchemaStatus> {
  return statusAt(await postgresVersion(client), migrations);
}

/**
 * Refuses a store this build cannot use as it is, with the errors of the SQLite store:
 * STORE_TOO_NEW when a newer sds migrated it, STORE_NEEDS_MIGRATION when migrations are pending.
 * `home` names the home in the message.
 */
export async function requirePostgresSchema(
  client: ClientBase,
  home: string,
  migrations: Migration[] = loadPostgresMigrations(),
): Promise<SchemaStatus> {
  return requireUsableStatus(await postgresSchemaStatus(client, migrations), home);
}

/**
 * Applies the pending migrations, each in one transaction: take the advisory lock, re-read the
 * version (another node may have migrated meanwhile), run the migration, record its version,
 * COMMIT. A migration that fails rolls back whole and leaves the version where it was. A store
 * migrated by a newer sds is refused (STORE_TOO_NEW) rather than silently misread.
 */
export async function migratePostgres(client: ClientBase, migrations: Migration[] = loadPostgresMigrations()): Promise<MigrateResult> {
  const latest = migrations.at(-1)?.version ?? 0;
  const from = await postgresVersion(client);
  if (from > latest) throw tooNew(from, latest);
  const applied: string[] = [];
  for (const m of migrations) {
    if (m.version > from && (await applyOne(client, m))) applied.push(migrationLabel(m));
  }
  return { from, to: await postgresVersion(client), applied };
}

/** One migration in one transaction; false when another node applied it first. */
async function applyOne(client: ClientBase, m: Migration): Promise<boolean> {
  // READ COMMITTED whatever the server's default: each statement after the lock must see what the
  // node that held it committed (a REPEATABLE READ snapshot would be taken before it).
  await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK_KEY})`);
    const current = await readVersion(client);
    if (current.version >= m.version) {
      await client.query('ROLLBACK');
      return false;
    }
    if (!current.present) {
      await client.query(`CREATE TABLE sds_schema (version integer NOT NULL, updated_at text COLLATE "C" NOT NULL)`);
      await client.query(`INSERT INTO sds_schema (version, updated_at) VALUES (0, '')`);
    }
    await client.query(m.sql);
    await client.query('UPDATE sds_schema SET version = $1, updated_at = $2', [m.version, nowIso()]);
    await client.query('COMMIT');
    return true;
  } catch (err) {
    // The lock goes with the transaction; a lost connection has nothing left to roll back.
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
