/**
 * Opens the PostgreSQL store of a home (docs/architecture.md#the-store-contract): a pool of
 * connections, the schema checked or migrated as `openStore` does for SQLite.
 */
import pg from 'pg';
import type { ClientConfig, PoolConfig } from 'pg';
import type { HomePaths } from '../../shared/home.js';
import type { MigrateResult, SchemaStatus } from '../migrate.js';
import { AppError } from '../../shared/errors.js';
import { migratePostgres, postgresSchemaStatus, requirePostgresSchema } from './migrate.js';
import { pgStorePoolConfig, PostgresStore } from './pg-store.js';

/** How to open a PostgreSQL store. */
export interface OpenPostgresStoreOptions {
  /** Apply pending migrations (`sds migrate`, a new store); without it a store that needs them is refused. */
  migrate?: boolean;
  /** The URL without its password, for messages (STORE_UNAVAILABLE, HOME_NOT_FOUND). */
  shownUrl?: string;
}

/** STORE_UNAVAILABLE for a server that cannot be reached or refuses the login. */
export function unavailable(err: unknown, shown: string): AppError {
  const code = (err as { code?: string }).code;
  return new AppError(
    'STORE_UNAVAILABLE',
    `cannot connect to the PostgreSQL store ${shown}: ${(err as Error).message}${code ? ` (${code})` : ''}`,
    { store: shown },
    { cause: err },
  );
}

/**
 * `config` with its connectionTimeoutMillis applied to opening a connection only. pg's pool also
 * applies it to a request waiting for a free connection of a full pool; that wait is load, not an
 * absent server, and stays unbounded as before (docs/production.md#while-the-primary-is-away).
 */
function connectTimeoutOnly(config: PoolConfig): PoolConfig {
  const ms = config.connectionTimeoutMillis;
  if (ms === undefined || ms === 0) return config;
  class TimedClient extends pg.Client {
    constructor(c: ClientConfig = {}) {
      super({ ...c, connectionTimeoutMillis: ms });
    }
  }
  return { ...config, connectionTimeoutMillis: 0, Client: TimedClient };
}

/**
 * Opens the store in the PostgreSQL database `config` names, for the home `home` (whose folder
 * keeps what is not in the database yet). STORE_NEEDS_MIGRATION / STORE_TOO_NEW as on SQLite.
 */
export async function openPostgresStore(config: PoolConfig, home: HomePaths, opts: OpenPostgresStoreOptions = {}): Promise<PostgresStore> {
  const pool = new pg.Pool(pgStorePoolConfig(connectTimeoutOnly(config)));
  // An idle connection the server drops must not end the process (pg emits 'error' on the pool).
  pool.on('error', () => undefined);
  // Nor one that drops while a transaction holds it between two statements: pg then emits
  // 'error' on the client, which nobody else listens to once the pool has handed it out. The
  // transaction's next statement fails (STORE_UNAVAILABLE) and the connection is discarded.
  pool.on('connect', (client) => client.on('error', () => undefined));
  const shown = opts.shownUrl ?? 'given';
  try {
    const client = await pool.connect().catch((err: unknown) => {
      throw unavailable(err, shown);
    });
    let migration: MigrateResult;
    try {
      if (opts.migrate === true) migration = await migratePostgres(client);
      else {
        // An empty database is not a store yet: `sds init` makes it one, as it makes a SQLite file.
        if ((await postgresSchemaStatus(client)).version === 0) {
          throw new AppError(
            'HOME_NOT_FOUND',
            `the PostgreSQL database ${shown} of the home ${home.root} holds no sds store; run \`sds init\` with the same store setting to make it`,
            { path: home.root, store: shown, reason: 'no_store' },
          );
        }
        const status = await requirePostgresSchema(client, home.root);
        migration = { from: status.version, to: status.version, applied: [] };
      }
    } finally {
      client.release();
    }
    return new PostgresStore(pool, home, migration);
  } catch (err) {
    await pool.end();
    throw err;
  }
}

/**
 * The schema status of the PostgreSQL store at `url`, read on one connection without a lock
 * (`sds migrate --status`).
 */
export async function postgresStatusAt(url: string, shownUrl: string): Promise<SchemaStatus> {
  const client = new pg.Client(pgStorePoolConfig({ connectionString: url }));
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    throw unavailable(err, shownUrl);
  }
  try {
    return await postgresSchemaStatus(client);
  } finally {
    await client.end();
  }
}
