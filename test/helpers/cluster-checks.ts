/**
 * What must hold after a node was lost (docs/production.md#losing-a-node), each check a name, a
 * verdict and the evidence, so the test asserts them and the soak prints them: every acknowledged
 * case stored and downloaded exactly once, the job finished by another node with its target's rows
 * exact, each due schedule run once, every webhook event delivered (repeats only with the same
 * `webhook-id`), `/readyz` of the live nodes green.
 */
import type { JobRow } from '../../src/store/jobs-repo.js';
import { openQuery } from './breakout-helpers.js';
import { callerAt } from './cluster-client.js';
import { JOB_DICT, type KillScenario } from './cluster-scenario.js';
import { SyncDevice } from './sync-client.js';
import { storeSql } from './temp-home.js';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

const check = (name: string, ok: boolean, detail: string): Check => ({ name, ok, detail });

/** Up to `n` items of a list, for a message. */
const some = (xs: unknown[], n = 5): string => JSON.stringify(xs.slice(0, n)) + (xs.length > n ? ` … (${xs.length})` : '');

/** Every acknowledged case is in the store once, the store has no case nobody was told of, and a download lists each once. */
export async function checkCases(s: KillScenario, acked: string[]): Promise<Check[]> {
  const rows = await s.cluster.withStore((st) =>
    storeSql(
      st,
      'SELECT c.guid, COUNT(*) AS n FROM cases c JOIN dictionaries d ON d.id = c.dictionary_id WHERE d.name = ? GROUP BY c.guid',
      [s.dict],
    ),
  );
  const stored = new Map(rows.map((r) => [String(r.guid), Number(r.n)]));
  const ackedSet = new Set(acked);
  const missing = acked.filter((id) => !stored.has(id));
  const twice = [...stored].filter(([, n]) => n !== 1).map(([id]) => id);
  const unknown = [...stored.keys()].filter((id) => !ackedSet.has(id));
  const { cases } = await new SyncDevice(callerAt(s.cluster.url), 'final-reader').get(s.dict, 500);
  const seen = new Map<string, number>();
  for (const c of cases) seen.set(c.id, (seen.get(c.id) ?? 0) + 1);
  const downMissing = acked.filter((id) => seen.get(id) !== 1);
  return [
    check(
      'every acknowledged case stored exactly once',
      acked.length > 0 && ackedSet.size === acked.length && missing.length === 0 && twice.length === 0 && unknown.length === 0,
      `${acked.length} acknowledged (${ackedSet.size} distinct), ${stored.size} stored; missing ${some(missing)}, ` +
        `more than once ${some(twice)}, stored but never acknowledged ${some(unknown)}`,
    ),
    check(
      'a download through the balancer lists each acknowledged case once',
      downMissing.length === 0 && cases.length === stored.size,
      `${cases.length} downloaded; not exactly once: ${some(downMissing)}`,
    ),
  ];
}

/** The job ended `completed` in a process of another node than the one killed, and its target holds every case once. */
export async function checkJob(s: KillScenario, killed: JobRow, final: JobRow, liveNodePids: number[]): Promise<Check[]> {
  const takeover = await s.cluster.withStore((st) =>
    storeSql(st, "SELECT message FROM breakout_log WHERE job_id = ? AND message LIKE '%taken over by node%' ORDER BY id", [final.id]),
  );
  const byNodes = takeover.map((r) => /taken over by node \S+:(\d+):/.exec(String(r.message))?.[1]).map(Number);
  const q = await openQuery(s.target.config);
  let counts: Record<string, number>;
  try {
    counts = {
      cases: await q.num('SELECT COUNT(*) FROM killjob_cases'),
      distinctCases: await q.num('SELECT COUNT(DISTINCT case_id) FROM killjob_cases'),
      housing: await q.num('SELECT COUNT(*) FROM (SELECT DISTINCT case_id, occ FROM killjob_housing) x'),
      housingRows: await q.num('SELECT COUNT(*) FROM killjob_housing'),
      persons: await q.num('SELECT COUNT(*) FROM (SELECT DISTINCT case_id, occ FROM killjob_person) x'),
      personRows: await q.num('SELECT COUNT(*) FROM killjob_person'),
    };
  } finally {
    await q.close();
  }
  const stored = await s.cluster.withStore(async (st) => st.cases.countActive((await st.dictionaries.find(JOB_DICT))!.id));
  return [
    check(
      'the job was finished by another node',
      final.status === 'completed' &&
        final.takeovers >= 1 &&
        final.leaseNode !== killed.leaseNode &&
        byNodes.length >= 1 &&
        byNodes.every((pid) => liveNodePids.includes(pid)),
      `status ${final.status} ${final.error ? JSON.stringify(final.error) : ''}, takeovers ${final.takeovers}, ` +
        `held by ${killed.leaseNode} when killed, ended by ${final.leaseNode}; taken over by node pids ${JSON.stringify(byNodes)} ` +
        `(live nodes ${JSON.stringify(liveNodePids)})`,
    ),
    check(
      "the job's target holds every case once",
      counts.cases === stored &&
        counts.distinctCases === stored &&
        stored === s.jobCases &&
        counts.housing === stored &&
        counts.housingRows === stored &&
        counts.persons === s.jobPersons &&
        counts.personRows === s.jobPersons,
      `store ${stored} cases (${s.jobCases} imported, ${s.jobPersons} persons); target ${JSON.stringify(counts)}`,
    ),
  ];
}

