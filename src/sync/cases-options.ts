/**
 * The `x-csw-cases-options` header of the CSPro 8.1 data source (docs/sync.md#the-81-data-source):
 * a JSON object that turns `GET …/cases` into a query, parsed and checked into plain values.
 * Pure. A value the client could not have meant is refused with CASES_OPTIONS_INVALID naming the
 * key; keys this server does not know are ignored, so a later client's additions do not break it.
 */

import { AppError } from '../shared/errors.js';
import { jsonDepthExceeded } from '../shared/json-depth.js';
import { DEFAULT_CASE_LIMITS } from '../cspro/case/case-limits.js';
import type { CaseQuery, CaseQueryFilter, CaseQueryOperator, CaseQueryStatus } from '../store/case-query-sql.js';

/** The header that selects the data source's query form of `GET …/cases`. */
export const CASES_OPTIONS_HEADER = 'x-csw-cases-options';

export type CasesContent = 'cases' | 'identifiers' | 'summaries' | 'count';

export interface CasesOptions {
  content: CasesContent;
  query: CaseQuery;
  /** Cases to skip, in the query's order. */
  offset: number;
  /** At most this many cases; undefined when the client set no limit. Not used by `count`. */
  limit?: number;
  requestMetadata: boolean;
}

const CONTENTS: readonly CasesContent[] = ['cases', 'identifiers', 'summaries', 'count'];
const STATUSES: readonly CaseQueryStatus[] = ['all', 'notDeletedOnly', 'partialsOnly', 'duplicatesOnly'];
const OPERATORS: readonly CaseQueryOperator[] = ['=', 'startswith', '<', '<=', '>=', '>'];
const FIELDS: readonly CaseQueryFilter['field'][] = ['key', 'position', 'uuid'];
const ORDERS = ['key', 'position'] as const;

function invalid(key: string, problem: string): AppError {
  return new AppError('CASES_OPTIONS_INVALID', `header ${CASES_OPTIONS_HEADER}: ${key} ${problem}`, { header: CASES_OPTIONS_HEADER, key });
}

function shown(v: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    // Deeper than the stack allows (a json_depth limit set high): the message names the kind only.
    s = Array.isArray(v) ? '[…]' : '{…}';
  }
  return s.length > 60 ? `${s.slice(0, 60)}…` : s;
}

function oneOf<T extends string>(o: Record<string, unknown>, key: string, path: string, allowed: readonly T[]): T | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    throw invalid(path, `is ${shown(v)}, not one of ${allowed.map((a) => `"${a}"`).join(', ')}`);
  }
  return v as T;
}

function wholeNumber(o: Record<string, unknown>, key: string, min: number): number | undefined {
  const v = o[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) throw invalid(key, `is ${shown(v)}, not a whole number ≥ ${min}`);
  return v;
}

function objectAt(o: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw invalid(key, `is ${shown(v)}, not an object`);
  return v as Record<string, unknown>;
}

function filterOf(o: Record<string, unknown>): CaseQueryFilter | undefined {
  const f = objectAt(o, 'filter');
  if (!f) return undefined;
  const operator = oneOf(f, 'operator', 'filter.operator', OPERATORS);
  if (operator === undefined) throw invalid('filter.operator', 'is missing');
  const field = oneOf(f, 'type', 'filter.type', FIELDS) ?? 'key';
  const value = f.value;
  if (field === 'position') {
    // The client writes positions as JSON numbers; a number in a string is read too.
    const n = typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim()) ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw invalid('filter.value', `is ${shown(value)}, not a whole-number position`);
    if (operator === 'startswith') throw invalid('filter.operator', 'is "startswith", which applies to keys, not positions');
    return { field, operator, value: n };
  }
  if (typeof value !== 'string')
    throw invalid('filter.value', `is ${shown(value)}, not a string ${field === 'key' ? 'case key' : 'case uuid'}`);
  if (field === 'uuid') {
    if (operator !== '=') throw invalid('filter.operator', `is "${operator}"; a uuid filter takes "=" only`);
    // Stored guids are lower case; the client may send either.
    return { field, operator, value: value.toLowerCase() };
  }
  return { field, operator, value };
}

/**
 * Parses the header's JSON text into a query (pure). Nesting deeper than `maxDepth` (the
 * `json_depth` limit of bodies, docs/limits.md) is 400 JSON_TOO_DEEP before anything is parsed.
 */
export function parseCasesOptions(text: string, maxDepth: number = DEFAULT_CASE_LIMITS.jsonDepth): CasesOptions {
  const deep = jsonDepthExceeded(text, maxDepth);
  if (deep >= 0) {
    throw new AppError(
      'JSON_TOO_DEEP',
      `header ${CASES_OPTIONS_HEADER} nests arrays and objects deeper than the limit of ${maxDepth} (at character ${deep}); it was not parsed`,
      { header: CASES_OPTIONS_HEADER, limit: maxDepth, offset: deep },
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new AppError('CASES_OPTIONS_INVALID', `header ${CASES_OPTIONS_HEADER} is not JSON: ${(err as Error).message}`, {
      header: CASES_OPTIONS_HEADER,
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new AppError('CASES_OPTIONS_INVALID', `header ${CASES_OPTIONS_HEADER} is ${shown(parsed)}, not a JSON object`, {
      header: CASES_OPTIONS_HEADER,
    });
  }
  const o = parsed as Record<string, unknown>;
  const content = oneOf(o, 'content', 'content', CONTENTS);
  if (content === undefined) throw invalid('content', `is missing (one of ${CONTENTS.map((c) => `"${c}"`).join(', ')})`);
  // Without a status CSPro's own repositories read live cases only.
  const status = oneOf(o, 'status', 'status', STATUSES) ?? 'notDeletedOnly';
  const sort = objectAt(o, 'sort');
  const sortOrder = sort ? oneOf(sort, 'order', 'sort.order', ORDERS) : undefined;
  const ascending = sort?.ascending;
  if (ascending !== undefined && typeof ascending !== 'boolean')
    throw invalid('sort.ascending', `is ${shown(ascending)}, not true or false`);
  // Single-case lookups send a top-level `order` next to `limit: 1`.
  const topOrder = oneOf(o, 'order', 'order', ORDERS);
  const requestMetadata = o.requestMetadata;
  if (requestMetadata !== undefined && typeof requestMetadata !== 'boolean') {
    throw invalid('requestMetadata', `is ${shown(requestMetadata)}, not true or false`);
  }
  const filter = filterOf(o);
  const limit = wholeNumber(o, 'limit', 0);
  return {
    content,
    // Without an order, position order: CSPro's iterators default to the repository's sequence.
    query: { status, ...(filter ? { filter } : {}), order: sortOrder ?? topOrder ?? 'position', ascending: ascending ?? true },
    offset: wholeNumber(o, 'offset', 0) ?? 0,
    ...(limit !== undefined ? { limit } : {}),
    requestMetadata: requestMetadata ?? false,
  };
}
