/**
 * What every TargetSession does the same way, on top of a few primitives each dialect's
 * session.ts supplies (run a statement, fetch array rows, the catalog, the bulk path). Like
 * Kysely's adapter base: dialects override only what differs.
 */
import type { CellValue, ColumnType, Row, TablePlan } from '../plan-model.js';
import type { CreateTableOptions, Dialect, ReadOptions, RowSource, TableInfo, TargetSession } from './dialect.js';
import { canonicalCell, canonicalRow } from './read-values.js';
import {
  chunk,
  countSql,
  deleteAllRowsSql,
  deleteByKeySql,
  deleteCaseRowsSql,
  insertSql,
  selectSql,
  type SqlStyle,
} from './queries-common.js';
import type { ResolvedTarget } from './target-config.js';

/** A table as the catalog describes it, before row counts. */
export interface CatalogTable {
  name: string;
  sizeBytes: number;
  createdAt: string | null;
}

export abstract class BaseSession implements TargetSession {
  private txDepth = 0;

  protected constructor(
    readonly dialect: Dialect,
    protected readonly target: ResolvedTarget,
    protected readonly style: SqlStyle,
  ) {}

  /** Runs one statement; returns the affected row count (0 when the driver does not say). */
  protected abstract run(sql: string, params?: unknown[]): Promise<number>;
  /** Runs a query; returns its rows as arrays in select-list order. */
  protected abstract rows(sql: string, params?: unknown[]): Promise<unknown[][]>;
  /** Every table of the session's schema with its size. */
  protected abstract catalogTables(): Promise<CatalogTable[]>;
  /** Converts a cell to what the driver binds for a column of this type. */
  protected abstract bindValue(type: ColumnType, value: CellValue): unknown;
  /** The dialect's query for the completion time of the newest completed job of a jobs table (queries.ts). */
  protected abstract lastCompletedJobSql(jobsTable: string): string;
  /** The statement that opens a transaction; sessions whose driver has a transaction API override begin/commit/rollback instead. */
  protected readonly beginSql: string = 'BEGIN';

  protected async begin(): Promise<void> {
    await this.run(this.beginSql);
  }

  protected async commit(): Promise<void> {
    await this.run('COMMIT');
  }

  protected async rollback(): Promise<void> {
    await this.run('ROLLBACK');
  }

  abstract serverVersion(): Promise<string>;
  abstract tlsVersion(): Promise<string | null | undefined>;
  abstract bulkLoad(table: TablePlan, rows: RowSource): Promise<number>;
  abstract close(): Promise<void>;

  databaseName(): string {
    return this.target.database;
  }

  /** Whether a transaction is open (bulk paths that batch their own transactions check it). */
  protected get inTransaction(): boolean {
    return this.txDepth > 0;
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    if (this.txDepth > 0) return fn();
    await this.begin();
    this.txDepth = 1;
    try {
      const result = await fn();
      this.txDepth = 0;
      await this.commit();
      return result;
    } catch (err) {
      this.txDepth = 0;
      await this.rollback().catch(() => undefined); // the original error is the one worth reporting
      throw err;
    }
  }

  /** Server databases make a commit durable before it returns (by their default settings): nothing to do. */
  async makeDurable(): Promise<void> {}

  async listTables(prefix: string): Promise<TableInfo[]> {
    const tables = (await this.catalogTables()).filter((t) => t.name.startsWith(prefix));
    tables.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const out: TableInfo[] = [];
    for (const t of tables) out.push({ ...t, rowCount: await this.countRows(t.name) });
    return out;
  }

  async tableExists(name: string): Promise<boolean> {
    return (await this.catalogTables()).some((t) => t.name === name);
  }

  async createTables(tables: TablePlan[], opts: CreateTableOptions = {}): Promise<void> {
    const create = async (): Promise<void> => {
      for (const t of tables) for (const sql of this.dialect.createTableSql(t, opts)) await this.run(sql);
    };
    // Where DDL is transactional, a failure half way leaves no table behind.
    await (this.dialect.capabilities.transactionalDdl ? this.transaction(create) : create());
  }

  async dropTables(names: string[]): Promise<string[]> {
    const existing = new Set((await this.catalogTables()).map((t) => t.name));
    const drop = names.filter((n) => existing.has(n));
    if (drop.length) await this.dropExisting(drop);
    return drop;
  }

  /** Drops existing tables whatever foreign keys link them. Default: referencing tables first is the caller's order. */
  protected async dropExisting(names: string[]): Promise<void> {
    for (const n of names) await this.run(this.dialect.dropTableSql(n));
  }

  async deleteCaseRows(table: TablePlan, caseIds: string[]): Promise<number> {
    let deleted = 0;
    const size = Math.max(1, Math.min(this.dialect.capabilities.maxBindParams, 1000));
    for (const ids of chunk(caseIds, size)) deleted += await this.run(deleteCaseRowsSql(this.style, table.name, ids.length), ids);
    return deleted;
  }

  async deleteAllRows(name: string): Promise<number> {
    // DELETE, not TRUNCATE: TRUNCATE commits on MySQL and cannot run inside a transaction that
    // then reloads the table, and a reader must never see the table empty.
    return this.run(deleteAllRowsSql(this.style, name));
  }

  async upsertRow(table: TablePlan, row: Row): Promise<void> {
    const values = table.columns.map((c, i) => this.bindValue(c.type, row[i] ?? null));
    await this.transaction(async () => {
      if (table.primaryKey.length) {
        const keys = table.primaryKey.map((k) => values[table.columns.findIndex((c) => c.name === k)]);
        await this.run(deleteByKeySql(this.style, table), keys);
      }
      await this.run(insertSql(this.style, table), values);
    });
  }

  async readRows(table: TablePlan, opts: ReadOptions = {}): Promise<Row[]> {
    const { sql, params } = selectSql(this.style, table, opts);
    const bound = Object.keys(opts.where ?? {}).map((k, i) => {
      const col = table.columns.find((c) => c.name === k);
      return col ? this.bindValue(col.type, params[i] as CellValue) : params[i];
    });
    return (await this.rows(sql, bound)).map((r) => canonicalRow(table, r));
  }

  async breakoutProgress(casesTable: string, jobsTable: string): Promise<{ cases: number; lastCompleted: string | null }> {
    const names = new Set((await this.catalogTables()).map((t) => t.name));
    const cases = names.has(casesTable) ? await this.countRows(casesTable) : 0;
    if (!names.has(jobsTable)) return { cases, lastCompleted: null };
    const [row] = await this.rows(this.lastCompletedJobSql(jobsTable));
    const raw = row?.[0];
    return { cases, lastCompleted: raw === null || raw === undefined ? null : (canonicalCell({ kind: 'timestamp' }, raw) as string) };
  }

  async countRows(name: string): Promise<number> {
    const [row] = await this.rows(countSql(this.style, name));
    return Number(row?.[0] ?? 0);
  }
}
