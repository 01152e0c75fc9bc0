/**
 * A query of one dictionary's cases as the CSPro 8.1 data source asks it
 * (docs/sync.md#the-81-data-source), and its SQL (pure: the repository runs it). Every condition
 * is a parameter, so one statement text serves every value of the same shape.
 */

/** Which cases: all, live ones, live partial saves, live cases whose key another live case shares. */
export type CaseQueryStatus = 'all' | 'notDeletedOnly' | 'partialsOnly' | 'duplicatesOnly';

export type CaseQueryOperator = '=' | 'startswith' | '<' | '<=' | '>=' | '>';

export interface CaseQueryFilter {
  field: 'key' | 'position' | 'uuid';
  operator: CaseQueryOperator;
  value: string | number;
}

export interface CaseQuery {
  status: CaseQueryStatus;
  filter?: CaseQueryFilter;
  /** Key order (ties by position) or position order. */
  order: 'key' | 'position';
  ascending: boolean;
}

export interface CaseQuerySql {
  /** `FROM cases WHERE …`, without ORDER BY. */
  from: string;
  orderBy: string;
  params: Record<string, string | number>;
  /** Statement cache key: the shape of the query, not its values. */
  shape: string;
}

const COLUMN = { key: 'case_key', position: 'position', uuid: 'guid' } as const;

/**
 * The smallest string above every string that starts with `prefix`, in SQLite's BINARY order
 * (UTF-8 bytes, that is code point order), or undefined when there is none (a prefix of only
 * U+10FFFF). So `startswith` is a range of the key index instead of a scan.
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const points = Array.from(prefix);
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      // The surrogate range holds no characters: the next one after U+D7FF is U+E000.
      const next = last === 0xd7ff ? 0xe000 : last + 1;
      return points.join('') + String.fromCodePoint(next);
    }
  }
  return undefined;
}

/** The SQL of a query over the cases of dictionary `@dict` (pure). */
export function caseQuerySql(q: CaseQuery): CaseQuerySql {
  const where = ['dictionary_id = @dict'];
  const params: Record<string, string | number> = {};
  let shape = `${q.status}|${q.order}|${q.ascending}`;
  // As CSPro's own repositories: every status but `all` leaves deleted cases out.
  if (q.status !== 'all') where.push('deleted = 0');
  if (q.status === 'partialsOnly') where.push('partial_save IS NOT NULL');
  if (q.status === 'duplicatesOnly') {
    where.push(
      'case_key IN (SELECT case_key FROM cases WHERE dictionary_id = @dict AND deleted = 0 GROUP BY case_key HAVING count(*) > 1)',
    );
  }
  const f = q.filter;
  if (f) {
    const column = COLUMN[f.field];
    shape += `|${f.field}${f.operator}`;
    if (f.operator === 'startswith') {
      const prefix = String(f.value);
      params.prefix = prefix;
      where.push(`${column} >= @prefix`);
      const upper = prefixUpperBound(prefix);
      if (upper !== undefined) {
        params.upper = upper;
        where.push(`${column} < @upper`);
        shape += '<';
      }
    } else {
      params.value = f.value;
      where.push(`${column} ${f.operator} @value`);
    }
  }
  const dir = q.ascending ? 'ASC' : 'DESC';
  const orderBy = q.order === 'key' ? `ORDER BY case_key ${dir}, position ${dir}` : `ORDER BY position ${dir}`;
  return { from: `FROM cases WHERE ${where.join(' AND ')}`, orderBy, params, shape };
}
