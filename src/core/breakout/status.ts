import type { Store } from '../../store/open-store.js';
import type { DictionaryRow } from '../../store/dictionaries-repo.js';
import { answersTo } from '../dictionaries/index.js';
import type { TargetConfig } from '../../breakout/dialects/dialect.js';
import { getDialect } from '../../breakout/dialects/index.js';
import { planBreakout } from '../../breakout/plan.js';
import { AppError } from '../../shared/errors.js';
import {
  effectiveTarget,
  effectiveTargetWithoutSecrets,
  isBreakoutConfigured,
  targetPlace,
  type EffectiveTarget,
} from './targets/targets.js';
import { breakoutInterruption, type BreakoutInterruption } from './interruption.js';
import { reapDeadJobs } from './jobs/follow-up.js';

const DEFAULT_STATUS_LIMIT = 20;
const MAX_STATUS_LIMIT = 100;
const MAX_STATUS_DICTIONARIES = 100;
/** Default connect timeout of each target read by the status endpoint (SDS_STATUS_CONNECT_TIMEOUT_MS). */
export const DEFAULT_STATUS_CONNECT_TIMEOUT_MS = 3000;

/**
 * The connect timeout of the status reads: the flag, else SDS_STATUS_CONNECT_TIMEOUT_MS, else
 * 3000 ms. A value that is not a whole number of milliseconds is refused, never replaced by the
 * default: `invalid_parameter` for the flag, CONFIG_INVALID for the variable.
 */
export function statusConnectTimeout(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): number {
  const [value, from] =
    flag !== undefined ? [flag, 'the connect timeout'] : [env.SDS_STATUS_CONNECT_TIMEOUT_MS, 'SDS_STATUS_CONNECT_TIMEOUT_MS'];
  if (value === undefined || value === '') return DEFAULT_STATUS_CONNECT_TIMEOUT_MS;
  const ms = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (Number.isInteger(ms) && ms >= 1) return ms;
  const message = `${from} must be a whole number of milliseconds ≥ 1; got "${value}"`;
  throw flag !== undefined
    ? new AppError('invalid_parameter', message, { field: 'connect-timeout', settings: ['connect-timeout'] })
    : new AppError('CONFIG_INVALID', message, { field: from });
}

/** Breakout status item of docs/status-and-incoming-webhooks.md#status-webhook-get-breakout-status-webhookphp. */
export interface StatusItem {
  dictionary: string;
  label: string;
  breakout_configured: boolean;
  target_host: string | null;
  target_schema: string | null;
  db_type: TargetConfig['type'] | null;
  cron_enabled: boolean;
  cron_expression: string | null;
  last_run: string | null;
  next_run: string | null;
  last_exit_code: number | null;
  total_cases: number;
  processed_cases: number | null;
  cases_pending: number | null;
  completion_rate: number | null;
  is_up_to_date: boolean | null;
  last_processed_time: string | null;
  /** Ours, from the store: the last load into the tables stopped half way (docs/breakout.md#interrupted-breakouts); else null. */
  breakout_interrupted: BreakoutInterruption | null;
}

/** Success envelope of docs/status-and-incoming-webhooks.md#status-webhook-get-breakout-status-webhookphp. */
export interface StatusReply {
  success: true;
  data: StatusItem[];
  error: null;
  meta: { total: number; page: number; pages: number; limit: number };
}

/** Filters as they arrive: query-string values (HTTP) or option values (CLI). */
export interface StatusQuery {
  dictionary?: string;
  dictionaries?: string;
  cron_enabled?: string | boolean;
  breakout_configured?: string | boolean;
  page?: string | number;
  limit?: string | number;
}

