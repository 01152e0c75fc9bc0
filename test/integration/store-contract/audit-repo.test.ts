/**
 * The audit trail through the store contract (docs/supervision.md#audit-trail), on the SQLite and
 * the PostgreSQL store alike: records appended by recordAudit form a chain that verifyAudit walks;
 * every kind of tampering made with raw SQL is found and named by its stable code and seq; many
 * appends at once on PostgreSQL (several connections) keep the chain whole; the listing's filters;
 * and retention, which never prunes past the last backup and leaves a chain that still verifies.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { listAudit, markAuditBackedUp, pruneAudit, recordAudit, verifyAudit, type AuditEntry } from '../../../src/core/audit/index.js';
import { AppError } from '../../../src/shared/errors.js';
import type { Store } from '../../../src/store/open-store.js';
import { storeSql } from '../../helpers/temp-home.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';

const T0 = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
const cli = { actor: 'os:tester', origin: 'host-1', channel: 'cli' as const };
const entry = (action: string, more: Partial<AuditEntry> = {}): AuditEntry => ({
  ...cli,
  action,
  target: 'user:amy',
  outcome: 'success',
  ...more,
});

/** Appends `n` records a day apart from T0: actions a0, a1, … */
async function appendDays(store: Store, n: number, from = 0): Promise<void> {
  for (let i = from; i < from + n; i++) await recordAudit(store, entry(`a${i}`), new Date(T0 + i * DAY));
}

/** The code and seq verifyAudit fails with. */
async function failure(store: Store): Promise<{ code: string; seq: unknown }> {
  try {
    await verifyAudit(store);
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return { code: err.code, seq: err.details.seq };
  }
  assert.fail('verify found nothing');
}

testOnBothStores('audit: records chain, verify walks them, list filters', async (store) => {
  const empty = await verifyAudit(store);
  assert.equal(empty.records, 0);
  assert.equal(empty.head_seq, 0);
  const first = await recordAudit(
    store,
    entry('users.add', { details: { role: 'API', nested: { b: 1, a: [2, { d: 3, c: 4 }] } } }),
    new Date(T0),
  );
  assert.equal(first.seq, 1);
  assert.equal(first.prev_hash, '0'.repeat(64));
  assert.equal(first.details, '{"nested":{"a":[2,{"c":4,"d":3}],"b":1},"role":"API"}', 'details in canonical form: keys sorted');
  // The documented canonical form, computed here independently of the code under test.
  const form = JSON.stringify([
    1,
    1,
    first.at,
    'os:tester',
    'host-1',
    'cli',
    'users.add',
    'user:amy',
    'success',
    first.details,
    '0'.repeat(64),
  ]);
  assert.equal(first.hash, createHash('sha256').update(form, 'utf8').digest('hex'));

  const second = await recordAudit(
    store,
    {
      actor: 'alice',
      origin: '10.0.0.7',
      channel: 'http',
      action: 'login',
      target: 'user:alice',
      outcome: 'failure',
      details: { error: 'AUTH-001' },
    },
    new Date(T0 + DAY),
  );
  assert.equal(second.prev_hash, first.hash);
  // Text both stores cannot keep as it is (a NUL, a lone surrogate) is hashed as stored.
  await recordAudit(store, entry('dictionaries.delete', { target: 'dictionary:A\u0000B\ud800' }), new Date(T0 + 2 * DAY));
  const ok = await verifyAudit(store);
  assert.equal(ok.records, 3);
  assert.equal(ok.head_seq, 3);

  const seqs = async (q: Parameters<typeof listAudit>[1]) => (await listAudit(store, q)).map((r) => r.seq);
  assert.deepEqual(await seqs({}), [3, 2, 1], 'newest first');
  assert.deepEqual(await seqs({ actor: 'alice' }), [2]);
  assert.deepEqual(await seqs({ outcome: 'failure' }), [2]);
  assert.deepEqual(await seqs({ action: 'users.*' }), [1]);
  assert.deepEqual(await seqs({ action: 'users' }), [], 'an action without * is exact');
  assert.deepEqual(await seqs({ since: '2026-01-02', until: '2026-01-03T00:00:00Z' }), [2]);
  assert.deepEqual(await seqs({ since: '2026-01-02T01:00' }), [3], 'a time without zone is UTC');
  assert.deepEqual(await seqs({ limit: '2' }), [3, 2]);
  assert.deepEqual(await seqs({ before: 3, limit: 1 }), [2]);
  const [r] = await listAudit(store, { actor: 'alice' });
  assert.deepEqual(r!.details, { error: 'AUTH-001' });
  assert.equal(r!.channel, 'http');
  assert.equal((await listAudit(store, { action: 'dictionaries.delete' }))[0]!.target, 'dictionary:A\ufffdB\ufffd');
  await assert.rejects(listAudit(store, { since: 'yesterday' }), (e: AppError) => e.code === 'USAGE' && e.details.field === 'since');
  await assert.rejects(listAudit(store, { limit: '0' }), (e: AppError) => e.code === 'USAGE');
  await assert.rejects(listAudit(store, { outcome: 'maybe' }), (e: AppError) => e.code === 'USAGE');
});

