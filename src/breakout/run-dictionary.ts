/**
 * Breaks out one dictionary into its target: prepares the tables (full rebuild, or incremental
 * with structure-change detection), then streams pages of cases through the flattener and the
 * dialect's bulk path on `threads` parallel sessions.
 *
 * Exactness after a crash: every page is one target transaction (its cases' old rows deleted and
 * new rows loaded together), and the store cursor advances only over the contiguous prefix of
 * committed pages. A rerun resumes from the cursor with delete-then-insert, so a page committed
 * just before a crash is applied again without duplicates.
 *
 * After a power cut too: the cursor is saved in groups (cursor-saver.ts), each after the target
 * was made durable up to the pages it covers (`TargetSession.makeDurable`), so it can lag behind
 * what the target holds but never lead it (docs/durability.md#breakout-targets).
 */
import type { Store } from '../store/open-store.js';
import type { DictionaryRecord } from '../store/dictionaries-repo.js';
import type { ChangedCase } from '../store/cases-repo.js';
import type { BreakoutCursor } from '../store/breakout-state-repo.js';
import type { JobMode } from '../store/jobs-repo.js';
import { AppError } from '../shared/errors.js';
import { planBreakout } from './plan.js';
import { createEmittingFlattener, createFlattener, type FlattenWarning, type RowSink } from './flatten.js';
import { flattenInput } from './flatten-input.js';
import { isLabelTable, type BreakoutPlan, type Row, type TablePlan } from './plan-model.js';
import type { Dialect, TargetConfig, TargetSession } from './dialects/dialect.js';
import { connectUnlessStopped } from './connect-unless-stopped.js';
import { CursorSaver, type CursorSaving } from './cursor-saver.js';
import { rebuildReason, type RebuildReason } from './table-rebuild.js';
import { syncLabels, type LabelSync } from './label-sync.js';
import { TextChunks } from './dialects/text-chunks.js';

export interface DictionaryRunInput {
  store: Store;
  dict: DictionaryRecord;
  dialect: Dialect;
  target: { config: TargetConfig; identity: string; foreignKeys: boolean };
  jobId: string;
  mode: JobMode;
  overwrite: boolean;
  threads: number;
  /** Largest page, in cases, of one target transaction (see CASES_IN_FLIGHT). */
  pageSize: number;
  shouldStop: () => boolean | Promise<boolean>;
  /** Aborted when the run is stopped (SIGTERM/SIGINT): a connect still pending is abandoned. */
  signal?: AbortSignal;
  onProgress: (processed: number, total: number, warnings: number) => void | Promise<void>;
  onWarning: (w: FlattenWarning) => void | Promise<void>;
  now: () => Date;
  /** How often the store cursor is saved (default CURSOR_SAVING: every 50 pages or 1 s). */
  cursorSaving?: Partial<CursorSaving>;
  /** Told right after tables were dropped or created, with why (the breakout log records it). */
  onTables?: (change: TableChange) => void | Promise<void>;
  /** Told after the label tables were checked, whether they were rewritten or not. */
  onLabels?: (labels: LabelSync) => void | Promise<void>;
}

/** Tables a run dropped (those the target held) and created before loading, and why. */
export interface TableChange {
  dropped: string[];
  created: string[];
  reason: RebuildReason;
  detail: string;
}

export interface DictionaryRunResult {
  processed: number;
  tablesCreated: string[];
  warnings: number;
  stopped: boolean;
}

/** Names of the plan's tables that already exist in the target. */
export async function existingPlanTables(session: TargetSession, plan: BreakoutPlan): Promise<string[]> {
  const names = new Set(plan.tables.map((t) => t.name));
  return (await session.listTables(`${plan.prefix}_`)).map((t) => t.name).filter((n) => names.has(n));
}

