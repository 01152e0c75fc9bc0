/**
 * The PostgreSQL runner's memory of the advisory locks its transaction holds
 * (src/store/postgresql/pg-runner.ts): a lock is taken once per transaction, taken again after the
 * savepoint that took it is rolled back (which releases it), and kept by the parent when that
 * savepoint is released.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ClientBase } from 'pg';
import { ClientRunner } from '../../../src/store/postgresql/pg-runner.js';

/** A connection that records the statements sent to it and answers each with no rows. */
function recordingClient(): { client: ClientBase; sent: string[] } {
  const sent: string[] = [];
  const client = {
    query: async (sql: string) => {
      sent.push(sql);
      return { rows: [], rowCount: 0 };
    },
  } as unknown as ClientBase;
  return { client, sent };
}

const locks = (sent: string[]) => sent.filter((s) => s.includes('pg_advisory_xact_lock')).length;

test('a lock held by the transaction is not asked for again', async () => {
  const { client, sent } = recordingClient();
  const r = new ClientRunner(client);
  await r.lockForTransaction('42');
  await r.lockForTransaction('42');
  await r.lockForTransaction('43');
  assert.equal(locks(sent), 2);
});

test('a lock noted as taken by a statement is not asked for', async () => {
  const { client, sent } = recordingClient();
  const r = new ClientRunner(client);
  r.heldForTransaction('42');
  await r.lockForTransaction('42');
  assert.equal(locks(sent), 0);
});

test('a savepoint rolled back releases the locks it took; one released hands them to its parent', async () => {
  const { client, sent } = recordingClient();
  const r = new ClientRunner(client);
  await assert.rejects(
    r.atomic(async (inner) => {
      await inner.lockForTransaction('42');
      throw new Error('rolled back');
    }),
  );
  await r.lockForTransaction('42');
  assert.equal(locks(sent), 2, 'taken again after the rollback');

  await r.atomic(async (outer) => {
    await outer.atomic(async (inner) => {
      await inner.lockForTransaction('7');
      inner.heldForTransaction('8');
    });
    // Released into `outer`: still held there.
    await outer.lockForTransaction('7');
    await outer.lockForTransaction('8');
  });
  assert.equal(locks(sent), 3);
  // Released again into the transaction itself: held to its end.
  await r.lockForTransaction('7');
  await r.lockForTransaction('8');
  assert.equal(locks(sent), 3);

  await assert.rejects(
    r.atomic(async (outer) => {
      await outer.atomic(async (inner) => inner.lockForTransaction('9'));
      throw new Error('rolled back');
    }),
  );
  await r.lockForTransaction('9');
  assert.equal(locks(sent), 5, 'the outer rollback released what the inner savepoint handed it');
  // A lock held before a savepoint is kept when the savepoint rolls back.
  await assert.rejects(
    r.atomic(async (inner) => {
      await inner.lockForTransaction('42');
      throw new Error('rolled back');
    }),
  );
  await r.lockForTransaction('42');
  assert.equal(locks(sent), 5);
});
