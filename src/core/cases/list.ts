import type { LevelObject, SyncCase } from '../../cspro/case/model.js';
import type { Store } from '../../store/open-store.js';
import type { StoreScope } from '../../store/store-contract.js';
import type { StoredCase } from '../../store/cases-repo.js';
import { AppError } from '../../shared/errors.js';
import { requireDictionary } from '../dictionaries/index.js';
import { limitsOf } from '../home/index.js';

/** Case summary (docs/http-api.md#routes). */
interface CaseSummary {
  guid: string;
  case_label: string;
  modified_date: string;
  verified: boolean;
  deleted: boolean;
}

/** Case list envelope (docs/http-api.md#routes). */
export interface CaseList {
  total: number;
  limit: number;
  offset: number;
  data: CaseSummary[];
}

/** Largest page a caller may ask for; the spec leaves the maximum open. */
export const MAX_CASES_LIMIT = 1000;
/** The spec's defaults for the case list (section 8). */
export const DEFAULT_CASES_LIMIT = 100;

/** Checks a limit/offset pair given as text or number; absent ones take the case list defaults. */
export function parsePaging(limit: unknown, offset: unknown, max = MAX_CASES_LIMIT): { limit: number; offset: number } {
  const l = toWhole(limit ?? DEFAULT_CASES_LIMIT, 'limit');
  const o = toWhole(offset ?? 0, 'offset');
  if (l < 1 || l > max) throw new AppError('USAGE', `limit must be from 1 to ${max}, got ${l}`, { field: 'limit' });
  return { limit: l, offset: o };
}

function toWhole(v: unknown, field: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) throw new AppError('USAGE', `${field} must be a whole number ≥ 0, got "${String(v)}"`, { field });
  return n;
}

/**
 * One page of a dictionary's cases (deleted ones included, flagged), ordered by case key: up to
 * `limit`, and no more than fit in the page byte budget (always at least one; docs/limits.md).
 * A page shorter than `limit` with `offset + data.length < total` has more after it. The page
 * and the total are read in one snapshot.
 */
export async function listCases(store: Store, dictionaryName: string, paging: { limit: number; offset: number }): Promise<CaseList> {
  const dict = await requireDictionary(store, dictionaryName);
  const budget = limitsOf(store).pageBytes;
  const [rows, total] = await store.readTransaction(
    async (tx) => [await tx.cases.page(dict.id, paging.limit, paging.offset, budget), await tx.cases.count(dict.id)] as const,
  );
  return {
    total,
    limit: paging.limit,
    offset: paging.offset,
    data: rows.map((c) => ({
      guid: c.guid,
      case_label: c.label || c.caseKey,
      modified_date: c.modifiedAt,
      verified: c.verified,
      deleted: c.deleted,
    })),
  };
}

/** One case in the data-collection client's sync JSON shape, `level-1` as an object (docs/cspro-formats.md#the-case-model). */
export async function getCase(store: StoreScope, dictionaryName: string, guid: string): Promise<SyncCase> {
  const dict = await requireDictionary(store, dictionaryName);
  const c = await store.cases.get(dict.id, guid);
  if (!c) throw new AppError('NOT_FOUND', `case ${guid} not found in dictionary ${dict.name}`, { dictionary: dict.name, case: guid });
  return toSyncCase(c);
}

/**
 * Converts a stored case to the sync JSON shape. Unlike the client, which omits false flags and
 * empty notes, every field is written so scripts can rely on it; `partialSave` only when set.
 */
function toSyncCase(c: StoredCase): SyncCase {
  return {
    id: c.guid,
    caseids: c.caseKey,
    label: c.label,
    deleted: c.deleted,
    verified: c.verified,
    notes: c.notes,
    clock: c.clock,
    ...(c.partialSave ? { partialSave: c.partialSave } : {}),
    ...(c.caseNote !== undefined ? { caseNote: c.caseNote } : {}),
    'level-1': JSON.parse(c.data) as LevelObject,
  };
}