/**
 * The schedule ran exactly `expected` times (one scheduled run per due time, however many ticks
 * found it due), and the latest due time's claim (older ones are deleted as newer ones are
 * claimed) names the process that watched the latest run.
 */
export async function checkSchedule(s: KillScenario, expected: number): Promise<Check> {
  const runs = await s.cluster.withStore((st) =>
    storeSql(st, 'SELECT trigger, outcome, runner_pid FROM schedule_runs WHERE schedule_id = ? ORDER BY id', [s.scheduleId]),
  );
  const claims = await s.cluster.withStore((st) =>
    storeSql(st, 'SELECT slot, node FROM duty_claims WHERE duty = ?', [`schedule:${s.scheduleId}`]),
  );
  const scheduled = runs.filter((r) => r.trigger === 'scheduled');
  const claimer = claims.length === 1 ? /:(\d+):[^:]+$/.exec(String(claims[0]!.node))?.[1] : undefined;
  return check(
    'each due schedule ran once',
    scheduled.length === expected &&
      scheduled.every((r) => r.outcome === 'succeeded') &&
      claimer !== undefined &&
      Number(claimer) === Number(scheduled.at(-1)?.runner_pid),
    `${scheduled.length} scheduled runs (expected ${expected}): ${JSON.stringify(runs)}; claim ${JSON.stringify(claims)}`,
  );
}

/**
 * Every delivery of the store reached the receiver and succeeded; every request received is one
 * of them; an event received more than once came each time with its one `webhook-id`; every
 * acknowledged case had its `case_uploaded`.
 */
export async function checkWebhooks(s: KillScenario, acked: string[]): Promise<Check> {
  const rows = await s.cluster.withStore((st) => storeSql(st, 'SELECT message_id, state, body FROM webhook_deliveries'));
  const byMessage = new Map(rows.map((r) => [String(r.message_id), r]));
  const notSuccess = rows.filter((r) => r.state !== 'success').map((r) => `${String(r.message_id)}: ${String(r.state)}`);
  const received = new Map<string, number>();
  const idsByCase = new Map<string, Set<string>>();
  const strangers: string[] = [];
  for (const r of s.receiver.received) {
    const id = r.headers['webhook-id'] ?? '';
    received.set(id, (received.get(id) ?? 0) + 1);
    if (!byMessage.has(id)) strangers.push(id);
    const caseId = String((r.json as { data?: { case_id?: string } } | undefined)?.data?.case_id);
    if (!idsByCase.has(caseId)) idsByCase.set(caseId, new Set());
    idsByCase.get(caseId)!.add(id);
  }
  const undelivered = [...byMessage.keys()].filter((id) => !received.has(id));
  const twoIds = [...idsByCase].filter(([, ids]) => ids.size !== 1).map(([c]) => c);
  const noEvent = acked.filter((id) => !idsByCase.has(id));
  const repeats = [...received.values()].filter((n) => n > 1).length;
  return check(
    'every webhook event delivered, repeats only with the same webhook-id',
    rows.length === acked.length &&
      notSuccess.length === 0 &&
      undelivered.length === 0 &&
      strangers.length === 0 &&
      twoIds.length === 0 &&
      noEvent.length === 0,
    `${rows.length} deliveries for ${acked.length} acknowledged cases, ${s.receiver.received.length} requests received ` +
      `(${repeats} events more than once); not success ${some(notSuccess)}, never received ${some(undelivered)}, ` +
      `unknown ids ${some(strangers)}, cases with several ids ${some(twoIds)}, cases without an event ${some(noEvent)}`,
  );
}

/** Waits until no delivery is pending and every delivery was received (a dead node's claims expire first). */
export async function deliveriesSettled(s: KillScenario): Promise<boolean> {
  const rows = await s.cluster.withStore((st) => storeSql(st, "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE state = 'pending'"));
  return Number(rows[0]!.n) === 0;
}

/** `/readyz` of every live node answered 200 throughout. */
export function checkReadyz(r: { polls: number; failures: string[] }): Check {
  return check(
    '/readyz of the live nodes green throughout',
    r.polls > 0 && r.failures.length === 0,
    `${r.polls} polls; failures ${some(r.failures, 10)}`,
  );
}
