/**
 * Helpers of the PostgreSQL store tests: a throw-away database of test/helpers/test-databases.ts
 * with clients that read bigint as numbers (as the store does), and a SQLite store schema built
 * by applying src/store/migrations/*.sql with better-sqlite3 directly.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createPostgresDatabase, type TestDatabase } from '../../helpers/test-databases.js';

const SQLITE_MIGRATIONS = fileURLToPath(new URL('../../../src/store/migrations/', import.meta.url));

/** A database of its own for one test, and clients connected to it. */
export interface PgStoreDatabase {
  database: TestDatabase;
  /** A new connection to the database; closed by `drop`. */
  connect(): Promise<pg.Client>;
  /** Closes every connection and drops the database. */
  drop(): Promise<void>;
}

const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Creates the database (a server that cannot be reached fails the test: it never skips). */
export async function createPgStoreDatabase(): Promise<PgStoreDatabase> {
  const database = await createPostgresDatabase();
  const clients: pg.Client[] = [];
  return {
    database,
    async connect() {
      const client = new pg.Client({ connectionString: database.config.url, types });
      client.on('error', () => undefined);
      await client.connect();
      clients.push(client);
      return client;
    },
    async drop() {
      await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
      await database.drop();
    },
  };
}

/** An in-memory SQLite database at the latest SQLite schema and version, foreign keys on as the store has them. */
export function sqliteAtLatest(): Database.Database {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  for (const f of readdirSync(SQLITE_MIGRATIONS)
    .filter((n) => /^\d{4}-[a-z0-9-]+\.sql$/.test(n))
    .sort()) {
    db.exec(readFileSync(SQLITE_MIGRATIONS + f, 'utf8'));
    db.pragma(`user_version = ${Number(f.slice(0, 4))}`);
  }
  return db;
}
