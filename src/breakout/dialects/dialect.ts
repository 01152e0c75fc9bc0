/**
 * The contract every breakout target implements (docs/architecture.md#the-dialect-contract). Generic breakout code reads
 * `capabilities` and calls `Dialect` / `TargetSession` methods; it never branches on the database
 * type. Each database lives in its own folder with the same files: `ddl.ts` (pure DDL),
 * `queries.ts` (pure DML and catalog SQL), `encode.ts` (pure bulk-load row encoders),
 * `session.ts` (the only code that talks to the server), `errors.ts` (driver error -> AppError)
 * and `index.ts` (the Dialect object).
 */
import type { ColumnType, Row, RowSource, TablePlan } from '../plan-model.js';
import type { TlsMode, TlsSettings } from './tls.js';
import type { RowWriter, TextChunks } from './text-chunks.js';

export type DialectName = 'postgresql' | 'mysql' | 'sqlserver' | 'sqlite';

/** The database-specific path `bulkLoad` uses. */
type BulkPath = 'copy' | 'load-data-local' | 'tds-bulk' | 'prepared-insert';

interface DialectCapabilities {
  /**
   * Longest table or column name the target accepts, in characters. PostgreSQL 63 (NAMEDATALEN-1,
   * longer names are silently truncated), MySQL/MariaDB 64, SQL Server 128. SQLite has no limit;
   * 128 keeps generated names portable (a SQLite target can be re-created on SQL Server) while
   * shortening far fewer names than the client-server limits.
   */
  maxIdentifierLength: number;
  /** Most bind parameters one statement may carry; batch size = floor(maxBindParams / columns). */
  maxBindParams: number;
  bulkPath: BulkPath;
  /** Whether CREATE/DROP TABLE roll back with the transaction (false on MySQL: DDL commits). */
  transactionalDdl: boolean;
  /** Whether `TableInfo.createdAt` can be known (the catalog records table creation time). */
  tableCreatedAt: boolean;
  /** Port used when the configuration gives none (0 for file databases). */
  defaultPort: number;
  /**
   * Sessions that may write at the same time: a breakout's `threads` are capped to it. SQLite
   * takes one writer per file; a second session would only wait for the lock (or time out).
   */
  maxParallelWriters: number;
}

/** What a target URL of this type may be (docs/breakout.md, "Targets"). */
interface TargetUrlRules {
  /** Accepted URL schemes, lower case, without `://`. */
  schemes: readonly string[];
  /** Whether a database name is required (client-server databases). */
  databaseRequired: boolean;
  /** Query parameters honoured besides the TLS ones (e.g. `local_infile`). */
  params: readonly string[];
}

/** How a dialect does TLS (docs/breakout.md, "TLS"). */
export interface DialectTls {
  /** Modes its driver can honour; any other is refused by name, never approximated. */
  modes: readonly TlsMode[];
  /** Mode in force when the target says nothing. */
  defaultMode: TlsMode;
  /** Whether a client certificate and key can be presented. */
  clientCertificate: boolean;
  /** URL query parameters that carry TLS settings for this dialect. */
  params: readonly string[];
  /** Reads the TLS parameters of a URL query (only those of `params`); a bad value is TARGET_TLS_INVALID. */
  fromParams(params: Record<string, string>): Partial<TlsSettings>;
}

/** Where a breakout target is. Explicit fields override the parts of `url`. */
export interface TargetConfig {
  type: DialectName;
  /** e.g. `postgresql://user:pass@host:5432/db`, `mysql://…`, `mssql://…` (or `sqlserver://…`), `sqlite:///abs/file.db`. */
  url?: string;
  host?: string;
  port?: number;
  database?: string;
  user?: string;
  password?: string;
  /** SQLite only: the database file. */
  file?: string;
  /**
   * Longest wait for a connection, handshake and login included (default 15 s). The status
   * endpoint gives each target a few seconds so one dead target cannot stall a page.
   */
  connectTimeoutMs?: number;
  /** Open only an existing database: a SQLite file that is absent is an error, not created (status reads). */
  existingOnly?: boolean;
  /**
   * Change nothing (`target test`): a SQLite file is opened read-only, and one not made yet is
   * not created (its folder must exist). Client-server targets connect as usual.
   */
  probe?: boolean;
  /** TLS settings given as fields (`--tls-*`); they override the URL's TLS parameters. */
  tls?: Partial<TlsSettings>;
}

export interface CreateTableOptions {
  /** Add `FOREIGN KEY (case_id) REFERENCES <casesTable> (case_id) ON DELETE CASCADE` to tables that have `case_id`. */
  foreignKeys?: boolean;
  /** Name of the cases table (required when `foreignKeys` is true). */
  casesTable?: string;
  /** Create only the tables that do not exist yet (incremental runs). */
  ifNotExists?: boolean;
}

export interface TableInfo {
  name: string;
  /** Exact `COUNT(*)`. */
  rowCount: number;
  /** Bytes on disk, table plus indexes, from the catalog (MySQL: InnoDB statistics, approximate). */
  sizeBytes: number;
  /** ISO 8601 UTC when the catalog records it (`capabilities.tableCreatedAt`), else null. */
  createdAt: string | null;
}

