/**
 * The data source's case queries on the PostgreSQL store (docs/sync.md#the-81-data-source): the
 * same SQL as SQLite's (../case-query-sql.ts: every text column is COLLATE "C", so `startswith`
 * ranges and key order compare byte-wise alike), with PostgreSQL's numbered placeholders for
 * SQLite's named and anonymous ones.
 */
import { caseQuerySql, type CaseQuery } from '../case-query-sql.js';

/** A statement with `$1`, `$2`, … and its values in that order. */
export interface PositionalSql {
  sql: string;
  params: unknown[];
}

/**
 * `sql` with each `@name` of SQLite's named parameters made `$n` (one number per name, however
 * often it appears), and the values of `params` in that order (pure). Throws on a name without a
 * value, as better-sqlite3 does.
 */
function positional(sql: string, params: Readonly<Record<string, unknown>>): PositionalSql {
  const numbers = new Map<string, number>();
  const values: unknown[] = [];
  const text = sql.replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    let n = numbers.get(name);
    if (n === undefined) {
      if (!Object.hasOwn(params, name)) throw new Error(`missing named parameter @${name}`);
      values.push(params[name]);
      n = values.length;
      numbers.set(name, n);
    }
    return `$${n}`;
  });
  return { sql: text, params: values };
}

/** `sql` with its anonymous `?` placeholders made `$1`, `$2`, … in order (pure; no `?` in literals). */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/**
 * The statement `SELECT <columns>` of a case query over the cases of dictionary `dictionaryId`,
 * with its values: all the query selects (a count), or `page.limit` rows from `page.offset` in
 * the query's order.
 */
export function pgCaseQuery(q: CaseQuery, dictionaryId: number, columns: string, page?: { limit: number; offset: number }): PositionalSql {
  const plan = caseQuerySql(q);
  const params = { ...plan.params, dict: dictionaryId, ...page };
  const tail = page ? ` ${plan.orderBy} LIMIT @limit OFFSET @offset` : '';
  return positional(`SELECT ${columns} ${plan.from}${tail}`, params);
}
