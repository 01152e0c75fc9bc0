import type { Store } from '../../store/open-store.js';
import type { StoreScope } from '../../store/store-contract.js';
import type { DictionaryRow } from '../../store/dictionaries-repo.js';
import type { ScheduleRow, ScheduleRunRow } from '../../store/schedules-repo.js';
import { AppError } from '../../shared/errors.js';
import { checkCron, DEFAULT_CRON, nextOccurrence } from '../../scheduler/cron.js';
import { requireDictionaryRow } from '../dictionaries/index.js';
import { isBreakoutConfigured } from '../breakout/index.js';
import type { SchedulerSettings } from './settings.js';

/** A schedule as the CLI (`--json`) and the HTTP routes show it: the fields of docs/scheduler.md#commands. */
export interface ScheduleItem {
  id: number;
  dictionary_id: number;
  dictionary: string;
  label: string;
  enabled: boolean;
  cron_expression: string;
  last_run: string | null;
  next_run: string | null;
  last_exit_code: number | null;
  last_log_file: string | null;
  modified_time: string;
  created_time: string;
}

/** A dictionary that has a breakout target and no schedule yet, so it can be scheduled. */
interface SchedulableDictionary {
  id: number;
  name: string;
  label: string;
}

/** The list reply: the zone cron expressions are read in, the schedules, and what can still be scheduled. */
export interface ScheduleList {
  timezone: string;
  schedules: ScheduleItem[];
  unscheduled_dictionaries: SchedulableDictionary[];
}

/** One run of the history, newest first in lists. */
interface ScheduleRunItem {
  id: number;
  trigger: ScheduleRunRow['trigger'];
  outcome: ScheduleRunRow['outcome'];
  started_at: string;
  ended_at: string | null;
  exit_code: number | null;
  log_file: string | null;
  message: string | null;
}

export interface ScheduleRuns {
  schedule_id: number;
  dictionary: string;
  total: number;
  runs: ScheduleRunItem[];
}

/** How a schedule is named: its id (HTTP) or its dictionary's name (CLI). */
export type ScheduleRef = { id: number } | { dictionary: string };

async function scheduleItem(store: StoreScope, s: ScheduleRow): Promise<ScheduleItem> {
  const label = (await store.dictionaries.find(s.dictionary))?.label ?? s.dictionary;
  return {
    id: s.id,
    dictionary_id: s.dictionaryId,
    dictionary: s.dictionary,
    label,
    enabled: s.enabled,
    cron_expression: s.cronExpression,
    last_run: s.lastRun,
    next_run: s.nextRun,
    last_exit_code: s.lastExitCode,
    last_log_file: s.lastLogFile,
    modified_time: s.modifiedTime,
    created_time: s.createdTime,
  };
}

function runItem(r: ScheduleRunRow): ScheduleRunItem {
  return {
    id: r.id,
    trigger: r.trigger,
    outcome: r.outcome,
    started_at: r.startedAt,
    ended_at: r.endedAt,
    exit_code: r.exitCode,
    log_file: r.logFile,
    message: r.message,
  };
}

async function findDictionary(store: Store, name: string): Promise<DictionaryRow> {
  return requireDictionaryRow(store, name);
}

/** The schedule named by `ref`, or SCHEDULE_NOT_FOUND (DICTIONARY_NOT_FOUND for an unknown name). */
export async function requireSchedule(store: Store, ref: ScheduleRef): Promise<ScheduleRow> {
  if ('id' in ref) {
    const s = await store.schedules.get(ref.id);
    if (!s) throw new AppError('SCHEDULE_NOT_FOUND', `schedule ${ref.id} not found`, { schedule_id: ref.id });
    return s;
  }
  const dict = await findDictionary(store, ref.dictionary);
  const s = await store.schedules.forDictionary(dict.id);
  if (!s) throw new AppError('SCHEDULE_NOT_FOUND', `dictionary ${dict.name} has no schedule`, { dictionary: dict.name });
  return s;
}

/** next_run of a schedule: the next occurrence after `now` while enabled, else none (docs/scheduler.md#next_run). */
export function nextRunOf(enabled: boolean, cron: string, now: Date, zone: string): string | null {
  return enabled ? nextOccurrence(cron, now, zone).toISOString() : null;
}

function parseEnabled(value: unknown, field: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new AppError('USAGE', `${field} must be true or false; got ${JSON.stringify(value)}`, { field });
  return value;
}

/** The schedules (by dictionary name) and the dictionaries with a target that have none yet. */
export async function listSchedules(store: Store, settings: Pick<SchedulerSettings, 'zone'>): Promise<ScheduleList> {
  const schedules = await store.schedules.list();
  const scheduled = new Set(schedules.map((s) => s.dictionaryId));
  const unscheduled: SchedulableDictionary[] = [];
  for (const d of await store.dictionaries.list()) {
    if (!scheduled.has(d.id) && (await isBreakoutConfigured(store, d))) unscheduled.push({ id: d.id, name: d.name, label: d.label });
  }
  const items: ScheduleItem[] = [];
  for (const s of schedules) items.push(await scheduleItem(store, s));
  return { timezone: settings.zone, schedules: items, unscheduled_dictionaries: unscheduled };
}