export type { RowSource };

export interface ReadOptions {
  /** Equality filters, ANDed. */
  where?: Record<string, string | number | boolean>;
  orderBy?: { column: string; desc?: boolean }[];
  limit?: number;
}

/**
 * One connection to a target. Not safe for concurrent use: run one call at a time (a breakout
 * with N threads opens N sessions). Values read back are canonical: integers as numbers (strings
 * beyond 2^53), decimals as strings with exactly `scale` decimals, guids in lower case,
 * booleans as booleans, timestamps as ISO 8601 UTC strings with milliseconds.
 */
export interface TargetSession {
  readonly dialect: Dialect;
  /** The database (SQLite: the file) the session is connected to. */
  databaseName(): string;
  serverVersion(): Promise<string>;
  /** Tables of the current schema whose name starts with `prefix` (taken literally), sorted by name. */
  listTables(prefix: string): Promise<TableInfo[]>;
  tableExists(name: string): Promise<boolean>;
  /** Creates the tables in the given order (the cases table first when foreign keys are asked). */
  createTables(tables: TablePlan[], opts?: CreateTableOptions): Promise<void>;
  /** Drops those of `names` that exist, whatever foreign keys link them; returns the dropped names. */
  dropTables(names: string[]): Promise<string[]>;
  /** Deletes the rows of the given cases (by `case_id`) from one table; returns the rows deleted. */
  deleteCaseRows(table: TablePlan, caseIds: string[]): Promise<number>;
  /** Deletes every row of one table (the label tables are rewritten whole); returns the rows deleted. */
  deleteAllRows(name: string): Promise<number>;
  /** Streams rows (in `table.columns` order) through the dialect's bulk path; returns the rows loaded. */
  bulkLoad(table: TablePlan, rows: RowSource): Promise<number>;
  /**
   * Where the bulk path reads one text format whatever happens (PostgreSQL COPY): the writer of
   * `table`'s rows in that format, so a caller can encode rows as it makes them and load the
   * bytes later with `loadText`, instead of holding the rows (docs/breakout.md#speed-and-memory).
   */
  textWriter?(table: TablePlan): RowWriter;
  /** Loads rows written by `textWriter`'s writer into `table`; returns the rows loaded. */
  loadText?(table: TablePlan, text: TextChunks): Promise<number>;
  /** Inserts a row, replacing any row with the same primary key (bookkeeping, e.g. the jobs table). */
  upsertRow(table: TablePlan, row: Row): Promise<void>;
  /**
   * The TLS protocol version this connection negotiated (`TLSv1.3`), or null when it runs in
   * plain text; undefined where the driver cannot tell.
   */
  tlsVersion(): Promise<string | null | undefined>;
  /** Small reads (jobs table, tests): rows in `table.columns` order, canonical values. */
  readRows(table: TablePlan, opts?: ReadOptions): Promise<Row[]>;
  /** Exact row count of one table. */
  countRows(name: string): Promise<number>;
  /**
   * What a breakout left in the target (status endpoint,
   * docs/status-and-incoming-webhooks.md#status-webhook-get-breakout-status-webhookphp): the rows
   * of its cases table
   * (0 when the table is absent) and the completion time of the newest completed job in its jobs
   * table (null when there is none), as ISO 8601 UTC.
   */
  breakoutProgress(casesTable: string, jobsTable: string): Promise<{ cases: number; lastCompleted: string | null }>;
  /**
   * Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. A call
   * inside a running transaction joins it. On MySQL, DDL inside `fn` commits implicitly
   * (`capabilities.transactionalDdl`), so keep DDL out of it there.
   */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Makes every transaction committed in this target before the call, by this session or any
   * other session to the same target, survive a power cut. A breakout calls it before it saves
   * its store cursor over pages it committed (docs/durability.md#breakout-targets). A no-op
   * where a commit is durable when it returns (PostgreSQL, MySQL/MariaDB, SQL Server with their
   * default settings); SQLite targets commit without an fsync (`synchronous = NORMAL` in WAL
   * mode) and fsync their WAL file here. Call it only while the session is idle.
   */
  makeDurable(): Promise<void>;
  close(): Promise<void>;
}

export interface Dialect {
  readonly name: DialectName;
  readonly capabilities: DialectCapabilities;
  readonly url: TargetUrlRules;
  readonly tls: DialectTls;
  /** Quotes one identifier, always (reserved words, odd characters and case are then safe). */
  quoteIdent(name: string): string;
  /** SQL type of a column in this database (before any row-size fallback of the DDL). */
  columnType(type: ColumnType): string;
  /** CREATE TABLE statement(s) for one table. */
  createTableSql(table: TablePlan, opts?: CreateTableOptions): string[];
  dropTableSql(name: string): string;
  /** Opens a session; connection failures become AppError DB-001…DB-005 or DB_CONNECTION_ERROR. */
  connect(config: TargetConfig): Promise<TargetSession>;
}
