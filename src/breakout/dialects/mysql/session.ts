/**
 * MySQL/MariaDB session: one mysql2 connection; bulk loads stream through
 * `LOAD DATA LOCAL INFILE` with a per-query infileStreamFactory
 * (https://sidorares.github.io/node-mysql2/docs/documentation/extras#load-data-infile), and fall
 * back to multi-row INSERTs when the server refuses LOCAL INFILE.
 */
import type { Connection, ResultSetHeader } from 'mysql2/promise';
import type { CellValue, ColumnType, Row, TablePlan } from '../../plan-model.js';
import type { Dialect, RowSource, TargetConfig, TargetSession } from '../dialect.js';
import { cjsExports, loadDriver } from '../driver-loader.js';
import { insertSql } from '../queries-common.js';
import { canonicalCell } from '../read-values.js';
import { encodedStream } from '../row-stream.js';
import { BaseSession, type CatalogTable } from '../session-base.js';
import { resolveTarget, type ResolvedTarget } from '../target-config.js';
import { loadDataLineEncoder, loadDataStatement, paramValue } from './encode.js';
import { connectError, isLocalInfileRefused, queryError } from './errors.js';
import {
  LIST_TABLES_SQL,
  SESSION_SETUP_SQL,
  SHOW_WARNINGS_SQL,
  style,
  TLS_VERSION_SQL,
  VERSION_SQL,
  lastCompletedJobSql,
} from './queries.js';
import { identityCheckHost, mysqlSsl } from './tls.js';
import { readTlsFiles } from '../tls.js';
import { isIP } from 'node:net';
import { checkServerIdentity, type TLSSocket } from 'node:tls';

export interface MysqlSessionOptions {
  /** false: never try LOAD DATA LOCAL (the client does not even offer it); use INSERTs. */
  localInfile?: boolean;
  /**
   * Whether the client announces the LOCAL INFILE capability (default: localInfile). Announcing
   * none while still trying LOAD DATA makes any server refuse it (error 1148), which is how the
   * fallback is tested against a server that has local_infile ON.
   */
  announceLocalFiles?: boolean;
}

class MysqlSession extends BaseSession {
  constructor(
    dialect: Dialect,
    target: ResolvedTarget,
    private readonly conn: Connection,
    private localInfile: boolean,
  ) {
    super(dialect, target, style);
  }

  private async query<T>(sql: string, params?: unknown[]): Promise<T> {
    try {
      const [result] = await this.conn.query({ sql, values: params, rowsAsArray: true });
      return result as T;
    } catch (err) {
      throw queryError(err, this.target);
    }
  }

  protected async run(sql: string, params?: unknown[]): Promise<number> {
    return (await this.query<ResultSetHeader>(sql, params)).affectedRows ?? 0;
  }

  protected async rows(sql: string, params?: unknown[]): Promise<unknown[][]> {
    return this.query<unknown[][]>(sql, params);
  }

  protected async catalogTables(): Promise<CatalogTable[]> {
    return (await this.rows(LIST_TABLES_SQL)).map(([name, size, created]) => ({
      name: String(name),
      sizeBytes: Number(size),
      createdAt: created ? (canonicalCell({ kind: 'timestamp' }, created) as string) : null,
    }));
  }

  protected lastCompletedJobSql(jobsTable: string): string {
    return lastCompletedJobSql(jobsTable);
  }

  protected bindValue(type: ColumnType, value: CellValue): unknown {
    return paramValue(type, value);
  }

  protected override readonly beginSql = 'START TRANSACTION';

  async serverVersion(): Promise<string> {
    return String((await this.rows(VERSION_SQL))[0]?.[0] ?? '');
  }

  async tlsVersion(): Promise<string | null> {
    const v = (await this.rows(TLS_VERSION_SQL))[0]?.[1];
    return v ? String(v) : null;
  }

  protected override async dropExisting(names: string[]): Promise<void> {
    // Foreign keys between the dropped tables must not dictate an order.
    await this.run('SET FOREIGN_KEY_CHECKS = 0');
    try {
      await this.run(`DROP TABLE IF EXISTS ${names.map(style.quote).join(', ')}`);
    } finally {
      await this.run('SET FOREIGN_KEY_CHECKS = 1');
    }
  }

