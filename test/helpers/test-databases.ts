/**
 * Throw-away target databases for integration tests: each test file creates its own uniquely
 * named database (`sds_test_<time>_<random>`) on the local servers and drops it at the end.
 * Servers: SDS_TEST_PG_URL (default postgresql://postgres@127.0.0.1:5432/postgres) and
 * SDS_TEST_MYSQL_URL (default mysql://root@127.0.0.1:3306/). A server that cannot be reached
 * fails the test: these helpers never skip.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TargetConfig } from '../../src/breakout/dialects/dialect.js';

/**
 * The test CA and server certificate of scripts/ensure-databases.sh (the servers' certificate
 * names only `localhost`). Missing files fail the TLS tests: they never skip.
 */
const TLS_DIR = process.env.SDS_TEST_TLS_DIR ?? '/var/lib/sds-test-tls';

/** The test CA file; throws (failing the test) when ensure-databases.sh has not made it. */
export function testCaFile(): string {
  const ca = join(TLS_DIR, 'ca.pem');
  if (!existsSync(ca)) throw new Error(`${ca} is missing: run scripts/ensure-databases.sh (TLS for the test servers)`);
  return ca;
}

const PG_ADMIN_URL = process.env.SDS_TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const MYSQL_ADMIN_URL = process.env.SDS_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';

/** A database created for one test file. */
export interface TestDatabase {
  name: string;
  /** Target configuration pointing at the new database. */
  config: TargetConfig;
  /** Runs statements on the server as the administrator (creating users, ...). */
  admin(sql: string): Promise<void>;
  drop(): Promise<void>;
}

/** `sds_test_<base36 time>_<hex>`: unique across parallel test files and runs. */
export function uniqueName(prefix = 'sds_test'): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * Creates a PostgreSQL database, a copy of `template` if given; `config` connects to it as the
 * admin user.
 */
export async function createPostgresDatabase(template?: string): Promise<TestDatabase> {
  const pg = (await import('pg')).default;
  const name = uniqueName();
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: PG_ADMIN_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(template === undefined ? `CREATE DATABASE "${name}"` : `CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  return {
    name,
    config: { type: 'postgresql', url: withDatabase(PG_ADMIN_URL, name) },
    admin,
    drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

/** Creates a MySQL/MariaDB database (utf8mb4); `config` connects to it as the admin user. */
export async function createMysqlDatabase(): Promise<TestDatabase> {
  const mysql = (await import('mysql2/promise')).default;
  const name = uniqueName();
  const admin = async (sql: string): Promise<void> => {
    const conn = await mysql.createConnection(MYSQL_ADMIN_URL);
    try {
      await conn.query(sql);
    } finally {
      await conn.end();
    }
  };
  await admin(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
  return {
    name,
    config: { type: 'mysql', url: withDatabase(MYSQL_ADMIN_URL, name) },
    admin,
    drop: () => admin(`DROP DATABASE IF EXISTS \`${name}\``),
  };
}

/** A SQLite target file in a fresh temporary directory. */
export function createSqliteFile(): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'sds-test-'));
  const file = join(dir, 'target.sqlite');
  return {
    name: file,
    config: { type: 'sqlite', file },
    admin: async () => {
      throw new Error('a SQLite file has no administrator');
    },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** SQL Server server for the opt-in suite, e.g. `mssql://sa:pw@127.0.0.1:1433/master?trustServerCertificate=true`. */
export const MSSQL_ADMIN_URL = process.env.SDS_TEST_MSSQL_URL;

/** Creates a SQL Server database through the dialect itself (tedious has no one-line client). */
export async function createSqlServerDatabase(): Promise<TestDatabase> {
  if (!MSSQL_ADMIN_URL) throw new Error('SDS_TEST_MSSQL_URL is not set');
  const { getDialect } = await import('../../src/breakout/dialects/index.js');
  const name = uniqueName();
  const adminConfig: TargetConfig = { type: 'sqlserver', url: MSSQL_ADMIN_URL };
  const admin = async (sql: string): Promise<void> => {
    const session = await getDialect('sqlserver').connect(adminConfig);
    try {
      // TargetSession has no raw-SQL method on purpose; the test reaches the protected primitive.
      await (session as unknown as { run(sql: string): Promise<number> }).run(sql);
    } finally {
      await session.close();
    }
  };
  await admin(`CREATE DATABASE [${name}]`);
  const u = new URL(MSSQL_ADMIN_URL);
  u.pathname = `/${name}`;
  return {
    name,
    config: { type: 'sqlserver', url: u.toString() },
    admin,
    drop: () => admin(`ALTER DATABASE [${name}] SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE [${name}]`),
  };
}
