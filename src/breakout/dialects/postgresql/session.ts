/**
 * PostgreSQL session: one pg Client (not a Pool: COPY needs a dedicated connection, see
 * https://github.com/brianc/node-pg-copy-streams#readme) and COPY FROM STDIN for bulk loads.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Client } from 'pg';
import type { CellValue, ColumnType, TablePlan } from '../../plan-model.js';
import type { Dialect, RowSource, TargetConfig, TargetSession } from '../dialect.js';
import { cjsExports, loadDriver } from '../driver-loader.js';
import { writtenStream, type RowWriter, type TextChunks } from '../text-chunks.js';
import { BaseSession, type CatalogTable } from '../session-base.js';
import { resolveTarget, type ResolvedTarget } from '../target-config.js';
import { copyRowWriter, copyStatement, paramValue } from './encode.js';
import { classifyFallback, connectError, queryError } from './errors.js';
import { deleteCaseRowsSql, LIST_TABLES_SQL, style, TLS_VERSION_SQL, VERSION_SQL, lastCompletedJobSql } from './queries.js';
import { attempts, pgSsl } from './tls.js';
import { readTlsFiles } from '../tls.js';

type CopyFrom = (sql: string) => NodeJS.WritableStream & { rowCount: number };

class PostgresSession extends BaseSession {
  constructor(
    dialect: Dialect,
    target: ResolvedTarget,
    private readonly client: Client,
    private readonly copyFrom: CopyFrom,
  ) {
    super(dialect, target, style);
  }

  private async query(sql: string, params?: unknown[]): Promise<{ rows: unknown[][]; rowCount: number | null }> {
    try {
      return await this.client.query({ text: sql, values: params, rowMode: 'array' });
    } catch (err) {
      throw queryError(err, this.target);
    }
  }

  protected async run(sql: string, params?: unknown[]): Promise<number> {
    return (await this.query(sql, params)).rowCount ?? 0;
  }

  protected async rows(sql: string, params?: unknown[]): Promise<unknown[][]> {
    return (await this.query(sql, params)).rows;
  }

  protected async catalogTables(): Promise<CatalogTable[]> {
    // PostgreSQL does not record when a table was created.
    return (await this.rows(LIST_TABLES_SQL)).map(([name, size]) => ({ name: String(name), sizeBytes: Number(size), createdAt: null }));
  }

  protected lastCompletedJobSql(jobsTable: string): string {
    return lastCompletedJobSql(jobsTable);
  }

  protected bindValue(type: ColumnType, value: CellValue): unknown {
    return paramValue(type, value);
  }

  async serverVersion(): Promise<string> {
    return String((await this.rows(VERSION_SQL))[0]?.[0] ?? '');
  }

  async tlsVersion(): Promise<string | null> {
    const v = (await this.rows(TLS_VERSION_SQL))[0]?.[0];
    return v ? String(v) : null;
  }

  protected override async dropExisting(names: string[]): Promise<void> {
    // One statement drops foreign keys between the listed tables too, whatever their order.
    await this.run(`DROP TABLE IF EXISTS ${names.map(style.quote).join(', ')}`);
  }

  override async deleteCaseRows(table: TablePlan, caseIds: string[]): Promise<number> {
    if (caseIds.length === 0) return 0;
    return this.run(deleteCaseRowsSql(table.name), [caseIds]);
  }

  async bulkLoad(table: TablePlan, rows: RowSource): Promise<number> {
    const counter = { rows: 0 };
    await this.copy(table, writtenStream(rows, copyRowWriter(table), counter));
    return counter.rows;
  }

  textWriter(table: TablePlan): RowWriter {
    return copyRowWriter(table);
  }

  async loadText(table: TablePlan, text: TextChunks): Promise<number> {
    const rows = text.rows;
    await this.copy(table, Readable.from(text.finish(), { objectMode: false }));
    return rows;
  }

  private async copy(table: TablePlan, source: Readable): Promise<void> {
    const copy = this.client.query(this.copyFrom(copyStatement(table)) as never) as unknown as NodeJS.WritableStream;
    try {
      // A failing source destroys the COPY stream, which sends CopyFail: nothing of the batch stays.
      await pipeline(source, copy);
    } catch (err) {
      throw queryError(err, this.target);
    }
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}

/** Opens a PostgreSQL session (pg and pg-copy-streams are loaded here, on first use). */
export async function connect(dialect: Dialect, config: TargetConfig): Promise<TargetSession> {
  const target = resolveTarget(config, dialect, { user: 'postgres', database: 'postgres' });
  const pg = cjsExports(await loadDriver('pg', () => import('pg')));
  const copyStreams = await loadDriver('pg-copy-streams', () => import('pg-copy-streams'));
  const copyFrom = (copyStreams.default?.from ?? copyStreams.from) as unknown as CopyFrom;
  const files = readTlsFiles(target.tls);
  const open = async (attempt: 'tls' | 'plain'): Promise<Client> => {
    const client = new pg.Client({
      host: target.host,
      port: target.port,
      database: target.database,
      user: target.user,
      password: target.password,
      application_name: 'sds',
      connectionTimeoutMillis: config.connectTimeoutMs ?? 15_000,
      ssl: pgSsl(target.tls, files, attempt),
    });
    // A connection lost while idle must not crash the process; the next query reports it.
    client.on('error', () => undefined);
    try {
      await client.connect();
      return client;
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
  };
  // prefer and allow make a second attempt the other way, as libpq does; the first error is reported when both fail.
  const tries = attempts(target.tls.mode);
  let first: unknown;
  let client: Client | undefined;
  for (const attempt of tries) {
    try {
      client = await open(attempt);
      break;
    } catch (err) {
      first ??= err;
      if (!classifyFallback(err)) break;
    }
  }
  if (!client) throw connectError(first, target);
  return new PostgresSession(dialect, target, client, copyFrom);
}