export interface StatusOptions {
  /** Connect timeout of each target (default 3 s); its connection and reads together get twice that. */
  connectTimeoutMs?: number;
  /** Where target passwords are read from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

interface Filters {
  names: Set<string> | null;
  cronEnabled: boolean | null;
  configured: boolean | null;
  page: number;
  limit: number;
}

const bad = (field: string, message: string): AppError => new AppError('invalid_parameter', message, { field });

function flag(value: string | boolean | undefined, field: string): boolean | null {
  if (value === undefined) return null;
  if (value === true || value === 'true' || value === '1') return true;
  if (value === false || value === 'false' || value === '0') return false;
  throw bad(field, `${field} must be true, false, 1 or 0; got "${String(value)}"`);
}

function whole(value: string | number | undefined, field: string, dflt: number, max: number): number {
  if (value === undefined) return dflt;
  const n = typeof value === 'number' ? value : /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw bad(field, `${field} must be a whole number from 1 to ${max}; got "${String(value)}"`);
  }
  return n;
}

/**
 * Checks the filters of
 * docs/status-and-incoming-webhooks.md#status-webhook-get-breakout-status-webhookphp; anything not
 * exactly valid is `invalid_parameter` naming the parameter.
 */
function parseStatusQuery(q: StatusQuery): Filters {
  if (q.dictionary !== undefined && q.dictionaries !== undefined) {
    throw bad('dictionary', 'give either dictionary or dictionaries, not both');
  }
  let names: Set<string> | null = null;
  if (q.dictionary !== undefined) {
    if (q.dictionary.trim() === '') throw bad('dictionary', 'dictionary must not be empty');
    names = new Set([q.dictionary.trim()]);
  } else if (q.dictionaries !== undefined) {
    const list = q.dictionaries
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (list.length === 0) throw bad('dictionaries', 'dictionaries must name at least one dictionary (comma-separated)');
    if (list.length > MAX_STATUS_DICTIONARIES) {
      throw bad('dictionaries', `dictionaries may name at most ${MAX_STATUS_DICTIONARIES} dictionaries; got ${list.length}`);
    }
    names = new Set(list);
  }
  return {
    names,
    cronEnabled: flag(q.cron_enabled, 'cron_enabled'),
    configured: flag(q.breakout_configured, 'breakout_configured'),
    page: whole(q.page, 'page', 1, Number.MAX_SAFE_INTEGER),
    limit: whole(q.limit, 'limit', DEFAULT_STATUS_LIMIT, MAX_STATUS_LIMIT),
  };
}

/**
 * A stored ISO 8601 UTC time in the status webhook's form `YYYY-MM-DD HH:MM:SS` (spec
 * conventions). Always UTC for now: when SDS_TIMEZONE (the scheduler's setting) exists, this is
 * the one place that converts to it.
 */
function statusTime(iso: string | null | undefined): string | null {
  if (!iso) return null;
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return null;
  return d.toISOString().slice(0, 19).replace('T', ' ');
}

interface Row {
  dict: DictionaryRow;
  item: StatusItem;
  /** The target to read, with secrets; null when it cannot be built (its password variable unset). */
  config: TargetConfig | null;
}

async function describe(store: Store, dict: DictionaryRow, env: NodeJS.ProcessEnv): Promise<Row> {
  let shown: EffectiveTarget | null;
  try {
    shown = await effectiveTargetWithoutSecrets(store, dict);
  } catch {
    shown = null; // an invalid BREAKOUT_DB_TYPE: shown as not configured, never a failed page
  }
  let config: TargetConfig | null;
  try {
    config = (await effectiveTarget(store, dict, env)).config;
  } catch {
    config = null;
  }
  const configured = await isBreakoutConfigured(store, dict);
  const place = configured && shown ? targetPlace(shown.config) : { host: null, schema: null };
  const schedule = await store.schedules.forDictionary(dict.id);
  const totalCases = await store.cases.countActive(dict.id);
  const interrupted = await breakoutInterruption(store, dict);
  return {
    dict,
    config: configured ? config : null,
    item: {
      dictionary: dict.name,
      label: dict.label,
      breakout_configured: configured,
      target_host: place.host,
      target_schema: place.schema,
      db_type: configured && shown ? shown.config.type : null,
      cron_enabled: schedule?.enabled ?? false,
      cron_expression: schedule?.cronExpression ?? null,
      last_run: statusTime(schedule?.lastRun),
      next_run: statusTime(schedule?.nextRun),
      last_exit_code: schedule?.lastExitCode ?? null,
      total_cases: totalCases,
      processed_cases: null,
      cases_pending: null,
      completion_rate: null,
      is_up_to_date: null,
      last_processed_time: null,
      breakout_interrupted: interrupted,
    },
  };
}

/**
 * Soft-deleted cases the breakout has not applied yet: deleted after its cursor, so their rows
 * may still be in the target. Zero when the dictionary was never broken out.
 */
async function pendingDeletions(store: Store, dictionaryId: number): Promise<number> {
  const state = await store.breakoutState.get(dictionaryId);
  if (!state) return 0;
  const upTo = await store.cases.maxRevision(dictionaryId);
  return (
    (await store.cases.countChanged(dictionaryId, state.cursor, upTo, false)) -
    (await store.cases.countChanged(dictionaryId, state.cursor, upTo, true))
  );
}

/**
 * Fills the target fields of an item from what the target holds (formulas of
 * docs/status-and-incoming-webhooks.md#status-webhook-get-breakout-status-webhookphp) and the
 * deletions still to apply (docs/status-and-incoming-webhooks.md): a deletion is pending work, so
 * `cases_pending` counts the cases missing from the target plus the deletions not yet applied
 * (at least the rows the target holds beyond the active cases), the rate is the share of that
 * work done (never above 100), and the dictionary is up to date only when nothing is pending.
 */
function fillProgress(item: StatusItem, processed: number, lastCompleted: string | null, deletionsPending: number): void {
  const total = item.total_cases;
  const missing = Math.max(0, total - processed);
  const deletions = Math.max(deletionsPending, processed - total, 0);
  const pending = missing + deletions;
  const work = total + deletions;
  item.processed_cases = processed;
  item.cases_pending = pending;
  item.completion_rate = work > 0 ? Math.min(100, Math.max(0, Math.round(((work - pending) / work) * 10000) / 100)) : 100;
  item.is_up_to_date = pending === 0;
  item.last_processed_time = statusTime(lastCompleted);
}

/** Resolves to `undefined` when `work` has not settled within `ms` (the work goes on, unobserved). */
function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/**
 * Reads one target for the rows that share it: one connection, then each dictionary's cases
 * count and last completed job. A target that cannot be reached (or does not answer within the
 * deadline) leaves those rows' target fields null; so does a failed read of one dictionary.
 */
async function readTarget(store: Store, config: TargetConfig, rows: Row[], connectTimeoutMs: number): Promise<void> {
  const dialect = getDialect(config.type);
  const work = (async () => {
    const session = await dialect.connect({ ...config, connectTimeoutMs, existingOnly: true });
    try {
      for (const row of rows) {
        const dict = await store.dictionaries.findWithModel(row.dict.name);
        if (!dict) continue;
        const plan = planBreakout(dict.model, dict.label, { maxIdentifierLength: dialect.capabilities.maxIdentifierLength });
        const cases = plan.tables.find((t) => t.kind === 'main')!.name;
        const jobs = plan.tables.find((t) => t.kind === 'jobs')!.name;
        try {
          const p = await session.breakoutProgress(cases, jobs);
          fillProgress(row.item, p.cases, p.lastCompleted, await pendingDeletions(store, row.dict.id));
        } catch {
          // this dictionary's fields stay null; the others of the target are still read
        }
      }
    } finally {
      await session.close();
    }
  })();
  work.catch(() => undefined); // a late failure after the deadline must not be unhandled
  try {
    await within(work, 2 * connectTimeoutMs);
  } catch {
    // unreachable target: the rows keep their null fields
    // (docs/status-and-incoming-webhooks.md#status-webhook-get-breakout-status-webhookphp)
  }
}

/**
 * The breakout status of dictionaries
 * (docs/status-and-incoming-webhooks.md#status-webhook-get-breakout-status-webhookphp): the status
 * webhook and `sds status`.
 * Filters and paging are checked first (`invalid_parameter`); the page is ordered by dictionary
 * name. Each target of the page is read once at request time, all targets at the same time, each
 * within a short deadline, so a dead target costs one timeout and never stalls the page.
 */
export async function breakoutStatus(store: Store, query: StatusQuery, opts: StatusOptions = {}): Promise<StatusReply> {
  const f = parseStatusQuery(query);
  const env = opts.env ?? process.env;
  const connectTimeoutMs = opts.connectTimeoutMs ?? DEFAULT_STATUS_CONNECT_TIMEOUT_MS;
  // A job whose process died is failed before any interruption is read (a killed load shows as one).
  await reapDeadJobs(store);
  const dicts = (await store.dictionaries.list()).filter((d) => f.names === null || [...f.names].some((n) => answersTo(d, n)));
  const matching: DictionaryRow[] = [];
  for (const d of dicts) {
    if (f.cronEnabled !== null && ((await store.schedules.forDictionary(d.id))?.enabled ?? false) !== f.cronEnabled) continue;
    if (f.configured !== null && (await isBreakoutConfigured(store, d)) !== f.configured) continue;
    matching.push(d);
  }
  const total = matching.length;
  const rows: Row[] = [];
  for (const d of matching.slice((f.page - 1) * f.limit, f.page * f.limit)) rows.push(await describe(store, d, env));
  const byTarget = new Map<string, { config: TargetConfig; rows: Row[] }>();
  for (const row of rows) {
    if (!row.config) continue;
    const key = JSON.stringify(row.config);
    const group = byTarget.get(key) ?? { config: row.config, rows: [] };
    group.rows.push(row);
    byTarget.set(key, group);
  }
  await Promise.all([...byTarget.values()].map((g) => readTarget(store, g.config, g.rows, connectTimeoutMs)));
  return {
    success: true,
    data: rows.map((r) => r.item),
    error: null,
    meta: { total, page: f.page, pages: Math.ceil(total / f.limit), limit: f.limit },
  };
}
