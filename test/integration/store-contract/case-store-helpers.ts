/**
 * A helper of the store-contract tests of the case repositories (cases, case queries, binary
 * items, dictionaries): raw SQL on either store, to set up and look at rows of tables that other
 * repositories own.
 */
import type { Store } from '../../../src/store/open-store.js';
import { numbered } from '../../../src/store/postgresql/case-query-sql.js';
import { PostgresStore } from '../../../src/store/postgresql/pg-store.js';
import { sqliteDb } from '../../helpers/temp-home.js';

/** Runs `query` (`?` placeholders) on the database of either store; the rows it returns. */
export async function sql(store: Store, query: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  if (store instanceof PostgresStore) return (await store.pool.query(numbered(query), params)).rows;
  const stmt = sqliteDb(store).prepare(query);
  if (stmt.reader) return stmt.all(...params) as Record<string, unknown>[];
  stmt.run(...params);
  return [];
}
