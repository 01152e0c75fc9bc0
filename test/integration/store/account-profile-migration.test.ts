/**
 * Migration 0032 (docs/supervision.md#accounts) on a real store of each kind, from the version
 * before it: the accounts already there stay as they were (id, UUID, role, password, state, last
 * login, times), get no profile, except one imported from CSWeb, which gets the names, email and
 * phone its csweb_users row kept; and a login still works.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { loadMigrations, migrate } from '../../../src/store/migrate.js';
import { openStore, type Store } from '../../../src/store/open-store.js';
import { loadPostgresMigrations, migratePostgres } from '../../../src/store/postgresql/migrate.js';
import { openPostgresStore } from '../../../src/store/postgresql/open-postgres-store.js';
import { createTokenService } from '../../../src/core/auth/tokens.js';
import { hashPassword } from '../../../src/core/auth/passwords.js';
import { tempDir } from '../../helpers/temp-home.js';
import { createPgStoreDatabase } from '../store-postgresql/pg-store-helpers.js';

const BEFORE = 31;
const USERS_SQL = `INSERT INTO users (id, uuid, username, role, password_hash, disabled, token_version, last_login_at, created_at, updated_at)
  VALUES (1, '11111111-1111-4111-8111-111111111111', 'kept', 'API', $HASH, 0, 2, '2026-01-02T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
         (2, '22222222-2222-4222-8222-222222222222', 'fromcsweb', 'Standard User', 'x', 1, 0, NULL, '2026-01-01T00:00:00.000Z', '2026-01-03T00:00:00.000Z')`;
const CSWEB_SQL = `INSERT INTO csweb_users (user_id, csweb_username, password_hash, csweb_role, first_name, last_name, email, phone, imported_at, updated_at)
  VALUES (2, 'fromcsweb', 'x', 'Standard User', 'Awa', 'Ndiaye', 'awa@example.org', '+221 2', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`;

async function checkMigrated(store: Store, migrationApplied: boolean): Promise<void> {
  assert.ok(migrationApplied, '0032 was applied');
  const kept = await store.users.find('kept');
  assert.deepEqual(
    kept && {
      id: kept.id,
      uuid: kept.uuid,
      role: kept.role,
      disabled: kept.disabled,
      tokenVersion: kept.tokenVersion,
      lastLoginAt: kept.lastLoginAt,
      createdAt: kept.createdAt,
      updatedAt: kept.updatedAt,
      profile: kept.profile,
    },
    {
      id: 1,
      uuid: '11111111-1111-4111-8111-111111111111',
      role: 'API',
      disabled: false,
      tokenVersion: 2,
      lastLoginAt: '2026-01-02T00:00:00.000Z',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
      profile: { firstName: null, lastName: null, email: null, phone: null },
    },
  );
  const imported = await store.users.find('fromcsweb');
  assert.deepEqual(imported?.profile, { firstName: 'Awa', lastName: 'Ndiaye', email: 'awa@example.org', phone: '+221 2' });
  assert.equal(imported?.disabled, true);
  assert.equal(imported?.updatedAt, '2026-01-03T00:00:00.000Z');
  // The account still logs in with its password, and the login is recorded.
  const now = Date.UTC(2026, 5, 1);
  const tokens = createTokenService({ store, key: new Uint8Array(32), clock: () => now });
  const g = await tokens.grant({ grant_type: 'password', username: 'kept', password: 'kept-password' });
  assert.equal(g.user.uuid, '11111111-1111-4111-8111-111111111111');
  assert.equal((await store.users.find('kept'))?.lastLoginAt, new Date(now).toISOString());
}

test('0032 on a SQLite store keeps every account and copies the CSWeb profile', async () => {
  const home = tempDir();
  try {
    const db = new Database(home.db);
    db.pragma('foreign_keys = ON');
    migrate(
      db,
      loadMigrations().filter((m) => m.version <= BEFORE),
    );
    db.prepare(USERS_SQL.replace('$HASH', '?')).run(await hashPassword('kept-password'));
    db.exec(CSWEB_SQL);
    db.close();
    const store = await openStore(home, { migrate: true });
    try {
      await checkMigrated(store, store.migration.applied.includes('0032-account-profile'));
    } finally {
      await store.close();
    }
  } finally {
    home.cleanup();
  }
});

test('0032 on a PostgreSQL store keeps every account and copies the CSWeb profile', async () => {
  const db = await createPgStoreDatabase();
  const home = tempDir();
  try {
    const client = await db.connect();
    await migratePostgres(
      client,
      loadPostgresMigrations().filter((m) => m.version <= BEFORE),
    );
    await client.query(USERS_SQL.replace('$HASH', '$1'), [await hashPassword('kept-password')]);
    await client.query(CSWEB_SQL);
    const store = await openPostgresStore({ connectionString: db.database.config.url!, max: 2 }, home, { migrate: true });
    try {
      await checkMigrated(store, store.migration.applied.includes('0032-account-profile'));
    } finally {
      await store.close();
    }
  } finally {
    home.cleanup();
    await db.drop();
  }
});