testOnBothStores('audit: a record appended in a rolled-back transaction leaves no trace and no hole', async (store) => {
  await appendDays(store, 1);
  await assert.rejects(
    store.transaction(async (tx) => {
      await recordAudit(tx, entry('users.remove'));
      throw new Error('the change failed');
    }),
    /the change failed/,
  );
  await appendDays(store, 1, 1);
  assert.deepEqual((await verifyAudit(store)).records, 2);
  assert.deepEqual(
    (await listAudit(store, {})).map((r) => r.action),
    ['a1', 'a0'],
  );
});

testOnBothStores('audit: an edited field is found (AUDIT_RECORD_ALTERED)', async (store) => {
  await appendDays(store, 4);
  await storeSql(store, "UPDATE audit_log SET actor = 'os:someone-else' WHERE seq = 2");
  assert.deepEqual(await failure(store), { code: 'AUDIT_RECORD_ALTERED', seq: 2 });
});

testOnBothStores('audit: a deleted record in the middle is found (AUDIT_RECORD_MISSING)', async (store) => {
  await appendDays(store, 4);
  await storeSql(store, 'DELETE FROM audit_log WHERE seq = 2');
  assert.deepEqual(await failure(store), { code: 'AUDIT_RECORD_MISSING', seq: 2 });
});

testOnBothStores('audit: a deleted last record is found through the head row (AUDIT_HEAD_MISMATCH)', async (store) => {
  await appendDays(store, 4);
  await storeSql(store, 'DELETE FROM audit_log WHERE seq = 4');
  assert.deepEqual(await failure(store), { code: 'AUDIT_HEAD_MISMATCH', seq: 4 });
});

testOnBothStores('audit: a record added after the head is found (AUDIT_HEAD_MISMATCH)', async (store) => {
  await appendDays(store, 2);
  const [last] = await storeSql(store, 'SELECT hash FROM audit_log WHERE seq = 2');
  await storeSql(
    store,
    `INSERT INTO audit_log (seq, at, actor, origin, channel, action, target, outcome, details, prev_hash, hash)
     VALUES (3, '2026-02-01T00:00:00.000Z', 'x', 'x', 'cli', 'users.add', 'user:x', 'success', '{}', '${last!.hash as string}', 'abc')`,
  );
  assert.deepEqual(await failure(store), { code: 'AUDIT_HEAD_MISMATCH', seq: 3 });
});

testOnBothStores('audit: a record replaced with a correct hash of its own breaks the next link (AUDIT_CHAIN_BROKEN)', async (store) => {
  await appendDays(store, 3);
  // Rewrite record 2 as a forger who knows the canonical form would: its own hash is right.
  const [r] = await storeSql(store, 'SELECT * FROM audit_log WHERE seq = 2');
  const forged: Record<string, unknown> = { ...r, action: 'a-forged' };
  const form = JSON.stringify([
    1,
    2,
    forged.at,
    forged.actor,
    forged.origin,
    forged.channel,
    forged.action,
    forged.target,
    forged.outcome,
    forged.details,
    forged.prev_hash,
  ]);
  const hash = createHash('sha256').update(form, 'utf8').digest('hex');
  await storeSql(store, `UPDATE audit_log SET action = 'a-forged', hash = '${hash}' WHERE seq = 2`);
  assert.deepEqual(await failure(store), { code: 'AUDIT_CHAIN_BROKEN', seq: 3 });
});

testOnBothStores('audit: two records swapped are found (AUDIT_RECORD_ALTERED: the seq is hashed)', async (store) => {
  await appendDays(store, 3);
  await storeSql(store, 'UPDATE audit_log SET seq = -1 WHERE seq = 1');
  await storeSql(store, 'UPDATE audit_log SET seq = 1 WHERE seq = 2');
  await storeSql(store, 'UPDATE audit_log SET seq = 2 WHERE seq = -1');
  assert.deepEqual(await failure(store), { code: 'AUDIT_RECORD_ALTERED', seq: 1 });
});

