/**
 * Migration 0023 (docs/http-api.md#what-ends-a-token) on a real store at version 22: every account
 * gets its own random UUID, and the refresh tokens in use keep working, those of an account
 * re-enabled after a disable included, while a token issued before that disable stays dead.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { loadMigrations, migrate } from '../../../src/store/migrate.js';
import { openStore } from '../../../src/store/open-store.js';
import { createTokenService } from '../../../src/core/auth/tokens.js';
import { sqliteDb, tempDir } from '../../helpers/temp-home.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NOW = Date.UTC(2026, 0, 1);
const sha256 = (t: string) => createHash('sha256').update(t, 'utf8').digest('hex');
// The stamp refresh-tokens.ts keeps of the password hash: the first 32 hex digits of its SHA-256.
const stamp = (hash: string) => sha256(hash).slice(0, 32);

test('0023 gives each account a distinct UUID and keeps the refresh tokens in use working', async () => {
  const home = tempDir();
  try {
    const db = new Database(home.db);
    db.pragma('foreign_keys = ON');
    migrate(
      db,
      loadMigrations().filter((m) => m.version <= 22),
    );
    const addUser = db.prepare(
      "INSERT INTO users (username, role, password_hash, token_version, created_at, updated_at) VALUES (?, 'Standard', ?, ?, 'x', 'x')",
    );
    // kim was disabled and enabled again once: version 1; the token from before the disable has 0.
    const ids = ['ann', 'bea', 'kim'].map((name) => Number(addUser.run(name, `hash-${name}`, name === 'kim' ? 1 : 0).lastInsertRowid));
    const addToken = db.prepare(
      `INSERT INTO refresh_tokens (token_hash, family_id, user_id, username, client_id, credential_stamp, issued_at, expires_at, revoked_at)
       VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?)`,
    );
    const later = NOW + 24 * 3600 * 1000;
    addToken.run(sha256('ann-token'), 'f1', ids[0], 'ann', stamp('hash-ann'), NOW - 1000, later, null);
    addToken.run(sha256('kim-token'), 'f2', ids[2], 'kim', stamp('hash-kim'), NOW - 1000, later, null);
    addToken.run(sha256('kim-old-token'), 'f3', ids[2], 'kim', stamp('hash-kim'), NOW - 5000, later, NOW - 4000);
    db.close();

    const store = await openStore(home, { migrate: true });
    try {
      assert.ok(store.migration.applied.includes('0023-account-uuids'), JSON.stringify(store.migration));
      const users = await store.users.listWithHashes();
      for (const u of users) assert.match(u.uuid, UUID, u.username);
      assert.equal(new Set(users.map((u) => u.uuid)).size, 3, 'no two accounts share a UUID');
      const versions = sqliteDb(store).prepare('SELECT username, token_version FROM refresh_tokens ORDER BY id').all();
      assert.deepEqual(versions, [
        { username: 'ann', token_version: 0 },
        { username: 'kim', token_version: 1 },
        { username: 'kim', token_version: 1 },
      ]);

      const tokens = createTokenService({ store, key: new Uint8Array(32), clock: () => NOW });
      for (const [name, token] of [
        ['ann', 'ann-token'],
        ['kim', 'kim-token'],
      ] as const) {
        const g = await tokens.grant({ grant_type: 'refresh_token', refresh_token: token });
        assert.equal(g.user.username, name);
        assert.equal(g.user.uuid, (await store.users.find(name))!.uuid, 'the new access token names the UUID');
        assert.equal((await tokens.authenticate(g.tokens.access_token)).username, name);
      }
      await assert.rejects(tokens.grant({ grant_type: 'refresh_token', refresh_token: 'kim-old-token' }), /revoked/);

      // A new account gets a fresh UUID, unique beside the migrated ones.
      const added = await store.users.insert('dan', 'API', 'hash-dan');
      assert.match(added.uuid, UUID);
      assert.equal(new Set((await store.users.listWithHashes()).map((u) => u.uuid)).size, 4);
    } finally {
      await store.close();
    }
  } finally {
    home.cleanup();
  }
});