  async bulkLoad(table: TablePlan, rows: RowSource): Promise<number> {
    if (this.localInfile) {
      const counter = { rows: 0 };
      let started = false;
      try {
        const [res] = await this.conn.query<ResultSetHeader>({
          sql: loadDataStatement(table),
          infileStreamFactory: () => {
            started = true;
            return encodedStream(rows, loadDataLineEncoder(table), counter);
          },
        });
        await this.checkLoad(table, res, counter.rows);
        return counter.rows;
      } catch (err) {
        if (started || !isLocalInfileRefused(err)) throw queryError(err, this.target);
        this.localInfile = false; // refused before a row was read: the same source feeds the fallback
      }
    }
    return this.insertBatches(table, rows);
  }

  /**
   * LOAD DATA LOCAL turns duplicate keys and bad values into warnings and goes on
   * (https://dev.mysql.com/doc/refman/8.0/en/load-data.html#load-data-error-handling); a breakout
   * must not lose rows silently, so any warning fails the load (the caller's transaction rolls back).
   */
  private async checkLoad(table: TablePlan, res: ResultSetHeader, sent: number): Promise<void> {
    if (res.warningStatus === 0 && res.affectedRows === sent) return;
    const warnings = await this.rows(SHOW_WARNINGS_SQL).catch(() => []);
    const text = warnings.map((w) => String(w[2])).join('; ');
    throw new Error(
      `LOAD DATA into ${table.name}: ${sent} rows sent, ${res.affectedRows} loaded, ${res.warningStatus} warnings${text ? `: ${text}` : ''}`,
    );
  }

  private async insertBatches(table: TablePlan, rows: RowSource): Promise<number> {
    const cols = table.columns;
    const perBatch = Math.max(1, Math.floor(this.dialect.capabilities.maxBindParams / cols.length));
    let batch: unknown[] = [];
    let inBatch = 0;
    let total = 0;
    const flush = async (): Promise<void> => {
      if (inBatch === 0) return;
      total += await this.run(insertSql(style, table, inBatch), batch);
      batch = [];
      inBatch = 0;
    };
    for await (const row of rows as AsyncIterable<Row>) {
      for (let i = 0; i < cols.length; i++) batch.push(paramValue(cols[i]!.type, row[i] ?? null));
      if (++inBatch === perBatch) await flush();
    }
    await flush();
    return total;
  }

  async close(): Promise<void> {
    await this.conn.end().catch(() => undefined);
  }
}

/** Opens a MySQL/MariaDB session (mysql2 is loaded here, on first use). */
export async function connect(dialect: Dialect, config: TargetConfig, opts: MysqlSessionOptions = {}): Promise<TargetSession> {
  const target = resolveTarget(config, dialect, { user: 'root', database: '' });
  const mysql = cjsExports(await loadDriver('mysql2', () => import('mysql2/promise')));
  // `?local_infile=0` in the URL is the operator's way to forbid LOCAL INFILE for a target.
  const localInfile = opts.localInfile ?? !['0', 'false', 'off'].includes((target.params.local_infile ?? '').toLowerCase());
  const hostIsIp = isIP(target.host) !== 0;
  const ssl = mysqlSsl(target.tls, readTlsFiles(target.tls), hostIsIp);
  let conn: Connection;
  try {
    conn = await mysql.createConnection({
      host: target.host,
      port: target.port,
      user: target.user,
      password: target.password,
      database: target.database || undefined,
      charset: 'utf8mb4_unicode_ci',
      dateStrings: true, // DATETIME values are UTC wall times; no local-time Date conversion
      supportBigNumbers: true,
      bigNumberStrings: true,
      connectTimeout: config.connectTimeoutMs ?? 15_000,
      flags: (opts.announceLocalFiles ?? localInfile) ? ['LOCAL_FILES'] : ['-LOCAL_FILES'],
      ...(ssl ? { ssl } : {}),
    });
  } catch (err) {
    throw connectError(err, target);
  }
  conn.on('error', () => undefined); // reported by the next query instead of crashing the process
  const checkHost = identityCheckHost(target.tls, target.host, hostIsIp);
  if (checkHost) {
    // mysql2 checks identities of host names only (docs/breakout.md, "TLS"): an IP address is checked here.
    const socket = (conn as unknown as { connection: { stream: TLSSocket } }).connection.stream;
    const failure = checkServerIdentity(checkHost, socket.getPeerCertificate());
    if (failure) {
      await conn.end().catch(() => undefined);
      throw connectError(failure, target);
    }
  }
  const session = new MysqlSession(dialect, target, conn, localInfile);
  for (const sql of SESSION_SETUP_SQL) await conn.query(sql);
  return session;
}
