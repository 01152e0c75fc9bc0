/**
 * The PL/pgSQL triggers of the PostgreSQL baseline do what the SQLite triggers do: one scenario
 * of plain SQL runs on a migrated PostgreSQL database and on a SQLite database built from
 * src/store/migrations/*.sql, and after every step the case counts, the webhook outbox and the
 * metric counters are the same on both, and as expected.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Database } from 'better-sqlite3';
import type pg from 'pg';
import { migratePostgres } from '../../../src/store/postgresql/migrate.js';
import { createPgStoreDatabase, sqliteAtLatest } from './pg-store-helpers.js';

type Row = Record<string, unknown>;

interface Snapshot {
  counts: Row[];
  outbox: Row[];
  metrics: Row[];
}

const OUTBOX_COLUMNS = `topic, dictionary_id, dictionary_name, guid, old_key, old_label, old_data, old_notes, old_verified,
  old_deleted, new_key, new_label, new_data, new_notes, new_verified, new_deleted, modified_at, dict_label, dict_version, dict_created`;
const SNAPSHOT_SQL = {
  counts: 'SELECT dictionary_id, total FROM case_counts ORDER BY dictionary_id',
  outbox: `SELECT ${OUTBOX_COLUMNS} FROM webhook_outbox ORDER BY id`,
  // julianday() differences carry float noise: compared to the millisecond.
  metrics: 'SELECT name, label, value FROM metric_counters ORDER BY name, label',
};

const round = (rows: Row[]): Row[] => rows.map((r) => ({ ...r, value: Math.round(Number(r.value) * 1000) / 1000 }));

async function pgSnapshot(client: pg.Client): Promise<Snapshot> {
  const rows = async (sql: string) => (await client.query(sql)).rows.map((r: Row) => ({ ...r }));
  return {
    counts: await rows(SNAPSHOT_SQL.counts),
    outbox: await rows(SNAPSHOT_SQL.outbox),
    metrics: round(await rows(SNAPSHOT_SQL.metrics)),
  };
}

function sqliteSnapshot(db: Database): Snapshot {
  const rows = (sql: string) => (db.prepare(sql).all() as Row[]).map((r) => ({ ...r }));
  return { counts: rows(SNAPSHOT_SQL.counts), outbox: rows(SNAPSHOT_SQL.outbox), metrics: round(rows(SNAPSHOT_SQL.metrics)) };
}

const dictionary = (name: string) =>
  `INSERT INTO dictionaries (name, label, version, source, source_format, model, created_at, updated_at)
   VALUES ('${name}', '${name} label', '1', 'dictionary file', 'text', '{}', 't', 't')`;
const kase = (dict: number, guid: string, key: string) =>
  `INSERT INTO cases (dictionary_id, guid, case_key, label, data, notes, revision, created_at, modified_at, position)
   VALUES (${dict}, '${guid}', '${key}', 'label ${guid}', '{"data":"${guid}"}', '[]', 1, 't', 'm-${guid}', (SELECT coalesce(max(position), 0) + 1 FROM cases))`;
const subscribe = (event: string) => `INSERT INTO webhook_subscriptions (event, webhook_id) VALUES ('${event}', 1)`;
const job = (id: string, createdAt: string) =>
  `INSERT INTO jobs (id, dictionaries, mode, threads, origin, status, created_at) VALUES ('${id}', '["CENSUS"]', 'full', 1, 'cli', 'pending', '${createdAt}')`;
const attempt = (status: string) =>
  `INSERT INTO webhook_attempts (delivery_id, webhook_id, event, status, response_ms, retry_count, attempted_at) VALUES (1, 1, 'case_uploaded', '${status}', 5, 0, 't')`;

/** Expected rows of the outbox, the columns the scenario sets. */
function outboxRow(values: Row): Row {
  const row: Row = {};
  for (const c of OUTBOX_COLUMNS.split(',').map((s) => s.trim())) row[c] = values[c] ?? null;
  return row;
}
const uploaded = (guid: string, key: string) =>
  outboxRow({
    topic: 'case',
    dictionary_id: 1,
    dictionary_name: 'CENSUS',
    guid,
    new_key: key,
    new_label: `label ${guid}`,
    new_verified: 0,
    new_deleted: 0,
    modified_at: `m-${guid}`,
  });

