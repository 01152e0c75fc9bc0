/**
 * SQL Server session: one tedious connection; bulk loads stream an async iterable of rows into
 * `execBulkLoad` (tedious' own advice to keep memory low; mssql's Table buffers every row).
 * TLS: `encrypt` and `trustServerCertificate` through tls.ts (default: encrypted, certificate checked).
 */
import type { Connection, ConnectionConfiguration, TYPES as TypesMap } from 'tedious';
import type { DataType } from 'tedious/lib/data-type.js';
import type { CellValue, ColumnType, Row, TablePlan } from '../../plan-model.js';
import type { Dialect, RowSource, TargetConfig, TargetSession } from '../dialect.js';
import { cjsExports, loadDriver } from '../driver-loader.js';
import { BaseSession, type CatalogTable } from '../session-base.js';
import { resolveTarget, type ResolvedTarget } from '../target-config.js';
import { quoteIdent } from './ddl.js';
import { bulkColumns, bulkRowEncoder, paramValue, type TdsParam, type TdsTypeSpec } from './encode.js';
import { connectError, queryError } from './errors.js';
import { tdsTlsOptions } from './tls.js';
import { readTlsFiles } from '../tls.js';
import { dropForeignKeySql, FOREIGN_KEYS_SQL, LIST_TABLES_SQL, style, VERSION_SQL, lastCompletedJobSql } from './queries.js';

type Tedious = { Connection: typeof Connection; Request: typeof import('tedious').Request; TYPES: typeof TypesMap };

function isTdsParam(v: unknown): v is TdsParam {
  return typeof v === 'object' && v !== null && 'type' in v && 'value' in v && !(v instanceof Date);
}

/** Parameters the base session passes untyped (case ids, counts): infer a type. */
function inferParam(v: unknown): TdsParam {
  if (isTdsParam(v)) return v;
  if (typeof v === 'boolean') return { type: 'Bit', value: v };
  if (typeof v === 'number')
    return Number.isInteger(v) ? { type: 'BigInt', value: v } : { type: 'Decimal', precision: 38, scale: 10, value: v };
  return { type: 'NVarChar', length: 4000, value: v ?? null };
}

async function* mapRows(rows: RowSource, encode: (row: Row) => unknown[], counter: { rows: number }): AsyncGenerator<unknown[]> {
  for await (const row of rows) {
    counter.rows++;
    yield encode(row);
  }
}

class SqlServerSession extends BaseSession {
  constructor(
    dialect: Dialect,
    target: ResolvedTarget,
    private readonly conn: Connection,
    private readonly tds: Tedious,
  ) {
    super(dialect, target, style);
  }

  private typeOf(spec: TdsTypeSpec): DataType {
    return this.tds.TYPES[spec.type] as DataType;
  }

  private exec(sql: string, params: unknown[] = []): Promise<{ rowCount: number; rows: unknown[][] }> {
    return new Promise((resolvePromise, reject) => {
      const rows: unknown[][] = [];
      const request = new this.tds.Request(sql, (err, rowCount) => {
        if (err) reject(queryError(err, this.target));
        else resolvePromise({ rowCount: rowCount ?? 0, rows });
      });
      request.on('row', (columns: { value: unknown }[]) => rows.push(columns.map((c) => c.value)));
      params.forEach((p, i) => {
        const { value, ...spec } = inferParam(p);
        request.addParameter(`p${i}`, this.typeOf(spec), value, { length: spec.length, precision: spec.precision, scale: spec.scale });
      });
      // execSqlBatch for parameterless statements: no sp_executesql scope around DDL and SET.
      if (params.length) this.conn.execSql(request);
      else this.conn.execSqlBatch(request);
    });
  }

  protected async run(sql: string, params?: unknown[]): Promise<number> {
    return (await this.exec(sql, params)).rowCount;
  }

  protected async rows(sql: string, params?: unknown[]): Promise<unknown[][]> {
    return (await this.exec(sql, params)).rows;
  }

  protected async catalogTables(): Promise<CatalogTable[]> {
    return (await this.rows(LIST_TABLES_SQL)).map(([name, size, created]) => ({
      name: String(name),
      sizeBytes: Number(size),
      createdAt: created instanceof Date ? created.toISOString() : null,
    }));
  }

