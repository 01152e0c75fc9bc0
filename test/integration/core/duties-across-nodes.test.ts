/**
 * Duties that every node may start but that must be done once (docs/decisions.md, "Duties across
 * nodes (issue 29)"), with two Store objects over one store standing for two nodes: two on the
 * same SQLite file, or two pools on the same PostgreSQL database. Webhook deliveries through a
 * real loopback receiver, schedules' due runs, the periodic log prune, and the runs of a node
 * that died. Every clock is injected: nothing sleeps.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { importCases } from '../../../src/core/cases/import/import-cases.js';
import { addWebhook } from '../../../src/core/webhooks/webhooks.js';
import { deliverDueWebhooks, webhookSettings } from '../../../src/core/webhooks/delivery.js';
import { fanOut } from '../../../src/webhooks/fan-out.js';
import { claimDueRun } from '../../../src/core/scheduler/claim-due-run.js';
import { reapDeadRuns } from '../../../src/core/scheduler/run-schedule.js';
import { schedulerSettings } from '../../../src/core/scheduler/settings.js';
import { autoPruneLogs, logSettingsFrom } from '../../../src/core/logs/index.js';
import { currentNode } from '../../../src/shared/node-id.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/open-store.js';
import type { ScheduleRow } from '../../../src/store/schedules-repo.js';
import { fixture, STORE_KINDS, storeSql, tempHome, type StoreKind, type TempHome } from '../../helpers/temp-home.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';
import { runCliAsync, show } from '../../helpers/run-cli.js';

const SECRET = 'a-shared-secret-of-32-characters';
const LEASE_MS = 10_000;
const settings = webhookSettings({}, { connectTimeoutMs: 2000, responseTimeoutMs: 2000, leaseMs: LEASE_MS, concurrency: 3 });
const T0 = Date.UTC(2030, 0, 1, 12, 0, 0);

/** Declares `name` once per store kind; `fn` gets two stores over one home (two nodes) and the home. */
function testOnTwoNodes(name: string, fn: (a: Store, b: Store, home: TempHome, kind: StoreKind) => Promise<void>): void {
  for (const kind of STORE_KINDS) {
    test(`${name} [${kind}]`, async () => {
      const home = await tempHome(kind);
      const a = await openStore(home);
      const b = await openStore(home);
      try {
        await fn(a, b, home, kind);
      } finally {
        await a.close();
        await b.close();
        await home.cleanup();
      }
    });
  }
}

/** Popstan with `n` cases imported through node `store`: n case_uploaded events in the outbox. */
async function popstanCases(store: Store, home: TempHome, n: number): Promise<string> {
  const file = fixture('popstan-census.json.dcf');
  const dict = (await uploadDictionary(store, { source: readFileSync(file), label: 'popstan', file })).name;
  const lines = readFileSync(fixture('popstan-census.dat'), 'utf8')
    .replace(/^\uFEFF/, '')
    .split('\n')
    .filter((l) => l !== '');
  const keys = [...new Set(lines.map((l) => l.slice(1, 19)))].slice(0, n);
  const dat = join(home.root, 'cases.dat');
  writeFileSync(dat, lines.filter((l) => keys.includes(l.slice(1, 19))).join('\n') + '\n');
  await importCases(store, dict, [dat]);
  return dict;
}

/** An enabled schedule of `dict` at 02:00 every day, next due on the day after T0. */
async function newSchedule(store: Store, dict: string): Promise<ScheduleRow> {
  const dictionaryId = (await store.dictionaries.find(dict))!.id;
  const nextRun = new Date(T0 + 14 * 3_600_000).toISOString();
  return store.schedules.insert({ dictionaryId, enabled: true, cronExpression: '0 2 * * *', nextRun }, new Date(T0).toISOString());
}

/**
 * Two nodes' calls: at once on PostgreSQL (two pools); one after the other on SQLite, where two
 * connections of one process would wait for each other on the busy handler, which blocks the
 * event loop (the race between processes is the e2e test of ten concurrent `sds scheduler-run`).
 */
async function both<T>(kind: StoreKind, first: () => Promise<T>, second: () => Promise<T>): Promise<T[]> {
  if (kind === 'postgresql') return Promise.all([first(), second()]);
  return [await first(), await second()];
}

async function withReceiver(fn: (rx: Receiver) => Promise<void>): Promise<void> {
  const rx = await startReceiver();
  try {
    await fn(rx);
  } finally {
    await rx.close();
  }
}

