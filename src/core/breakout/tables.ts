import type { Store } from '../../store/open-store.js';
import { AppError } from '../../shared/errors.js';
import { requireDictionary } from '../dictionaries/index.js';
import type { TableInfo, TargetSession } from '../../breakout/dialects/dialect.js';
import type { BreakoutPlan } from '../../breakout/plan-model.js';
import { withTargetSession } from './targets/targets.js';
import type { DictionaryRecord } from '../../store/dictionaries-repo.js';
import { humanSize } from './jobs/durations.js';
import { commonPrefix } from '../../breakout/table-rebuild.js';
import { breakoutInterruption, type BreakoutInterruption } from './interruption.js';
import { reapDeadJobs } from './jobs/follow-up.js';

/** Tables object of docs/http-api.md#breakout-routes, each table marked `stale` when the current plan no longer has it. */
export interface BreakoutTablesReply {
  dictionary: string;
  label: string;
  database: string;
  tables: { name: string; type: 'main' | 'record'; row_count: number; size: string; stale: boolean }[];
  total_size: string;
  created_at: string | null;
  /** The last load into these tables stopped before every case was applied (docs/breakout.md#interrupted-breakouts); null when it finished. */
  interrupted: BreakoutInterruption | null;
}

/**
 * Runs `fn` on the dictionary's target with the tables of this dictionary the target's catalogue
 * holds now: those of the current plan and those the last breakout recorded (under an old prefix
 * after a label change, until the next breakout drops them).
 */
async function withTables<T>(
  store: Store,
  dict: DictionaryRecord,
  fn: (session: TargetSession, plan: BreakoutPlan, tables: TableInfo[], recorded: string[], target: string) => Promise<T>,
  opts: { probe?: boolean } = {},
): Promise<T> {
  return withTargetSession(
    store,
    dict,
    async (session, plan, target) => {
      const state = await store.breakoutState.get(dict.id);
      const recorded = state && state.target === target.identity ? state.tables : [];
      const known = new Set([...plan.tables.map((t) => t.name), ...recorded]);
      const prefixes = [...new Set([`${plan.prefix}_`, commonPrefix(recorded)].filter((p) => p !== ''))];
      const seen = new Map<string, TableInfo>();
      for (const prefix of prefixes) for (const t of await session.listTables(prefix)) if (known.has(t.name)) seen.set(t.name, t);
      const tables = [...seen.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      return fn(session, plan, tables, recorded, target.identity);
    },
    opts,
  );
}

/**
 * The breakout tables of a dictionary that its target holds now, with row counts and sizes (spec
 * 2.6), read from the target's catalogue. The cases table is `main`; record, level, notes and
 * jobs tables are `record`. A table the current plan no longer has (old label or structure,
 * until the next breakout drops it) is `stale` (docs/breakout.md#destructive-changes). A load
 * into them that stopped half way is `interrupted` (docs/breakout.md#interrupted-breakouts).
 */
export async function breakoutTables(store: Store, dictionaryName: string): Promise<BreakoutTablesReply> {
  const dict = await requireDictionary(store, dictionaryName);
  await reapDeadJobs(store);
  return withTables(store, dict, async (session, plan, tables, recorded, target) => {
    if (tables.length === 0) {
      throw new AppError('NOT_FOUND', `dictionary ${dict.name} has no breakout tables in ${session.databaseName()}`, {
        dictionary: dict.name,
        suggestion: `run a breakout of ${dict.name} first`,
      });
    }
    // The cases table comes first in a plan and in what a breakout records.
    const mains = new Set([plan.tables[0]!.name, ...recorded.slice(0, 1)]);
    const planned = new Set(plan.tables.map((t) => t.name));
    const created =
      tables
        .map((t) => t.createdAt)
        .filter((c): c is string => c !== null)
        .sort()[0] ??
      (await store.breakoutState.get(dict.id))?.updatedAt ??
      null;
    return {
      dictionary: dict.name,
      label: dict.label,
      database: session.databaseName(),
      tables: tables.map((t) => ({
        name: t.name,
        type: mains.has(t.name) ? 'main' : 'record',
        row_count: t.rowCount,
        size: humanSize(t.sizeBytes),
        stale: !planned.has(t.name),
      })),
      total_size: humanSize(tables.reduce((n, t) => n + t.sizeBytes, 0)),
      created_at: created,
      interrupted: await breakoutInterruption(store, dict, target),
    };
  });
}

/** Drops the breakout tables of a dictionary (deletion reply of docs/http-api.md#breakout-routes); the next run rebuilds. */
export async function dropBreakoutTables(
  store: Store,
  dictionaryName: string,
): Promise<{ message: string; dictionary: string; deleted_tables: string[]; freed_space: string }> {
  const dict = await requireDictionary(store, dictionaryName);
  // Looked at first without changing anything: with no tables there is nothing to open for
  // writing (a SQLite target file that was never made is not made just to drop nothing).
  const present = await withTables(store, dict, async (_session, _plan, tables) => tables.length, { probe: true }).catch((err: unknown) => {
    // The folder of a SQLite target file does not exist: it holds no tables.
    if (err instanceof AppError && err.code === 'TARGET_FILE_DIR_MISSING') return 0;
    throw err;
  });
  if (present === 0) {
    await store.breakoutState.clear(dict.id);
    return { message: `${dict.name} had no breakout tables`, dictionary: dict.name, deleted_tables: [], freed_space: humanSize(0) };
  }
  return withTables(store, dict, async (session, _plan, tables) => {
    // Stale tables under an old prefix go too: they belong to this dictionary.
    const dropped = await session.dropTables(tables.map((t) => t.name));
    await store.breakoutState.clear(dict.id);
    const freed = tables.filter((t) => dropped.includes(t.name)).reduce((n, t) => n + t.sizeBytes, 0);
    return {
      message: dropped.length ? `Dropped ${dropped.length} breakout tables of ${dict.name}` : `${dict.name} had no breakout tables`,
      dictionary: dict.name,
      deleted_tables: dropped,
      freed_space: humanSize(freed),
    };
  });
}
