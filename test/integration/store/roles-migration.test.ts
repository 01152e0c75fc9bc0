/**
 * Migration 0031 (docs/supervision.md#roles-and-rights) on a real store at version 30, on SQLite
 * and on PostgreSQL: accounts made before roles existed keep exactly what they could do (Standard
 * becomes Standard User, API and Administrator keep their names), their refresh tokens and CSWeb
 * records survive the rebuild of the users table, and a role that does not exist is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { loadMigrations, migrate } from '../../../src/store/migrate.js';
import { openStore, type Store } from '../../../src/store/open-store.js';
import { loadPostgresMigrations, migratePostgres } from '../../../src/store/postgresql/migrate.js';
import { openPostgresStore } from '../../../src/store/postgresql/open-postgres-store.js';
import { createTokenService } from '../../../src/core/auth/tokens.js';
import { BUILTIN_ROLES, effectiveRights } from '../../../src/core/auth/index.js';
import { tempDir } from '../../helpers/temp-home.js';
import { createPgStoreDatabase } from '../store-postgresql/pg-store-helpers.js';

const NOW = Date.UTC(2026, 0, 1);
const sha256 = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');
// The stamp refresh-tokens.ts keeps of the password hash: the first 32 hex digits of its SHA-256.
const stamp = (hash: string) => sha256(hash).slice(0, 32);
const LATER = NOW + 24 * 3600 * 1000;

/** The rows written at version 30, as an office's store would hold them: one account per old role. */
const ACCOUNTS = [
  ['ann', 'Standard', 'u-ann'],
  ['ivan', 'API', 'u-ivan'],
  ['root', 'Administrator', 'u-root'],
] as const;

/** What each old role could do (the permission table of sds before roles), in today's names. */
const BEFORE: Record<string, string> = { Standard: 'Standard User', API: 'API', Administrator: 'Administrator' };

async function checkMigrated(store: Store): Promise<void> {
  assert.ok(store.migration.applied.includes('0031-roles-and-rights'), JSON.stringify(store.migration));
  for (const [name, old, uuid] of ACCOUNTS) {
    const u = (await store.users.find(name))!;
    assert.deepEqual([u.role, u.uuid, u.tokenVersion, u.passwordHash], [BEFORE[old], uuid, 0, `hash-${name}`], name);
    assert.deepEqual(
      [...(await effectiveRights(store, u))].sort(),
      [...BUILTIN_ROLES[BEFORE[old]!]!].sort(),
      `${name} may do what it could`,
    );
  }
  assert.deepEqual(
    (await store.roles.list()).map((r) => [r.name, r.builtin]),
    [
      ['API', true],
      ['Administrator', true],
      ['Developer', true],
      ['Standard User', true],
    ],
  );
  // The rows that hang on accounts came back after the rebuild of users (SQLite) or stayed (PostgreSQL).
  const ann = (await store.users.find('ann'))!;
  assert.equal((await store.users.cswebRecord(ann.id))?.cswebRole, 'Standard User');
  const tokens = createTokenService({ store, key: new Uint8Array(32), clock: () => NOW });
  const g = await tokens.grant({ grant_type: 'refresh_token', refresh_token: 'ann-token' });
  assert.equal(g.user.username, 'ann');
  assert.equal((await tokens.authenticate(g.tokens.access_token)).role, 'Standard User');
  // The role column now names a row of roles: the old name, or any unknown one, is refused.
  await assert.rejects(store.users.insert('old', 'Standard', 'h'));
  await assert.rejects(store.users.insert('odd', 'Supervisor', 'h'));
  // Removing an account still takes its tokens and record with it (the foreign keys cascade).
  await store.users.remove('ann');
  await assert.rejects(tokens.grant({ grant_type: 'refresh_token', refresh_token: 'ann-token' }));
  assert.equal(await store.users.cswebRecord(ann.id), undefined);
}

test('0031 on SQLite: accounts made at version 30 keep their rights, tokens and CSWeb records', async () => {
  const home = tempDir();
  try {
    const db = new Database(home.db);
    db.pragma('foreign_keys = ON');
    migrate(
      db,
      loadMigrations().filter((m) => m.version <= 30),
    );
    const addUser = db.prepare(
      "INSERT INTO users (username, role, password_hash, uuid, created_at, updated_at) VALUES (?, ?, ?, ?, 'x', 'x')",
    );
    const ids = ACCOUNTS.map(([name, role, uuid]) => Number(addUser.run(name, role, `hash-${name}`, uuid).lastInsertRowid));
    db.prepare(
      `INSERT INTO refresh_tokens (token_hash, family_id, user_id, username, client_id, credential_stamp, issued_at, expires_at, token_version)
       VALUES (?, 'f1', ?, 'ann', NULL, ?, ?, ?, 0)`,
    ).run(sha256('ann-token'), ids[0], stamp('hash-ann'), NOW - 1000, LATER);
    db.prepare(
      `INSERT INTO csweb_users (user_id, csweb_username, password_hash, csweb_role, imported_at, updated_at)
       VALUES (?, 'ann', '$2y$10$x', 'Standard User', 'x', 'x')`,
    ).run(ids[0]);
    db.close();

    const store = await openStore(home, { migrate: true });
    try {
      await checkMigrated(store);
    } finally {
      await store.close();
    }
  } finally {
    home.cleanup();
  }
});

test('0031 on PostgreSQL: accounts made at version 30 keep their rights, tokens and CSWeb records', async () => {
  const home = tempDir();
  const database = await createPgStoreDatabase();
  try {
    const client = await database.connect();
    await migratePostgres(
      client,
      loadPostgresMigrations().filter((m) => m.version <= 30),
    );
    const ids: number[] = [];
    for (const [name, role, uuid] of ACCOUNTS) {
      const r = await client.query<{ id: number }>(
        `INSERT INTO users (username, role, password_hash, uuid, created_at, updated_at) VALUES ($1, $2, $3, $4, 'x', 'x') RETURNING id`,
        [name, role, `hash-${name}`, uuid],
      );
      ids.push(r.rows[0]!.id);
    }
    await client.query(
      `INSERT INTO refresh_tokens (token_hash, family_id, user_id, username, client_id, credential_stamp, issued_at, expires_at, token_version)
       VALUES ($1, 'f1', $2, 'ann', NULL, $3, $4, $5, 0)`,
      [sha256('ann-token'), ids[0], stamp('hash-ann'), NOW - 1000, LATER],
    );
    await client.query(
      `INSERT INTO csweb_users (user_id, csweb_username, password_hash, csweb_role, imported_at, updated_at)
       VALUES ($1, 'ann', '$2y$10$x', 'Standard User', 'x', 'x')`,
      [ids[0]],
    );

    const store = await openPostgresStore({ connectionString: database.database.config.url, max: 2 }, home, { migrate: true });
    try {
      await checkMigrated(store);
    } finally {
      await store.close();
    }
  } finally {
    await database.drop();
    home.cleanup();
  }
});