  protected lastCompletedJobSql(jobsTable: string): string {
    return lastCompletedJobSql(jobsTable);
  }

  protected bindValue(type: ColumnType, value: CellValue): unknown {
    return paramValue(type, value);
  }

  private callback(fn: (cb: (err: Error | null | undefined) => void) => void): Promise<void> {
    return new Promise((res, rej) => fn((err) => (err ? rej(queryError(err, this.target)) : res())));
  }

  protected override begin(): Promise<void> {
    return this.callback((cb) => this.conn.beginTransaction(cb));
  }

  protected override commit(): Promise<void> {
    return this.callback((cb) => this.conn.commitTransaction(cb));
  }

  protected override rollback(): Promise<void> {
    return this.callback((cb) => this.conn.rollbackTransaction(cb));
  }

  async serverVersion(): Promise<string> {
    return String((await this.rows(VERSION_SQL))[0]?.[0] ?? '');
  }

  /** tedious does not expose the negotiated version: encrypted (unknown version) unless TLS is off. */
  async tlsVersion(): Promise<string | null | undefined> {
    return this.target.tls.mode === 'disable' ? null : undefined;
  }

  protected override async dropExisting(names: string[]): Promise<void> {
    const dropping = new Set(names);
    await this.transaction(async () => {
      // SQL Server refuses to drop a table a foreign key references: drop those keys first.
      for (const [fk, child, parent] of await this.rows(FOREIGN_KEYS_SQL)) {
        if (dropping.has(String(parent))) await this.run(dropForeignKeySql(String(child), String(fk)));
      }
      await this.run(`DROP TABLE IF EXISTS ${names.map(quoteIdent).join(', ')}`);
    });
  }

  async bulkLoad(table: TablePlan, rows: RowSource): Promise<number> {
    const counter = { rows: 0 };
    const loaded = await new Promise<number>((res, rej) => {
      // keepNulls: NULL stays NULL (no column defaults); checkConstraints: foreign keys are enforced.
      const bulk = this.conn.newBulkLoad(quoteIdent(table.name), { keepNulls: true, checkConstraints: true }, (err, rowCount) =>
        err ? rej(queryError(err, this.target)) : res(rowCount ?? 0),
      );
      for (const c of bulkColumns(table)) {
        bulk.addColumn(c.name, this.typeOf(c), { nullable: c.nullable, length: c.length, precision: c.precision, scale: c.scale });
      }
      this.conn.execBulkLoad(bulk, mapRows(rows, bulkRowEncoder(table), counter));
    });
    return loaded || counter.rows;
  }

  async close(): Promise<void> {
    await new Promise<void>((res) => {
      this.conn.once('end', () => res());
      this.conn.close();
    });
  }
}

/** Opens a SQL Server session (tedious is loaded here, on first use). */
export async function connect(dialect: Dialect, config: TargetConfig): Promise<TargetSession> {
  const target = resolveTarget(config, dialect, { user: 'sa', database: 'master' });
  const tds = cjsExports(await loadDriver('tedious', () => import('tedious'))) as unknown as Tedious;
  const tlsOptions = tdsTlsOptions(target.tls, readTlsFiles(target.tls));
  const options: ConnectionConfiguration = {
    server: target.host,
    authentication: { type: 'default', options: { userName: target.user, password: target.password } },
    options: {
      port: target.port,
      database: target.database,
      ...tlsOptions,
      useUTC: true,
      connectTimeout: config.connectTimeoutMs ?? 15_000,
      appName: 'sds',
    },
  };
  const conn = new tds.Connection(options);
  let serverErrorNumber: number | undefined;
  // Login errors carry only the message; the error token before them has the number.
  const onErrorMessage = (token: { number: number }): void => {
    serverErrorNumber = token.number;
  };
  conn.on('errorMessage', onErrorMessage);
  conn.on('error', () => undefined); // a lost connection is reported by the next request
  try {
    await new Promise<void>((res, rej) => conn.connect((err) => (err ? rej(err) : res())));
  } catch (err) {
    if (serverErrorNumber !== undefined && err && typeof err === 'object') Object.assign(err, { number: serverErrorNumber });
    conn.close();
    throw connectError(err, target);
  }
  conn.off('errorMessage', onErrorMessage);
  return new SqlServerSession(dialect, target, conn, tds);
}