testOnBothStores(
  'audit: a whole tail rewritten with the head row is found only against a head written down (AUDIT_HEAD_UNKNOWN)',
  async (store) => {
    await appendDays(store, 3);
    const kept = await verifyAudit(store);
    // Delete the last record and fix the head row: the chain is whole again, as far as it knows.
    const [r2] = await storeSql(store, 'SELECT hash FROM audit_log WHERE seq = 2');
    await storeSql(store, 'DELETE FROM audit_log WHERE seq = 3');
    await storeSql(store, `UPDATE audit_chain SET head_seq = 2, head_hash = '${r2!.hash as string}'`);
    assert.equal((await verifyAudit(store)).records, 2, 'undetectable from inside the store alone');
    await assert.rejects(
      verifyAudit(store, { expect: { seq: kept.head_seq, hash: kept.head_hash } }),
      (e: AppError) => e.code === 'AUDIT_HEAD_UNKNOWN' && e.details.seq === 3,
    );
    assert.equal((await verifyAudit(store, { expect: { seq: 2, hash: r2!.hash as string } })).expected, 'found');
  },
);

testOnBothStores('audit: retention prunes only what is old AND backed up, and the chain still verifies', async (store) => {
  await appendDays(store, 10);
  const settings = { retentionDays: 5 };
  const now = new Date(T0 + 10 * DAY);
  const source = cli;
  const forever = await pruneAudit(store, { now, settings: { retentionDays: 0 }, source });
  assert.deepEqual([forever.pruned, forever.held_by], [0, 'forever']);
  const held = await pruneAudit(store, { now, settings, source });
  assert.deepEqual([held.pruned, held.held_by], [0, 'not-backed-up'], 'no backup: nothing pruned');

  await markAuditBackedUp(store, 3, { ...cli, action: 'backup.create', target: 'backup:x' });
  const some = await pruneAudit(store, { now, settings, source });
  assert.equal(some.pruned, 3, 'records 1 to 3: old and in the backup');
  assert.equal(some.anchor_seq, 3);
  assert.equal(some.held_by, 'not-backed-up', 'records 4 and 5 are old but not in a backup');
  let v = await verifyAudit(store);
  assert.equal(v.anchor_seq, 3);
  assert.equal(v.records, 10 - 3 + 2, 'the kept records, the backup record and the prune record');
  const actions = (await listAudit(store, { limit: 3 })).map((r) => r.action);
  assert.deepEqual(actions, ['audit.prune', 'backup.create', 'a9']);

  await markAuditBackedUp(store, 1000, { ...cli, action: 'backup.create', target: 'backup:y' });
  const rest = await pruneAudit(store, { now, settings, source });
  assert.equal(rest.pruned, 2, 'records 4 and 5; 6 onwards are younger than 5 days');
  assert.equal(rest.held_by, undefined);
  v = await verifyAudit(store);
  assert.equal(v.anchor_seq, 5);
  assert.equal((await storeSql(store, 'SELECT min(seq) AS m FROM audit_log'))[0]!.m, 6);
  // A deletion at the new start of the chain is still found: the anchor names what must come next.
  await storeSql(store, 'DELETE FROM audit_log WHERE seq = 6');
  assert.deepEqual(await failure(store), { code: 'AUDIT_RECORD_MISSING', seq: 6 });
});

testOnBothStores('audit: many appends at once from several connections keep one whole chain', async (store, kind) => {
  // On PostgreSQL each transaction has a connection of the pool: they race for the head row's lock.
  // On SQLite they queue for the one connection (the race across processes: test/e2e/cli/audit.test.ts).
  const n = kind === 'postgresql' ? 40 : 20;
  await Promise.all(Array.from({ length: n }, (_, i) => recordAudit(store, entry(`race${i}`))));
  const v = await verifyAudit(store);
  assert.equal(v.records, n);
  assert.equal(v.head_seq, n);
  const actions = new Set((await listAudit(store, { limit: 1000 })).map((r) => r.action));
  assert.equal(actions.size, n, 'every append is there once');
});

test('audit: two PostgreSQL stores of one database append at once', async () => {
  // Covered by the test above on one pool; here the head row's lock is what orders two pools.
  const { openTestStore } = await import('../../helpers/store-kinds.js');
  const { store, cleanup } = await openTestStore('postgresql');
  try {
    const { openPostgresStore } = await import('../../../src/store/postgresql/open-postgres-store.js');
    const url = (store as unknown as { pool: { options: { connectionString: string } } }).pool.options.connectionString;
    const other = await openPostgresStore({ connectionString: url, max: 4 }, store.home, { migrate: false });
    try {
      await Promise.all(Array.from({ length: 30 }, (_, i) => recordAudit(i % 2 === 0 ? store : other, entry(`two-pools-${i}`))));
    } finally {
      await other.close();
    }
    const v = await verifyAudit(store);
    assert.equal(v.records, 30);
  } finally {
    await cleanup();
  }
});