testOnTwoNodes('two dispatchers over one store send each delivery once', async (a, _b, home) =>
  withReceiver(async (rx) => {
    await addWebhook(a, { name: 'all', url: rx.url, events: ['case_uploaded'], secret: SECRET });
    await popstanCases(a, home, 8);
    // Two nodes' dispatchers at the same moment: two processes of the real CLI, three senders each
    // (in one process, two SQLite connections would wait for each other on its busy handler).
    const env = { SDS_WEBHOOK_CONCURRENCY: '3' };
    const runs = await Promise.all([0, 1].map(() => runCliAsync(home.root, ['--json', 'webhooks', 'deliver'], { env })));
    for (const r of runs) assert.equal(r.code, 0, show(r));
    const [ra, rb] = runs.map((r) => r.json<{ queued: number; succeeded: number }>());
    assert.equal(ra!.queued + rb!.queued, 8, 'each captured change queued once');
    assert.equal(ra!.succeeded + rb!.succeeded, 8);
    assert.equal(rx.received.length, 8, 'eight requests, no repeat');
    const ids = rx.received.map((r) => r.headers['webhook-id']);
    assert.equal(new Set(ids).size, 8, `distinct webhook-ids: ${ids.join(', ')}`);
    const rows = await storeSql(a, "SELECT count(*) AS n FROM webhook_deliveries WHERE state = 'success' AND lease_node IS NULL");
    assert.equal(Number(rows[0]!.n), 8, 'every delivery done, its lease released');
  }),
);

testOnTwoNodes('a delivery claimed by a node that died is sent by another after the lease, with the same webhook-id', async (a, b) =>
  withReceiver(async (rx) => {
    await addWebhook(a, { name: 'dicts', url: rx.url, events: ['dictionary_uploaded'], secret: SECRET });
    const file = fixture('popstan-census.json.dcf');
    await uploadDictionary(a, { source: readFileSync(file), label: 'popstan', file });
    // Node A queues the event, then claims its delivery as its dispatcher does before sending, and dies.
    assert.equal(await fanOut(a, T0 - 1), 1);
    const [pending] = await a.webhookQueue.deliveries();
    assert.ok(pending);
    const dead = await a.webhookQueue.claim(T0, T0 + LEASE_MS, 'token-of-the-dead', 'dead-host:4242:0');
    assert.equal(dead?.id, pending.id);
    await a.close();

    // While the dead node's lease is live, node B leaves the delivery alone.
    const during = await deliverDueWebhooks(b, { now: () => T0 + LEASE_MS - 1, settings });
    assert.deepEqual([during.attempted, during.pending], [0, 1]);
    assert.equal(rx.received.length, 0);
    const held = (await b.webhookQueue.deliveries()).find((d) => d.id === pending.id)!;
    assert.deepEqual([held.leaseNode, held.leaseUntilMs], ['dead-host:4242:0', T0 + LEASE_MS]);

    // Once it has expired, node B takes it over and sends it with the message id it was queued with.
    const after = await deliverDueWebhooks(b, { now: () => T0 + LEASE_MS, settings });
    assert.deepEqual([after.attempted, after.succeeded, after.pending], [1, 1, 0]);
    assert.equal(rx.received.length, 1);
    assert.equal(rx.received[0]!.headers['webhook-id'], pending.messageId);
    assert.equal(rx.received[0]!.body.toString('utf8'), pending.body);
    // The dead node's late completion (had it come back) writes nothing: its lease is gone.
    const late = await b.webhookQueue.complete(
      'token-of-the-dead',
      {
        deliveryId: pending.id,
        webhookId: pending.webhookId,
        event: pending.event,
        status: 'success',
        responseStatus: 200,
        responseMs: 1,
        error: null,
        retryCount: 0,
        redelivery: 0,
        attemptedAt: new Date(T0).toISOString(),
      },
      { state: 'success', nextAttemptMs: null },
    );
    assert.equal(late, false);
    const done = (await b.webhookQueue.deliveries()).find((d) => d.id === pending.id)!;
    assert.deepEqual([done.state, done.attempts, done.leaseNode], ['success', 1, null]);
  }),
);