/** Runs the breakout of one dictionary (see the module comment). */
export async function runDictionary(input: DictionaryRunInput): Promise<DictionaryRunResult> {
  const { dict, dialect, target, jobId } = input;
  const plan = planBreakout(dict.model, dict.label, { maxIdentifierLength: dialect.capabilities.maxIdentifierLength });
  // A stop while the target is still connecting ends the run at once (as a stop between pages).
  const first = await connectUnlessStopped(dialect, target.config, input.signal);
  if (!first) return { processed: 0, tablesCreated: [], warnings: 0, stopped: true };
  const sessions: TargetSession[] = [first];
  try {
    const main = sessions[0]!;
    const prepared = await prepareTables(input, main, plan);
    // Until the load below has applied every case, reports say the tables hold part of them.
    await input.store.breakoutState.startLoad(dict.id, jobId);
    if (prepared.change) await input.onTables?.(prepared.change);
    await input.onLabels?.(await syncLabels(main, plan, dict.model));
    const writers = Math.min(input.threads, dialect.capabilities.maxParallelWriters);
    for (let i = 1; i < writers; i++) {
      const more = await connectUnlessStopped(dialect, target.config, input.signal);
      if (!more) return { processed: 0, tablesCreated: prepared.created, warnings: 0, stopped: true };
      sessions.push(more);
    }
    const jobsTable = plan.tables.find((t) => t.kind === 'jobs')!;
    const startedTime = input.now().toISOString();
    await failAbandonedJobRows(main, jobsTable, jobId);
    await main.upsertRow(jobsTable, jobsRow(jobsTable, { jobId, startedTime, completedTime: null, processed: 0, status: 'running' }));
    const asText = main.textWriter !== undefined && main.loadText !== undefined;
    const pageSize = pageSizeFor(input.pageSize, sessions.length, asText);
    const result = await loadCases({ ...input, pageSize }, sessions, plan, prepared);
    await main.upsertRow(
      jobsTable,
      jobsRow(jobsTable, {
        jobId,
        startedTime,
        completedTime: result.stopped ? null : input.now().toISOString(),
        processed: result.processed,
        status: result.stopped ? 'cancelled' : 'completed',
      }),
    );
    return { ...result, tablesCreated: prepared.created };
  } finally {
    await Promise.allSettled(sessions.map((s) => s.close()));
  }
}

/**
 * Cases held in memory at once by all workers together: each worker holds the page it loads and
 * the page it prepares, so more threads get smaller pages and memory does not grow with threads
 * (measured in bench/: 1 to 10 threads stay near the same peak). Where pages are held as text
 * (`TargetSession.textWriter`) a case takes less memory than its rows, so twice as many fit in
 * the same peak, and fewer, larger pages cost the target fewer statements and commits
 * (bench/README.md, "Breakout nearer the loaders").
 */
const CASES_IN_FLIGHT = 4000;
const CASES_IN_FLIGHT_AS_TEXT = 8000;
const MIN_PAGE_SIZE = 100;

function pageSizeFor(maxPageSize: number, writers: number, asText: boolean): number {
  const inFlight = asText ? CASES_IN_FLIGHT_AS_TEXT : CASES_IN_FLIGHT;
  return Math.max(Math.min(MIN_PAGE_SIZE, maxPageSize), Math.min(maxPageSize, Math.floor(inFlight / (2 * writers))));
}

interface Prepared {
  /** Tables created by this run (they start empty: no deletes needed). */
  created: string[];
  /** True when every table is new, so pages need no delete before loading. */
  fresh: boolean;
  cursor: BreakoutCursor;
  /** What was dropped and created, when anything was. */
  change?: TableChange;
}

const START: BreakoutCursor = { revision: 0, guid: '' };

/**
 * Creates (or, after a structure change, rebuilds empty) the tables of a dictionary in its target
 * without loading any case, exactly as an incremental run would before its first page: the
 * dictionary-schema webhook. A rebuild resets the cursor, so the next run reloads every case.
 */
export async function prepareDictionaryTables(
  input: Pick<DictionaryRunInput, 'store' | 'dict' | 'dialect' | 'target' | 'jobId' | 'onTables' | 'onLabels'>,
): Promise<{ created: string[]; rebuilt: boolean }> {
  const plan = planBreakout(input.dict.model, input.dict.label, { maxIdentifierLength: input.dialect.capabilities.maxIdentifierLength });
  const session = await input.dialect.connect(input.target.config);
  try {
    const prepared = await prepareTables({ ...input, mode: 'incremental', overwrite: false }, session, plan);
    if (prepared.change) await input.onTables?.(prepared.change);
    await input.onLabels?.(await syncLabels(session, plan, input.dict.model));
    return { created: prepared.created, rebuilt: prepared.fresh };
  } finally {
    await session.close();
  }
}

type PrepareInput = Pick<DictionaryRunInput, 'store' | 'dict' | 'target' | 'jobId' | 'mode' | 'overwrite'>;

