import type { Store } from '../../store/open-store.js';
import { AppError } from '../../shared/errors.js';
import { requireDictionary } from '../dictionaries.js';
import type { TableInfo, TargetSession } from '../../breakout/dialects/dialect.js';
import type { BreakoutPlan } from '../../breakout/plan-model.js';
import { withTargetSession } from './targets.js';
import type { DictionaryRecord } from '../../store/dictionaries-repo.js';
import { humanSize } from './durations.js';

/** Tables object of spec 2.6. */
export interface BreakoutTablesReply {
  dictionary: string;
  label: string;
  database: string;
  tables: { name: string; type: 'main' | 'record'; row_count: number; size: string }[];
  total_size: string;
  created_at: string | null;
}

/** Runs `fn` on the dictionary's target with the tables this dictionary's breakout wrote there. */
async function withTables<T>(store: Store, dict: DictionaryRecord, fn: (session: TargetSession, plan: BreakoutPlan, tables: TableInfo[]) => Promise<T>): Promise<T> {
  return withTargetSession(store, dict, async (session, plan) => {
    const known = new Set([...plan.tables.map((t) => t.name), ...(store.breakoutState.get(dict.id)?.tables ?? [])]);
    const tables = (await session.listTables(`${plan.prefix}_`)).filter((t) => known.has(t.name));
    return fn(session, plan, tables);
  });
}

/**
 * The breakout tables of a dictionary in its target with row counts and sizes (spec 2.6). The
 * cases table is `main`; record, level, notes and jobs tables are `record`.
 */
export async function breakoutTables(store: Store, dictionaryName: string): Promise<BreakoutTablesReply> {
  const dict = requireDictionary(store, dictionaryName);
  return withTables(store, dict, async (session, plan, tables) => {
    if (tables.length === 0) {
      throw new AppError('NOT_FOUND', `dictionary ${dict.name} has no breakout tables in ${session.databaseName()}`, {
        dictionary: dict.name,
        suggestion: `run a breakout first: sds breakout start ${dict.name} (POST /api/breakout/start)`,
      });
    }
    const mainName = plan.tables.find((t) => t.kind === 'main')!.name;
    const created = tables.map((t) => t.createdAt).filter((c): c is string => c !== null).sort()[0] ?? store.breakoutState.get(dict.id)?.updatedAt ?? null;
    return {
      dictionary: dict.name,
      label: dict.label,
      database: session.databaseName(),
      tables: tables.map((t) => ({ name: t.name, type: t.name === mainName ? 'main' : 'record', row_count: t.rowCount, size: humanSize(t.sizeBytes) })),
      total_size: humanSize(tables.reduce((n, t) => n + t.sizeBytes, 0)),
      created_at: created,
    };
  });
}

/** Drops the breakout tables of a dictionary (deletion reply of spec 2.6); the next run rebuilds. */
export async function dropBreakoutTables(
  store: Store,
  dictionaryName: string,
): Promise<{ message: string; dictionary: string; deleted_tables: string[]; freed_space: string }> {
  const dict = requireDictionary(store, dictionaryName);
  return withTables(store, dict, async (session, _plan, tables) => {
    const dropped = await session.dropTables(tables.map((t) => t.name));
    store.breakoutState.clear(dict.id);
    const freed = tables.filter((t) => dropped.includes(t.name)).reduce((n, t) => n + t.sizeBytes, 0);
    return {
      message: dropped.length ? `Dropped ${dropped.length} breakout tables of ${dict.name}` : `${dict.name} had no breakout tables`,
      dictionary: dict.name,
      deleted_tables: dropped,
      freed_space: humanSize(freed),
    };
  });
}