testOnTwoNodes('two ticks at the same due time: one claims the run, the other learns which node has it', async (a, b, home, kind) => {
  const dict = (await uploadDictionary(a, { source: readFileSync(fixture('simple-capi.dcf')), label: 'simple' })).name;
  const s = await newSchedule(a, dict);
  const due = s.nextRun!;
  const at = (iso: string) => ({ ...schedulerSettings(home, { env: {} }), now: () => new Date(iso) });
  const turns = await both(
    kind,
    () => claimDueRun(a, s, at(due)),
    () => claimDueRun(b, s, at(due)),
  );
  assert.equal(turns.filter((t) => t.mine).length, 1, JSON.stringify(turns));
  const other = turns.find((t) => !t.mine)!;
  assert.deepEqual(other, { mine: false, node: currentNode().id });
  const moved = (await b.schedules.get(s.id))!.nextRun!;
  assert.equal(moved, new Date(Date.parse(due) + 86_400_000).toISOString(), 'the winner moved next_run to the next occurrence');
  assert.deepEqual(await storeSql(a, 'SELECT duty, slot, node FROM duty_claims ORDER BY slot'), [
    { duty: `schedule:${s.id}`, slot: due, node: currentNode().id },
  ]);
  // A tick that read the schedule before the claim (a slow node) finds the due time taken.
  assert.deepEqual(await claimDueRun(b, s, at(due)), { mine: false, node: currentNode().id });
  // The next due time is claimed once too; the claim of the older one goes.
  const next = (await a.schedules.get(s.id))!;
  const later = await both(
    kind,
    () => claimDueRun(b, next, at(moved)),
    () => claimDueRun(a, next, at(moved)),
  );
  assert.equal(later.filter((t) => t.mine).length, 1);
  assert.deepEqual(
    (await storeSql(a, 'SELECT slot FROM duty_claims')).map((r) => r.slot),
    [moved],
  );
  // A disabled schedule is claimed by nobody.
  await storeSql(a, 'UPDATE schedules SET enabled = 0 WHERE id = ?', [s.id]);
  const off = (await a.schedules.get(s.id))!;
  assert.equal((await claimDueRun(b, { ...off, enabled: true }, at(off.nextRun!))).mine, false);
});

testOnTwoNodes('the log prune runs once per period across nodes', async (a, b, _home, kind) => {
  const logs = logSettingsFrom({ logs: { prune_interval_minutes: 60 } }, {});
  const prune = (store: Store, ms: number) => autoPruneLogs(store, { now: new Date(ms), settings: logs });
  // Two nodes at once, early in the 12:00 period: one prunes.
  const first = await both(
    kind,
    () => prune(a, T0 + 5 * 60_000),
    () => prune(b, T0 + 5 * 60_000),
  );
  assert.equal(first.filter((r) => r !== undefined).length, 1);
  // Later in the same period: nobody.
  assert.equal(await prune(b, T0 + 59 * 60_000 + 59_999), undefined);
  assert.equal(await prune(a, T0 + 30 * 60_000), undefined);
  // The next period: one of them again.
  const second = await both(
    kind,
    () => prune(b, T0 + 60 * 60_000),
    () => prune(a, T0 + 61 * 60_000),
  );
  assert.equal(second.filter((r) => r !== undefined).length, 1);
  assert.deepEqual(await storeSql(a, "SELECT slot FROM duty_claims WHERE duty = 'log-prune'"), [
    { slot: new Date(T0 + 60 * 60_000).toISOString() },
  ]);
});

testOnTwoNodes(
  'a run watched on another host is closed once its time limit, kill grace and the foreign-run grace are past',
  async (a, b, home) => {
    const dict = (await uploadDictionary(a, { source: readFileSync(fixture('simple-capi.dcf')), label: 'simple' })).name;
    const sched = schedulerSettings(home, { env: {} });
    const s = await newSchedule(a, dict);
    const started = new Date(T0).toISOString();
    const runId = await a.schedules.addRun({
      scheduleId: s.id,
      trigger: 'scheduled',
      startedAt: started,
      endedAt: null,
      exitCode: null,
      outcome: 'running',
      logFile: null,
      message: null,
      // A process id that exists here (this one) says nothing about the other host.
      runnerPid: process.pid,
      runnerHost: 'another-host',
    });
    const limitMs = (sched.timeoutSeconds + sched.killGraceSeconds + sched.foreignRunGraceSeconds) * 1000;
    await reapDeadRuns(b, new Date(T0 + limitMs - 1), sched);
    assert.equal((await b.schedules.getRun(runId))!.outcome, 'running', 'its watcher may still be at work');
    await reapDeadRuns(b, new Date(T0 + limitMs), sched);
    const run = (await a.schedules.getRun(runId))!;
    assert.equal(run.outcome, 'failed');
    assert.match(run.message!, /pid \d+ on another-host\) ended before the run finished/);
  },
);
