/**
 * Migrations of the PostgreSQL store on a real server (SDS_TEST_PG_URL, default
 * postgresql://postgres@127.0.0.1:5432/postgres); each test makes and drops its own database.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { AppError } from '../../../src/shared/errors.js';
import {
  loadPostgresMigrations,
  migratePostgres,
  POSTGRES_MIGRATIONS_DIR,
  postgresSchemaStatus,
  postgresVersion,
  requirePostgresSchema,
  SCHEMA_LOCK_KEY,
} from '../../../src/store/postgresql/migrate.js';
import { migrationLabel } from '../../../src/store/migrate.js';
import { createPgStoreDatabase } from './pg-store-helpers.js';

const MIGRATIONS = loadPostgresMigrations();
const LATEST = MIGRATIONS.at(-1)!.version;
const ALL = MIGRATIONS.map(migrationLabel);

async function tables(client: pg.Client): Promise<string[]> {
  const r = await client.query<{ name: string }>(
    `SELECT relname AS name FROM pg_class WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace ORDER BY 1`,
  );
  return r.rows.map((row) => row.name);
}

async function columns(client: pg.Client, table: string): Promise<string[]> {
  const r = await client.query<{ name: string }>(
    `SELECT attname AS name FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
    [table],
  );
  return r.rows.map((row) => row.name);
}

test('the PostgreSQL set begins at the baseline 0025, the SQLite schema version it stands for', () => {
  assert.equal(MIGRATIONS[0]!.version, 25);
  assert.equal(MIGRATIONS[0]!.name, 'baseline');
});

test('a new database is migrated to the latest version, and a second run applies nothing', async (t) => {
  const db = await createPgStoreDatabase();
  t.after(() => db.drop());
  const client = await db.connect();

  assert.equal(await postgresVersion(client), 0);
  const before = await postgresSchemaStatus(client);
  assert.deepEqual(
    { version: before.version, latest: before.latest, pending: before.pending },
    { version: 0, latest: LATEST, pending: ALL },
  );
  assert.deepEqual(await tables(client), [], 'reading the status creates nothing');
  await assert.rejects(requirePostgresSchema(client, '/srv/sds'), (err: AppError) => {
    assert.equal(err.code, 'STORE_NEEDS_MIGRATION');
    assert.match(err.message, /the store of the home \/srv\/sds is at schema version 0/);
    return true;
  });

  assert.deepEqual(await migratePostgres(client), { from: 0, to: LATEST, applied: ALL });
  const after = await postgresSchemaStatus(client);
  assert.equal(after.version, LATEST);
  assert.deepEqual(after.pending, []);
  assert.ok(after.migrations.every((m) => m.state === 'applied'));
  assert.equal((await requirePostgresSchema(client, '/srv/sds')).version, LATEST);
  const row = await client.query<{ version: number; updated_at: string }>('SELECT version, updated_at FROM sds_schema');
  assert.equal(row.rows.length, 1, 'one row');
  assert.equal(row.rows[0]!.version, LATEST);
  assert.match(row.rows[0]!.updated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.ok((await tables(client)).includes('cases'));

  assert.deepEqual(await migratePostgres(client), { from: LATEST, to: LATEST, applied: [] });
  assert.equal((await client.query('SELECT * FROM sds_schema')).rows.length, 1);
});

test('a store migrated by a newer sds is refused with STORE_TOO_NEW', async (t) => {
  const db = await createPgStoreDatabase();
  t.after(() => db.drop());
  const client = await db.connect();
  await migratePostgres(client);
  await client.query('UPDATE sds_schema SET version = $1', [LATEST + 1]);

  const tooNew = (err: AppError) => {
    assert.equal(err.code, 'STORE_TOO_NEW');
    assert.deepEqual(err.details, { version: LATEST + 1, known: LATEST });
    return true;
  };
  await assert.rejects(migratePostgres(client), tooNew);
  await assert.rejects(requirePostgresSchema(client, '/srv/sds'), tooNew);
  assert.equal((await postgresSchemaStatus(client)).version, LATEST + 1);
});

test('two migrators started at the same moment: the baseline is applied once and both end at the latest version', async (t) => {
  const db = await createPgStoreDatabase();
  t.after(() => db.drop());
  const [a, b] = [await db.connect(), await db.connect()];

  const results = await Promise.all([migratePostgres(a), migratePostgres(b)]);
  assert.deepEqual(
    results.map((r) => r.to),
    [LATEST, LATEST],
  );
  assert.deepEqual(
    // Each migration takes the lock on its own, so the two may take turns: which applies which varies.
    results.flatMap((r) => r.applied).sort(),
    ALL,
    'every migration applied by exactly one of them',
  );
  assert.equal(await postgresVersion(a), LATEST);
  assert.equal((await a.query('SELECT * FROM sds_schema')).rows.length, 1);
});

test('migrators wait while the schema lock is held; once it is free each migration is applied by one, the other finds it done', async (t) => {
  const db = await createPgStoreDatabase();
  t.after(() => db.drop());
  const [holder, a, b] = [await db.connect(), await db.connect(), await db.connect()];
  const waitingForLock = async () =>
    (
      await holder.query<{ n: number }>(
        `SELECT count(*)::integer AS n FROM pg_locks
          WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      )
    ).rows[0]!.n;

  // A REPEATABLE READ snapshot taken before the lock would hide the winner's commit from the loser.
  for (const c of [a, b]) await c.query(`SET default_transaction_isolation = 'repeatable read'`);
  await holder.query(`SELECT pg_advisory_lock(${SCHEMA_LOCK_KEY})`);
  let done = 0;
  const running = [migratePostgres(a), migratePostgres(b)].map((p) => p.finally(() => done++));
  // Both have read version 0 and wait inside their transaction of the baseline.
  for (let i = 0; i < 100 && (await waitingForLock()) < 2; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(await waitingForLock(), 2);
  assert.equal(done, 0, 'the migrators wait for the lock');
  assert.equal(await postgresVersion(holder), 0, 'nothing applied while the lock is held');

  await holder.query(`SELECT pg_advisory_unlock(${SCHEMA_LOCK_KEY})`);
  const results = await Promise.all(running);
  // Each migration is its own transaction under the lock: whichever gets the lock for a migration
  // applies it, the other re-reads the version and finds it done. Every one is applied once.
  assert.deepEqual(
    results.map((r) => [r.from, r.to]),
    [
      [0, LATEST],
      [0, LATEST],
    ],
  );
  assert.deepEqual(results.flatMap((r) => r.applied).sort(), ALL);
  assert.equal(await postgresVersion(holder), LATEST);
});

test('a migration that fails leaves the version and the schema as they were before it', async (t) => {
  const db = await createPgStoreDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'sds-pg-migrations-'));
  t.after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  });
  for (const m of MIGRATIONS)
    copyFileSync(join(POSTGRES_MIGRATIONS_DIR, `${migrationLabel(m)}.sql`), join(dir, `${migrationLabel(m)}.sql`));
  const broken = LATEST + 1;
  const brokenLabel = `${String(broken).padStart(4, '0')}-broken`;
  // Valid statements first, then one that fails: none of them may stay.
  writeFileSync(
    join(dir, `${brokenLabel}.sql`),
    `CREATE TABLE half_done (id bigint PRIMARY KEY);
     ALTER TABLE cases ADD COLUMN half_done text;
     INSERT INTO settings (name, value) VALUES ('half_done', 'yes');
     SELECT 1 / 0;`,
  );
  const withBroken = loadPostgresMigrations(dir + '/');
  assert.equal(withBroken.at(-1)!.version, broken);
  const client = await db.connect();

  // From an empty database: the migrations before the broken one commit, each on its own.
  await assert.rejects(migratePostgres(client, withBroken), /division by zero/);
  assert.equal(await postgresVersion(client), LATEST);
  const tablesBefore = await tables(client);
  const casesBefore = await columns(client, 'cases');
  assert.ok(!tablesBefore.includes('half_done'));
  assert.ok(!casesBefore.includes('half_done'));
  assert.equal((await client.query(`SELECT * FROM settings WHERE name = 'half_done'`)).rows.length, 0);
  assert.deepEqual((await postgresSchemaStatus(client, withBroken)).pending, [brokenLabel]);

  // Again from the migrated store: the same failure changes nothing, the lock went with the
  // transaction, and the connection is usable.
  await assert.rejects(migratePostgres(client, withBroken), /division by zero/);
  assert.equal(await postgresVersion(client), LATEST);
  assert.deepEqual(await tables(client), tablesBefore);
  assert.deepEqual(await columns(client, 'cases'), casesBefore);
  const other = await db.connect();
  const free = await other.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(${SCHEMA_LOCK_KEY}) AS ok`);
  assert.equal(free.rows[0]!.ok, true);
  assert.equal((await client.query<{ n: number }>('SELECT 1 AS n')).rows[0]!.n, 1);
});

test('a broken baseline leaves a new database empty: not even sds_schema stays', async (t) => {
  const db = await createPgStoreDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'sds-pg-migrations-'));
  t.after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  });
  writeFileSync(join(dir, '0025-baseline.sql'), 'CREATE TABLE first_one (id bigint); SELECT no_such_function();');
  const client = await db.connect();
  await assert.rejects(migratePostgres(client, loadPostgresMigrations(dir + '/')), /no_such_function/);
  assert.deepEqual(await tables(client), []);
  assert.equal(await postgresVersion(client), 0);
});