async function prepareTables(input: PrepareInput, session: TargetSession, plan: BreakoutPlan): Promise<Prepared> {
  const { store, dict, target, jobId } = input;
  const names = plan.tables.map((t) => t.name);
  const state = await store.breakoutState.get(dict.id);
  const existing = await existingPlanTables(session, plan);
  const create = { foreignKeys: target.foreignKeys, casesTable: plan.tables[0]!.name };
  const rebuild = async (why: { reason: RebuildReason; detail: string }): Promise<Prepared> => {
    const dropped = await session.dropTables([...new Set([...names, ...(state?.target === target.identity ? state.tables : [])])]);
    await session.createTables(plan.tables, create);
    await store.breakoutState.reset(dict.id, target.identity, plan.structureHash, names, jobId);
    return { created: names, fresh: true, cursor: START, change: { dropped, created: names, ...why } };
  };
  // A job taken over from a node that died resumes its own load at the saved cursor, whatever its
  // mode: pages past the cursor may be in the target already, so each is deleted before it is
  // loaded again (docs/breakout.md#leases).
  const resumable = state?.loadingJobId === jobId && state.target === target.identity && state.structureHash === plan.structureHash;
  if (resumable && names.every((n) => existing.includes(n))) return { created: [], fresh: false, cursor: state.cursor };
  if (input.mode === 'full') {
    if (existing.length > 0 && !input.overwrite) {
      throw new AppError('TABLES_ALREADY_EXIST', `breakout tables of ${dict.name} already exist; use overwrite to rebuild them`, {
        dictionary: dict.name,
        existing_tables: existing,
      });
    }
    if (existing.length > 0) return rebuild({ reason: 'overwrite', detail: 'a full breakout with overwrite rebuilds every table' });
  }
  if (!state) return rebuild({ reason: 'first', detail: 'no breakout of this dictionary was recorded' });
  if (state.target !== target.identity)
    return rebuild({ reason: 'target', detail: `the tables were recorded in another target (${state.target})` });
  if (state.structureHash !== plan.structureHash) return rebuild(rebuildReason(state, plan));
  if (input.mode === 'full') return rebuild({ reason: 'missing', detail: 'the tables were dropped outside sds' });
  const missing = names.filter((n) => !existing.includes(n));
  if (missing.length === 0) return { created: [], fresh: false, cursor: state.cursor };
  const labelTables = new Set(plan.tables.filter(isLabelTable).map((t) => t.name));
  if (missing.every((n) => labelTables.has(n))) {
    // Only label tables are missing (dropped by hand, or a target broken out before they
    // existed): they hold no case data, so no case is loaded again; syncLabels fills them.
    await session.createTables(
      plan.tables.filter((t) => missing.includes(t.name)),
      { ...create, ifNotExists: true },
    );
    await store.breakoutState.setTables(dict.id, names);
    const detail = 'the label tables were missing; they are filled from the dictionary, cases stay';
    return { created: missing, fresh: false, cursor: state.cursor, change: { dropped: [], created: missing, reason: 'missing', detail } };
  }
  // Some tables were dropped outside sds: recreate them and replay every case so they fill again.
  await session.createTables(
    plan.tables.filter((t) => missing.includes(t.name)),
    { ...create, ifNotExists: true },
  );
  await store.breakoutState.reset(dict.id, target.identity, plan.structureHash, names, jobId);
  const change: TableChange = {
    dropped: [],
    created: missing,
    reason: 'missing',
    detail: 'tables were dropped outside sds; every case is loaded again',
  };
  return { created: missing, fresh: false, cursor: START, change };
}

interface Page {
  seq: number;
  /** Emptied once flattened: the stored texts need not live while the page loads. */
  cases: ChangedCase[];
  count: number;
  last: BreakoutCursor;
}

/**
 * A page flattened and ready to load: its case ids and each data table's rows, as rows or, where
 * the target's bulk path is one text format, already written in it (`TargetSession.textWriter`).
 */
interface PreparedPage {
  page: Page;
  ids: string[];
  perTable: (Row[] | TextChunks)[];
}