interface Step {
  what: string;
  sql: string[];
  expect?: (s: Snapshot) => void;
}

const STEPS: Step[] = [
  {
    what: 'no subscription: nothing captured, cases counted on insert',
    sql: [
      dictionary('CENSUS'),
      kase(1, 'g1', 'k1'),
      kase(1, 'g2', 'k2'),
      `UPDATE cases SET label = 'changed' WHERE guid = 'g1'`,
      `UPDATE dictionaries SET label = 'Census 2' WHERE id = 1`,
    ],
    expect: (s) => {
      assert.deepEqual(s.counts, [{ dictionary_id: 1, total: 2 }]);
      assert.deepEqual(s.outbox, []);
    },
  },
  {
    what: 'case_uploaded: a new case is captured without its data and notes; an update is not',
    sql: [
      `INSERT INTO webhooks (name, url, events, secret, created_ms, created_at, updated_at) VALUES ('w', 'http://x', '[]', 's', 0, 't', 't')`,
      subscribe('case_uploaded'),
      kase(1, 'g3', 'k3'),
      `UPDATE cases SET case_key = 'k3b' WHERE guid = 'g3'`,
    ],
    expect: (s) => {
      assert.deepEqual(s.outbox, [uploaded('g3', 'k3')]);
      assert.deepEqual(s.counts, [{ dictionary_id: 1, total: 3 }]);
    },
  },
  {
    what: 'case_modified: an update is captured with the old and the new case; a soft delete too, and it keeps the count',
    sql: [
      subscribe('case_modified'),
      `UPDATE cases SET label = 'g3 new' WHERE guid = 'g3'`,
      `UPDATE cases SET deleted = 1 WHERE guid = 'g2'`,
    ],
    expect: (s) => {
      assert.equal(s.outbox.length, 3);
      assert.deepEqual(
        s.outbox[1],
        outboxRow({
          topic: 'case',
          dictionary_id: 1,
          dictionary_name: 'CENSUS',
          guid: 'g3',
          old_key: 'k3b',
          old_label: 'label g3',
          old_data: '{"data":"g3"}',
          old_notes: '[]',
          old_verified: 0,
          old_deleted: 0,
          new_key: 'k3b',
          new_label: 'g3 new',
          new_data: '{"data":"g3"}',
          new_notes: '[]',
          new_verified: 0,
          new_deleted: 0,
          modified_at: 'm-g3',
        }),
      );
      assert.equal(s.outbox[2]!.new_deleted, 1);
      assert.equal(s.outbox[2]!.old_deleted, 0);
      assert.deepEqual(s.counts, [{ dictionary_id: 1, total: 3 }]);
    },
  },
  {
    what: 'a hard delete lowers the count and is not captured',
    sql: [`DELETE FROM cases WHERE guid = 'g1'`],
    expect: (s) => {
      assert.deepEqual(s.counts, [{ dictionary_id: 1, total: 2 }]);
      assert.equal(s.outbox.length, 3);
    },
  },
  {
    what: 'dictionary_uploaded: an insert is captured with dict_created 1, an update of its file, label or version with 0, other updates not',
    sql: [
      subscribe('dictionary_uploaded'),
      dictionary('SURVEY'),
      `UPDATE dictionaries SET label = 'Census 3' WHERE name = 'CENSUS'`,
      `UPDATE dictionaries SET description = 'not an upload' WHERE name = 'CENSUS'`,
    ],
    expect: (s) => {
      assert.deepEqual(s.outbox.slice(3), [
        outboxRow({
          topic: 'dictionary',
          dictionary_id: 2,
          dictionary_name: 'SURVEY',
          dict_label: 'SURVEY label',
          dict_version: '1',
          dict_created: 1,
        }),
        outboxRow({
          topic: 'dictionary',
          dictionary_id: 1,
          dictionary_name: 'CENSUS',
          dict_label: 'Census 3',
          dict_version: '1',
          dict_created: 0,
        }),
      ]);
    },
  },
  {
    what: 'once the subscriptions are gone, nothing more is captured',
    sql: [
      `DELETE FROM webhook_subscriptions`,
      kase(2, 'g4', 'k4'),
      `UPDATE cases SET label = 'again' WHERE guid = 'g4'`,
      `UPDATE dictionaries SET version = '2' WHERE name = 'SURVEY'`,
      dictionary('THIRD'),
    ],
    expect: (s) => {
      assert.equal(s.outbox.length, 5);
      assert.deepEqual(s.counts, [
        { dictionary_id: 1, total: 2 },
        { dictionary_id: 2, total: 1 },
      ]);
    },
  },
  {
    what: "a job's end counts the job, its cases and its seconds once; other updates count nothing",
    sql: [
      job('j1', '2024-05-01T09:00:00.000Z'),
      `UPDATE jobs SET status = 'running', started_at = '2024-05-01T10:00:00.000Z' WHERE id = 'j1'`,
      `UPDATE jobs SET heartbeat_at = '2024-05-01T10:00:30.000Z' WHERE id = 'j1'`,
      `UPDATE jobs SET status = 'completed', result = '{"total_cases":12,"tables":3}', finished_at = '2024-05-01T10:01:30.000Z' WHERE id = 'j1'`,
      `UPDATE jobs SET status = 'completed', result = '{"total_cases":99}' WHERE id = 'j1'`,
      // Never started: its seconds run from its creation; no result counts no cases.
      job('j2', '2024-05-01T11:00:00.000Z'),
      `UPDATE jobs SET status = 'failed', finished_at = '2024-05-01T11:00:30.500Z' WHERE id = 'j2'`,
      // A time that is no time counts 0 seconds and does not fail the update.
      job('j3', '2024-05-01T12:00:00.000Z'),
      `UPDATE jobs SET status = 'cancelled', result = '{"total_cases":"many"}', finished_at = 'not a time' WHERE id = 'j3'`,
    ],
    expect: (s) => {
      assert.deepEqual(s.metrics, [
        { name: 'breakout_cases', label: '', value: 12 },
        { name: 'breakout_jobs', label: 'cancelled', value: 1 },
        { name: 'breakout_jobs', label: 'completed', value: 1 },
        { name: 'breakout_jobs', label: 'failed', value: 1 },
        { name: 'breakout_seconds', label: '', value: 120.5 },
      ]);
    },
  },
  {
    what: 'every webhook attempt counts under its status',
    sql: [
      `INSERT INTO webhook_deliveries (webhook_id, event, message_id, body, state, created_at) VALUES (1, 'case_uploaded', 'msg_1', '{}', 'pending', 't')`,
      attempt('failed'),
      attempt('failed'),
      attempt('success'),
    ],
    expect: (s) => {
      assert.deepEqual(
        s.metrics.filter((m) => m.name === 'webhook_attempts'),
        [
          { name: 'webhook_attempts', label: 'failed', value: 2 },
          { name: 'webhook_attempts', label: 'success', value: 1 },
        ],
      );
    },
  },
];

test('the triggers keep case counts, capture webhook changes only while subscribed, and count job ends and attempts, as on SQLite', async (t) => {
  const db = await createPgStoreDatabase();
  t.after(() => db.drop());
  const client = await db.connect();
  await migratePostgres(client);
  const sqlite = sqliteAtLatest();
  t.after(() => sqlite.close());

  const startedMs = Date.now();
  for (const step of STEPS) {
    for (const sql of step.sql) {
      await client.query(sql);
      sqlite.exec(sql);
    }
    const pgState = await pgSnapshot(client);
    assert.deepEqual(pgState, sqliteSnapshot(sqlite), `${step.what}: PostgreSQL and SQLite differ`);
    step.expect?.(pgState);
  }

  // created_ms is the time of the change, in epoch milliseconds.
  const times = (await client.query<{ created_ms: number }>('SELECT created_ms FROM webhook_outbox')).rows.map((r) => r.created_ms);
  assert.equal(times.length, 5);
  for (const ms of times) assert.ok(ms >= startedMs - 1000 && ms <= Date.now() + 1000, `created_ms ${ms}`);
});