/**
 * Adds the schedule of a dictionary (one per dictionary, docs/scheduler.md#commands): disabled and `0 2 * * *`
 * unless told otherwise. Only a dictionary whose breakout is configured (isBreakoutConfigured,
 * the status webhook's definition) can be scheduled.
 */
export async function addSchedule(
  store: Store,
  input: { dictionary: string; cron_expression?: unknown; enabled?: unknown },
  settings: Pick<SchedulerSettings, 'zone' | 'now'>,
): Promise<ScheduleItem> {
  const dict = await findDictionary(store, input.dictionary);
  const cron = input.cron_expression === undefined ? DEFAULT_CRON : checkCron(input.cron_expression);
  const enabled = parseEnabled(input.enabled, 'enabled') ?? false;
  if (!(await isBreakoutConfigured(store, dict))) {
    throw new AppError('TARGET_NOT_CONFIGURED', `dictionary ${dict.name} has no breakout target; set one first`, {
      dictionary: dict.name,
    });
  }
  if (await store.schedules.forDictionary(dict.id)) {
    throw new AppError('SCHEDULE_EXISTS', `dictionary ${dict.name} already has a schedule (one per dictionary); change it instead`, {
      dictionary: dict.name,
    });
  }
  const now = settings.now();
  try {
    const row = await store.schedules.insert(
      { dictionaryId: dict.id, enabled, cronExpression: cron, nextRun: nextRunOf(enabled, cron, now, settings.zone) },
      now.toISOString(),
    );
    return await scheduleItem(store, row);
  } catch (err) {
    // Two adds racing: the UNIQUE dictionary_id lets one win.
    if (/UNIQUE/.test((err as Error).message))
      throw new AppError('SCHEDULE_EXISTS', `dictionary ${dict.name} already has a schedule`, { dictionary: dict.name });
    throw err;
  }
}

/**
 * Changes a schedule's cron expression and/or enabled state. next_run is recomputed from now
 * when the schedule stays or becomes enabled, and cleared when it is disabled.
 */
export async function updateSchedule(
  store: Store,
  ref: ScheduleRef,
  input: { cron_expression?: unknown; enabled?: unknown },
  settings: Pick<SchedulerSettings, 'zone' | 'now'>,
): Promise<ScheduleItem> {
  const found = await requireSchedule(store, ref);
  return changeSchedule(
    store,
    found.id,
    (s) => ({
      cron: input.cron_expression === undefined ? s.cronExpression : checkCron(input.cron_expression),
      enabled: parseEnabled(input.enabled, 'enabled') ?? s.enabled,
    }),
    settings,
  );
}

/**
 * Reads the schedule of that id and writes the change `change` makes of it, in one transaction:
 * what is kept of it (the cron expression, the enabled state) is what it holds at the write, not
 * what a request racing this one replaced meanwhile.
 */
async function changeSchedule(
  store: Store,
  id: number,
  change: (s: ScheduleRow) => { cron: string; enabled: boolean },
  settings: Pick<SchedulerSettings, 'zone' | 'now'>,
): Promise<ScheduleItem> {
  return store.transaction(async (tx) => {
    const s = await tx.schedules.get(id);
    if (!s) throw new AppError('SCHEDULE_NOT_FOUND', `schedule ${id} not found`, { schedule_id: id });
    const { cron, enabled } = change(s);
    const now = settings.now();
    const row = await tx.schedules.update(
      s.id,
      { enabled, cronExpression: cron, nextRun: nextRunOf(enabled, cron, now, settings.zone) },
      now.toISOString(),
    );
    return scheduleItem(tx, row!);
  });
}

/** Switches a schedule on (next_run computed) or off (next_run cleared; the schedule is kept). */
export async function toggleSchedule(
  store: Store,
  ref: ScheduleRef,
  settings: Pick<SchedulerSettings, 'zone' | 'now'>,
): Promise<ScheduleItem> {
  const found = await requireSchedule(store, ref);
  return changeSchedule(store, found.id, (s) => ({ cron: s.cronExpression, enabled: !s.enabled }), settings);
}

/** Deletes a schedule and its run history; the run log files stay (docs/logs.md#job-and-run-log-files). */
export async function removeSchedule(store: Store, ref: ScheduleRef): Promise<{ message: string; id: number; dictionary: string }> {
  const s = await requireSchedule(store, ref);
  await store.schedules.remove(s.id);
  return { message: `schedule of ${s.dictionary} deleted`, id: s.id, dictionary: s.dictionary };
}

const DEFAULT_RUNS_LIMIT = 20;
const MAX_RUNS_LIMIT = 1000;

/** The run history of a schedule, newest first. */
export async function scheduleRuns(store: Store, ref: ScheduleRef, opts: { limit?: unknown } = {}): Promise<ScheduleRuns> {
  const s = await requireSchedule(store, ref);
  const limit = opts.limit === undefined ? DEFAULT_RUNS_LIMIT : Number(opts.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_RUNS_LIMIT) {
    throw new AppError('USAGE', `limit must be a whole number from 1 to ${MAX_RUNS_LIMIT}; got "${String(opts.limit)}"`, {
      field: 'limit',
    });
  }
  return {
    schedule_id: s.id,
    dictionary: s.dictionary,
    total: await store.schedules.countRuns(s.id),
    runs: (await store.schedules.runs(s.id, limit)).map(runItem),
  };
}