/** Cases flattened between two yields to the event loop while a page is prepared. */
const CASES_PER_SLICE = 200;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function loadCases(
  input: DictionaryRunInput,
  sessions: TargetSession[],
  plan: BreakoutPlan,
  prepared: Prepared,
): Promise<{ processed: number; warnings: number; stopped: boolean }> {
  const { store, dict } = input;
  const flatten = createFlattener(plan, dict.model);
  const upTo = await store.cases.maxRevision(dict.id);
  const activeOnly = prepared.fresh;
  const total = await store.cases.countChanged(dict.id, prepared.cursor, upTo, activeOnly);
  const dataTables = plan.tables.map((t, i) => ({ t, i })).filter(({ t }) => t.kind !== 'jobs' && !isLabelTable(t));
  let readCursor = prepared.cursor;
  let seq = 0;
  let exhausted = false;
  let stopped = false;
  let processed = 0;
  let warnings = 0;
  const cursor = new CursorSaver({
    every: input.cursorSaving,
    now: input.now,
    save: async (c) => {
      await store.breakoutState.advance(dict.id, c, input.jobId);
    },
  });
  await input.onProgress(0, total, 0);

  // Pages are taken one at a time (each take waits for the one before it to end), so two
  // workers never read from the same cursor and never take the same page.
  const readPage = async (): Promise<Page | undefined> => {
    if (exhausted || stopped) return undefined;
    if (await input.shouldStop()) {
      stopped = true;
      return undefined;
    }
    if (exhausted) return undefined;
    const cases = await store.cases.changedPage(dict.id, readCursor, upTo, input.pageSize, activeOnly);
    if (cases.length === 0) {
      exhausted = true;
      return undefined;
    }
    const lastCase = cases[cases.length - 1]!;
    readCursor = { revision: lastCase.revision, guid: lastCase.guid };
    return { seq: seq++, cases, count: cases.length, last: readCursor };
  };
  let taking: Promise<unknown> = Promise.resolve();
  const takePage = (): Promise<Page | undefined> => {
    const page = taking.then(readPage);
    taking = page.catch(() => undefined);
    return page;
  };

  const breakoutTime = input.now().toISOString();
  // Where the target takes text, each row is written out as soon as it is made: no row arrays
  // live until the page is loaded, nor even for a case (bench/README.md, "Breakout nearer the
  // loaders").
  const main = sessions[0]!;
  const rowWriters = main.textWriter && main.loadText ? plan.tables.map((t) => main.textWriter!(t)) : undefined;
  const flattenEach = rowWriters ? createEmittingFlattener(plan, dict.model) : undefined;
  const newPageRows = (): (Row[] | TextChunks)[] => plan.tables.map(() => (rowWriters ? new TextChunks() : []));
  // The page and count of the case being flattened (one at a time: flattening is synchronous).
  let emitInto: (Row[] | TextChunks)[] = [];
  let emitted = 0;
  const emitRow: RowSink = (t, row) => {
    emitted++;
    rowWriters![t]!(row, emitInto[t] as TextChunks);
  };

  /** Flattens a case into `perTable`; returns its warnings. */
  const flattenRows = (c: ChangedCase, perTable: (Row[] | TextChunks)[]): FlattenWarning[] => {
    const flatInput = flattenInput(c, breakoutTime);
    if (flattenEach) {
      emitInto = perTable;
      return flattenEach(flatInput, emitRow);
    }
    const flat = flatten(flatInput);
    for (const { i } of dataTables) {
      const into = perTable[i] as Row[];
      for (const r of flat.rows[i]!) into.push(r);
    }
    return flat.warnings;
  };

  /** Flattens a case into `perTable`; returns the warnings to report (none for most cases). */
  const flattenCase = (c: ChangedCase, perTable: (Row[] | TextChunks)[]): FlattenWarning[] => {
    let caseWarnings: FlattenWarning[];
    emitted = 0;
    try {
      caseWarnings = flattenRows(c, perTable);
    } catch (err) {
      // A case with rows written already cannot be left out of the page: the job fails instead
      // (the flattener throws BRK-003 before a case's first row, so this is never a bad case).
      if (emitted > 0) throw err;
      // BRK-003: a case that cannot be parsed is reported and left out; the job goes on.
      const reason = err instanceof SyntaxError ? 'the stored case data is not valid JSON' : (err as Error).message;
      warnings += 1;
      return [{ case: c.guid, item: '(case)', value: c.caseKey, reason: `BRK-003: ${reason}` }];
    }
    warnings += caseWarnings.length;
    return caseWarnings;
  };

  // Flattening yields to the event loop every few hundred cases, so the target keeps receiving
  // the previous page while the next one is prepared (see `worker`).
  const preparePage = async (): Promise<PreparedPage | undefined> => {
    const page = await takePage();
    if (!page) return undefined;
    const perTable = newPageRows();
    for (let k = 0; k < page.cases.length; k++) {
      if (k > 0 && k % CASES_PER_SLICE === 0) await yieldToEventLoop();
      const c = page.cases[k]!;
      if (c.deleted) continue;
      const caseWarnings = flattenCase(c, perTable);
      for (const w of caseWarnings) await input.onWarning(w);
    }
    const ids = page.cases.map((c) => c.guid);
    page.cases = [];
    return { page, ids, perTable };
  };

  const applyPage = async (session: TargetSession, p: PreparedPage): Promise<void> => {
    await session.transaction(async () => {
      if (!prepared.fresh) for (const { t } of dataTables) await session.deleteCaseRows(t, p.ids);
      for (const { t, i } of dataTables) {
        const rows = p.perTable[i]!;
        if (rows instanceof TextChunks) {
          if (rows.rows > 0) await session.loadText!(t, rows);
        } else if (rows.length > 0) await session.bulkLoad(t, rows);
      }
    });
  };

  const markCommitted = async (page: Page): Promise<void> => {
    cursor.pageCommitted(page.seq, page.last);
    processed += page.count;
    await input.onProgress(Math.min(processed, total), total, warnings);
  };

  // Each worker keeps one page of lookahead: the next page is flattened while the current one
  // loads, so CPU work here overlaps the target's own work even with one thread. A save of the
  // cursor runs on the worker's own session, idle between its pages.
  const worker = async (session: TargetSession): Promise<void> => {
    let next = preparePage();
    // A failed load or save must not leave the lookahead's rejection unhandled.
    next.catch(() => undefined);
    for (let current = await next; current; current = await next) {
      const loading = applyPage(session, current);
      next = preparePage();
      next.catch(() => undefined);
      await loading;
      await markCommitted(current.page);
      if (cursor.due()) await cursor.save(() => session.makeDurable());
    }
  };
  // The first failure stops the others from taking new pages; its error is the job's error.
  const results = await Promise.allSettled(
    sessions.map((s) =>
      worker(s).catch((err: unknown) => {
        exhausted = true;
        throw err;
      }),
    ),
  );
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) {
    // The pages committed before the failure need not be loaded again; the original error is
    // the one worth reporting if this save fails too.
    await cursor.save(() => main.makeDurable()).catch(() => undefined);
    throw failure.reason;
  }
  // At the end of the run and on stop: cover every committed page. A fresh load reads active
  // cases only, so its last page stops at the last active case; cases deleted after it have no
  // rows anywhere, and the next incremental run must not count them: its cursor goes past them.
  const end = activeOnly && !stopped ? await store.cases.lastChanged(dict.id, upTo) : undefined;
  await cursor.save(() => main.makeDurable(), end);
  if (!stopped) await store.breakoutState.finishLoad(dict.id, input.jobId);
  return { processed, warnings, stopped };
}

/**
 * A job killed outright (SIGKILL, power loss) could not write its final row, so the target's
 * jobs table would say `running` forever. Only one job runs per dictionary at a time, so any
 * other `running` row seen when a job starts belongs to a dead job: it is marked failed.
 */
async function failAbandonedJobRows(session: TargetSession, table: TablePlan, jobId: string): Promise<void> {
  const col = (name: string) => table.columns.findIndex((c) => c.name === name);
  const running = await session.readRows(table, { where: { status: 'running' } });
  for (const row of running) {
    if (row[col('job_id')] === jobId) continue;
    const fixed = [...row];
    fixed[col('status')] = 'failed';
    await session.upsertRow(table, fixed);
  }
}

function jobsRow(
  table: TablePlan,
  v: { jobId: string; startedTime: string; completedTime: string | null; processed: number; status: string },
): Row {
  const byName: Record<string, Row[number]> = {
    job_id: v.jobId,
    started_time: v.startedTime,
    completed_time: v.completedTime,
    cases_processed: v.processed,
    status: v.status,
  };
  return table.columns.map((c) => byName[c.name] ?? null);
}
