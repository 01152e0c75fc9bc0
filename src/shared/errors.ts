/**
 * One error type for the whole product and one registry that maps each stable code to an HTTP
 * status and a CLI exit code. Codes are the spec's catalogue (DB-001, BRK-003, ...), the spec's
 * API error strings (TABLES_ALREADY_EXIST, INVALID_THREADS, ...) and a few of our own for input
 * validation. docs/errors.md documents every code; test/unit/errors-doc.test.ts keeps the two in sync.
 */

/** Exit codes of the CLI contract (docs/architecture.md#exit-codes-and-errors). */
export const EXIT = {
  ok: 0,
  failed: 1,
  invalid: 2,
  notFound: 3,
  conflict: 4,
  external: 5,
} as const;

export interface ErrorSpec {
  http: number;
  exit: number;
  /** One line saying what the code means, used in docs/errors.md. */
  title: string;
}

export const ERROR_CODES = {
  // The service catalogue of codes (docs/errors.md)
  'DB-001': { http: 502, exit: EXIT.external, title: 'database connection refused' },
  'DB-002': { http: 502, exit: EXIT.external, title: 'database authentication failed' },
  'DB-003': { http: 502, exit: EXIT.external, title: 'database does not exist' },
  'DB-004': { http: 500, exit: EXIT.external, title: 'database driver not found' },
  'DB-005': { http: 503, exit: EXIT.external, title: 'too many database connections' },
  'BRK-001': { http: 404, exit: EXIT.notFound, title: 'dictionary not found' },
  'BRK-002': { http: 500, exit: EXIT.failed, title: 'breakout process ended with exit code 1' },
  'BRK-003': { http: 400, exit: EXIT.invalid, title: 'a case could not be parsed' },
  'BRK-004': { http: 409, exit: EXIT.conflict, title: 'table already exists' },
  'AUTH-001': { http: 401, exit: EXIT.invalid, title: 'invalid credentials' },
  'AUTH-002': { http: 401, exit: EXIT.invalid, title: 'invalid client' },
  'AUTH-003': { http: 401, exit: EXIT.invalid, title: 'token expired' },
  'AUTH-004': { http: 403, exit: EXIT.invalid, title: 'insufficient permissions' },
  'API-001': { http: 405, exit: EXIT.invalid, title: 'method not allowed' },
  'API-002': { http: 404, exit: EXIT.notFound, title: 'resource not found' },
  'API-003': { http: 400, exit: EXIT.invalid, title: 'invalid JSON' },
  'API-004': {
    http: 429,
    exit: EXIT.failed,
    title:
      'rate limit exceeded (too many failed logins, or too many logins waiting at once); `Retry-After` header and body `{error, message, retry_after}`',
  },
  'WHK-001': { http: 401, exit: EXIT.invalid, title: 'invalid webhook token' },
  'WHK-002': { http: 502, exit: EXIT.external, title: 'webhook timed out after 30 seconds' },
  'WHK-003': { http: 400, exit: EXIT.invalid, title: 'invalid payload, missing required field' },
  // The API error strings of breakout (docs/errors.md, docs/http-api.md#breakout-routes)
  DICTIONARY_NOT_FOUND: { http: 404, exit: EXIT.notFound, title: 'no dictionary of that name' },
  BREAKOUT_BUSY: { http: 409, exit: EXIT.conflict, title: 'a breakout job of the same dictionary is already pending or running' },
  TABLES_ALREADY_EXIST: { http: 409, exit: EXIT.conflict, title: 'breakout tables exist and overwrite was not asked' },
  DB_CONNECTION_ERROR: { http: 502, exit: EXIT.external, title: 'the target database could not be reached' },
  INVALID_THREADS: { http: 400, exit: EXIT.invalid, title: 'threads must be a whole number from 1 to 10' },
  INSUFFICIENT_PERMISSIONS: { http: 403, exit: EXIT.invalid, title: 'the role of the account does not allow this' },
  // Root webhook scripts (docs/status-and-incoming-webhooks.md#error-codes)
  missing_token: { http: 401, exit: EXIT.invalid, title: 'the Bearer header of the status webhook is absent or malformed' },
  invalid_token: { http: 401, exit: EXIT.invalid, title: 'the status webhook token differs from BREAKOUT_WEBHOOK_TOKEN' },
  server_misconfigured: {
    http: 500,
    exit: EXIT.invalid,
    title: 'the token variable of a webhook script (BREAKOUT_WEBHOOK_TOKEN, SURVEY_WEBHOOK_TOKEN) is not set',
  },
  method_not_allowed: { http: 405, exit: EXIT.invalid, title: 'the status webhook answers GET only' },
  rate_limited: {
    http: 429,
    exit: EXIT.failed,
    title: 'more than 60 requests in 60 s for one token and client address; Retry-After says when to retry',
  },
  invalid_parameter: {
    http: 400,
    exit: EXIT.invalid,
    title: 'a filter or paging parameter of the status webhook (or sds status) is not valid',
  },
  // Our own input, state and configuration codes
  USAGE: { http: 400, exit: EXIT.invalid, title: 'a command or request was called with wrong arguments' },
  CONFIG_INVALID: { http: 500, exit: EXIT.invalid, title: 'a configuration value is not one of the allowed values' },
  METRICS_TOKEN_INVALID: {
    http: 401,
    exit: EXIT.invalid,
    title: 'GET /metrics was asked without the bearer token of SDS_METRICS_TOKEN (or with another token)',
  },
  DICT_INVALID: { http: 400, exit: EXIT.invalid, title: 'the file is not a valid CSPro dictionary' },
  LABEL_INVALID: { http: 400, exit: EXIT.invalid, title: 'the dictionary label is not a valid table prefix' },
  DICT_IN_USE: { http: 409, exit: EXIT.conflict, title: 'the dictionary still has cases or breakout tables' },
  SYNC_NAME_TAKEN: {
    http: 409,
    exit: EXIT.conflict,
    title:
      "a dictionary's syncable name, or its name, is (whatever the case) the name or syncable name of another dictionary; details: dictionary, sync_name, taken_by",
  },
  SYNC_NAME_LOCKED: {
    http: 409,
    exit: EXIT.conflict,
    title: 'an upload would change the syncable name of a dictionary that holds cases; details: dictionary, sync_name, requested, cases',
  },
  CASE_INVALID: { http: 400, exit: EXIT.invalid, title: 'a case in an import file could not be read' },
  IMPORT_PARTIAL: { http: 400, exit: EXIT.invalid, title: 'some cases of an import could not be read; the others were stored' },
  FILE_FORMAT_UNKNOWN: { http: 400, exit: EXIT.invalid, title: 'the import file type is not .dat, .csdb or .json' },
  DICTIONARY_MISMATCH: {
    http: 400,
    exit: EXIT.invalid,
    title: 'the import file was written with another dictionary; nothing was imported',
  },
  NAME_COLLISION: { http: 400, exit: EXIT.invalid, title: 'two breakout tables or columns of a dictionary would get the same name' },
  NOT_FOUND: { http: 404, exit: EXIT.notFound, title: 'the named object does not exist' },
  CONFLICT: { http: 409, exit: EXIT.conflict, title: 'the object already exists or is in a conflicting state' },
  // Roles and rights (docs/supervision.md#roles-and-rights)
  ROLE_NOT_FOUND: { http: 404, exit: EXIT.notFound, title: 'no role of that name (names are case-sensitive)' },
  ROLE_BUILTIN: {
    http: 409,
    exit: EXIT.conflict,
    title: 'a built-in role cannot be removed, nor its default rights changed; Administrator has no per-dictionary rights',
  },
  RIGHT_UNKNOWN: {
    http: 400,
    exit: EXIT.invalid,
    title: 'a right that does not exist, data.none with other rights, or a right that is not a dictionary right on a dictionary',
  },
  PAYLOAD_TOO_LARGE: { http: 413, exit: EXIT.invalid, title: 'a request body or uploaded file is larger than the configured limit' },
  CASE_TOO_LARGE: {
    http: 413,
    exit: EXIT.invalid,
    title: 'a field of a case is larger than its configured limit (details: case, field, limit); nothing of the request was stored',
  },
  JSON_TOO_DEEP: {
    http: 400,
    exit: EXIT.invalid,
    title: 'a JSON body, case or request header nests arrays and objects deeper than the configured limit; refused before parsing',
  },
  PATH_INVALID: { http: 400, exit: EXIT.invalid, title: 'a file name escapes the media area or is not allowed' },
  SYNC_HEADER_INVALID: {
    http: 400,
    exit: EXIT.invalid,
    title: 'an x-csw-* sync header of the data-collection client has a value it could not have meant',
  },
  CASES_OPTIONS_INVALID: {
    http: 400,
    exit: EXIT.invalid,
    title:
      'the x-csw-cases-options header of a CSPro 8.1 data source query is not JSON, or a key has a value the client could not have meant; details: key',
  },
  SYNC_REVISION_UNKNOWN: {
    http: 412,
    exit: EXIT.conflict,
    title: 'the revision the sync client holds is newer than any of this server: it must sync in full',
  },
  SYNC_BINARY_UNSUPPORTED: {
    http: 415,
    exit: EXIT.invalid,
    title: 'a sync upload in the binary cssync container (binary case items) is not accepted',
  },
  CHECKSUM_MISMATCH: { http: 403, exit: EXIT.invalid, title: 'an uploaded file does not match the md5 its Content-MD5 header announced' },
  STORE_TOO_NEW: { http: 500, exit: EXIT.failed, title: 'the store was written by a newer sds; upgrade sds' },
  STORE_NEEDS_MIGRATION: {
    http: 503,
    exit: EXIT.notFound,
    title:
      'the store is at an older schema version than this sds needs; `sds migrate` applies the pending migrations (details: home, version, needs, pending)',
  },
  STORE_BUSY: { http: 503, exit: EXIT.failed, title: 'the store is locked by another process' },
  BACKUP_STORE_EXTERNAL: {
    http: 400,
    exit: EXIT.invalid,
    title:
      "the home's store is in PostgreSQL: `sds backup` copies a SQLite store only; back the database up with pg_dump or the office's PostgreSQL backups (details: store)",
  },
  STORE_UNAVAILABLE: {
    http: 503,
    exit: EXIT.external,
    title:
      'the PostgreSQL server of the store could not be reached, refused the login, or takes no writes (a standby, a primary being switched over) (details: store, the URL without its password)',
  },
  STORE_NOT_EMPTY: {
    http: 409,
    exit: EXIT.conflict,
    title:
      '`sds store copy` writes only into an empty PostgreSQL database, or a store `sds init` made that holds no row; the one given holds something (details: store, tables)',
  },
  STORE_COPY_DIFFERS: {
    http: 500,
    exit: EXIT.failed,
    title:
      'the PostgreSQL store and the SQLite store of a home differ: row counts or checksums of some tables, their schema, or their files (names and sha256 per area) (details: tables, differences, files)',
  },
  STORE_COPY_FILE_MISMATCH: {
    http: 500,
    exit: EXIT.failed,
    title:
      "a file of the home does not match its metadata (a media file's sha256, an application package's md5, a binary item's md5): `sds store copy` kept nothing; put the file again or remove it (details: area, file, expected, found)",
  },
  HOME_IN_USE: {
    http: 409,
    exit: EXIT.conflict,
    title: 'the home is in use by another process (sds serve, a scheduled run, another command); stop it first (details: path)',
  },
  STORE_OUTSIDE_TRANSACTION: {
    http: 500,
    exit: EXIT.failed,
    title: 'a defect: code inside a store transaction reached the store, not the transaction (`tx`) it was given; please report it',
  },
  STORE_WRITE_IN_READ_TRANSACTION: {
    http: 500,
    exit: EXIT.failed,
    title: 'a defect: code inside a read transaction of the store (`readTransaction`) tried to write; please report it',
  },
  HOME_NOT_FOUND: {
    http: 500,
    exit: EXIT.notFound,
    title:
      'no sds home (store file sds.db) at the path chosen by --home, SDS_HOME or the default ./var; details: path, source, reason. Only `sds init` and `sds quickstart` make one',
  },
  IO_ERROR: { http: 500, exit: EXIT.failed, title: 'a local file could not be read or written' },
  // Backup and restore (docs/backup.md)
  BACKUP_DEST_INVALID: {
    http: 400,
    exit: EXIT.invalid,
    title: 'the backup destination is not a folder, cannot be created, or lies inside the home (or the files a backup copies)',
  },
  BACKUP_DEST_PARENT_MISSING: {
    http: 404,
    exit: EXIT.notFound,
    title:
      'the folder that would hold the backup destination does not exist: only the last folder of a destination is made (details: parent)',
  },
  BACKUP_NOT_FOUND: { http: 404, exit: EXIT.notFound, title: 'the folder given to restore does not exist or is not a folder' },
  BACKUP_NOT_CHOSEN: {
    http: 400,
    exit: EXIT.invalid,
    title:
      'the folder given to restore holds backups (sds-backup-…) rather than being one: name one, or take the newest (details: backups, newest)',
  },
  BACKUP_MANIFEST_INVALID: {
    http: 400,
    exit: EXIT.invalid,
    title: 'the manifest.json of a backup is missing, is not JSON, or does not describe a backup this sds can read (the message says what)',
  },
  BACKUP_FILE_MISSING: { http: 400, exit: EXIT.invalid, title: 'a file listed in the manifest of a backup is not in the backup folder' },
  BACKUP_FILE_UNLISTED: { http: 400, exit: EXIT.invalid, title: 'the backup folder holds a file its manifest does not list' },
  BACKUP_CHECKSUM_MISMATCH: {
    http: 400,
    exit: EXIT.invalid,
    title: 'a file of a backup differs from its manifest (size or SHA-256); details name the file',
  },
  BACKUP_INTEGRITY_FAILED: {
    http: 400,
    exit: EXIT.invalid,
    title: "the backup's sds.db fails PRAGMA integrity_check or foreign_key_check, or is not a SQLite database",
  },
  RESTORE_HOME_NOT_EMPTY: {
    http: 409,
    exit: EXIT.conflict,
    title: 'a restore goes only into a missing or empty home folder; the folder given holds something',
  },
  // Broken, aborted and slow request bodies of `sds serve` (docs/http-api.md, Limits and timeouts)
  MULTIPART_INVALID: {
    http: 400,
    exit: EXIT.invalid,
    title: 'a multipart/form-data body is malformed or cut short (no closing boundary, broken part headers); the message says what',
  },
  REQUEST_ABORTED: {
    http: 400,
    exit: EXIT.invalid,
    title:
      'the client closed the connection before its request body was complete (nothing reaches it and the request is logged as `aborted`), or before a streamed reply such as an export was sent (the work stops)',
  },
  REQUEST_TIMEOUT: {
    http: 408,
    exit: EXIT.failed,
    title: 'the request body stalled (no bytes for the body timeout) or took longer than the request timeout; the connection is closed',
  },
  SERVER_BUSY: {
    http: 503,
    exit: EXIT.failed,
    title:
      'the sync uploads in flight hold all the memory the server allows them (`limits.upload_memory_bytes`); nothing of the upload was stored. `Retry-After` header and body `{error, message, retry_after}`',
  },
  // Scheduler (docs/scheduler.md, docs/http-api.md#scheduler-routes)
  CRON_INVALID: { http: 400, exit: EXIT.invalid, title: 'a cron expression is not 5 valid fields (the message names the field)' },
  SCHEDULE_NOT_FOUND: { http: 404, exit: EXIT.notFound, title: 'no schedule of that id or for that dictionary' },
  SCHEDULE_EXISTS: { http: 409, exit: EXIT.conflict, title: 'the dictionary already has a schedule (one per dictionary)' },
  // Breakout targets (docs/breakout.md, "Targets" and "TLS")
  TARGET_URL_INVALID: {
    http: 400,
    exit: EXIT.invalid,
    title: 'a target URL is not a URL, or its scheme does not match the target type (postgresql://, mysql://, mssql://, sqlite://)',
  },
  TARGET_DATABASE_MISSING: { http: 400, exit: EXIT.invalid, title: 'a PostgreSQL, MySQL/MariaDB or SQL Server target names no database' },
  TARGET_PARAM_UNKNOWN: {
    http: 400,
    exit: EXIT.invalid,
    title: 'a query parameter of a target URL is not one sds honours for that type (the message names it)',
  },
  TARGET_TLS_INVALID: {
    http: 400,
    exit: EXIT.invalid,
    title: 'a TLS setting of a target is not valid for its type, or is given twice with two values',
  },
  TLS_FILE_UNREADABLE: {
    http: 500,
    exit: EXIT.invalid,
    title: 'a TLS file of a target (CA, client certificate or key) is missing or unreadable when connecting',
  },
  TARGET_FILE_DIR_MISSING: {
    http: 400,
    exit: EXIT.invalid,
    title: 'the folder of a SQLite target file does not exist; `target test` creates nothing',
  },
  TARGET_NOT_CONFIGURED: { http: 409, exit: EXIT.conflict, title: 'the dictionary has no breakout target, so it cannot be scheduled' },
  TARGET_DATABASE_ERROR: {
    http: 502,
    exit: EXIT.external,
    title:
      "the target database answered with an error no other code names (a full disk, a lock timeout, a read-only server, ...); the message quotes it, details give the server's own code: `driverCode` (PostgreSQL's SQLSTATE, a SQLite result code), `errno` and `sqlState` (MySQL/MariaDB), `number` (SQL Server)",
  },
  // Outgoing webhooks
  WEBHOOK_INVALID: {
    http: 400,
    exit: EXIT.invalid,
    title: 'a webhook field is invalid: url not http(s), unknown event kind, or a weak secret',
  },
  WEBHOOK_UNREACHABLE: {
    http: 502,
    exit: EXIT.external,
    title: 'the webhook receiver could not be reached (connection refused, DNS, TLS)',
  },
  WEBHOOK_REJECTED: { http: 502, exit: EXIT.external, title: 'the webhook receiver answered with a status that is not 2xx' },
  // Moving from CSWeb (docs/migrating-from-csweb.md)
  CSWEB_FILES_FOLDER_MISSING: {
    http: 400,
    exit: EXIT.invalid,
    title: "CSWeb's files folder given to the import does not exist, is not a folder, or cannot be read",
  },
  CSWEB_APPS_UNREADABLE: { http: 502, exit: EXIT.external, title: 'the cspro_apps table of the CSWeb database could not be read' },
  CSWEB_USERS_UNREADABLE: {
    http: 502,
    exit: EXIT.external,
    title: "CSWeb's users, roles or permissions tables could not be read (details: table); nothing of the accounts was imported",
  },
  INTERNAL: { http: 500, exit: EXIT.failed, title: 'an unexpected internal error (a bug: please report it)' },
  // Importing from a CSWeb database (docs/migrating-from-csweb.md)
  CSWEB_ADDRESS_INVALID: {
    http: 400,
    exit: EXIT.invalid,
    title: 'the CSWeb database address is not mysql://USER@HOST:PORT/DATABASE (or holds a password)',
  },
  CSWEB_CONNECT_FAILED: {
    http: 502,
    exit: EXIT.external,
    title: 'the CSWeb database could not be reached or refused the login (details: host, database)',
  },
  CSWEB_NOT_A_CSWEB_DATABASE: {
    http: 400,
    exit: EXIT.invalid,
    title: 'the database has no CSWeb tables (details: missing); nothing was imported',
  },
  CSWEB_SCHEMA_UNKNOWN: {
    http: 400,
    exit: EXIT.invalid,
    title:
      'the CSWeb schema version is not 7 (CSWeb 8.0) or 8 (CSWeb 8.1), or a table or column the import reads in that version is missing (details: missing, version)',
  },
  CSWEB_SCHEMA_TOO_OLD: {
    http: 400,
    exit: EXIT.invalid,
    title: 'the CSWeb database is of an older schema version than the 7 (CSWeb 8) the import reads (details: version, oldest, missing)',
  },
  CSWEB_TIMEZONE_REQUIRED: {
    http: 400,
    exit: EXIT.invalid,
    title: "the time zone of CSWeb's note times was not given, and no config.php that names it: give one of them",
  },
  CSWEB_TIMEZONE_UNKNOWN: {
    http: 400,
    exit: EXIT.invalid,
    title:
      "the time zone given for CSWeb's note times (or named by its config.php) is not an IANA zone name (details: zone, from, suggestions)",
  },
  CSWEB_CASE_UNREADABLE: { http: 400, exit: EXIT.invalid, title: 'a CSWeb case could not be decoded (details: dictionary, guid)' },
  CSWEB_LOCAL_CHANGES: {
    http: 409,
    exit: EXIT.conflict,
    title: 'sds wrote cases of an imported dictionary itself since the last import; the import would interleave revisions',
  },
  CSWEB_OTHER_SOURCE: {
    http: 409,
    exit: EXIT.conflict,
    title: 'this home already mirrors another CSWeb server (another server device id)',
  },
  CSWEB_VERIFY_DIFFERS: {
    http: 409,
    exit: EXIT.failed,
    title: 'the CSWeb database and sds differ for some dictionary (counts, flags, notes or the checksum of contents)',
  },
  CSWEB_IMPORT_PARTIAL: {
    http: 400,
    exit: EXIT.invalid,
    title: 'some cases or dictionaries of a CSWeb import could not be carried over; the others were stored',
  },
  EXPORT_SPSS_STATS: {
    http: 500,
    exit: EXIT.failed,
    title: 'an SPSS export got more or fewer rows, or a wider string, than the first pass over the data measured',
  },
  EXPORT_SPSS_VALUE: {
    http: 500,
    exit: EXIT.failed,
    title: 'an SPSS export got a cell that its column type cannot hold (text in a numeric column, a bad timestamp)',
  },
  STATA_VALUE_UNREPRESENTABLE: {
    http: 400,
    exit: EXIT.invalid,
    title:
      'a value cannot be written exactly to a Stata .dta file (an integer beyond its storage type or 2^53, a number or timestamp that does not parse); details: table, column, row',
  },
  STATA_STATS_MISMATCH: {
    http: 500,
    exit: EXIT.failed,
    title:
      'the rows written to a Stata .dta table differ from the first pass over the data (row count or a string longer than its str# width); the file would be corrupt',
  },
  PARQUET_VALUE_INVALID: {
    http: 400,
    exit: EXIT.invalid,
    title: 'a value does not fit the Parquet type of its export column (details: column, row, value)',
  },
  // Export (docs/export.md)
  EXPORT_FORMAT_UNKNOWN: {
    http: 400,
    exit: EXIT.invalid,
    title: 'an export format is not one of csv, stata, spss, parquet, xlsx, geojson',
  },
  EXPORT_RECORD_UNKNOWN: {
    http: 404,
    exit: EXIT.notFound,
    title: 'a record asked of an export is no record or table of the dictionary (the message lists its records)',
  },
  EXPORT_FILE_EXISTS: {
    http: 409,
    exit: EXIT.conflict,
    title: 'a file the export would write already exists in the output folder (give --force to replace it)',
  },
  EXPORT_OUT_INVALID: { http: 400, exit: EXIT.invalid, title: 'the export output folder is a file or cannot be created' },
  EXPORT_XLSX_TOO_MANY_ROWS: {
    http: 400,
    exit: EXIT.invalid,
    title: 'a table has more rows than an Excel sheet holds (1,048,576 with its header); CSV, Parquet, Stata and SPSS hold it',
  },
  EXPORT_GPS_UNSET: {
    http: 400,
    exit: EXIT.invalid,
    title: 'a GeoJSON export names no latitude and longitude items and the dictionary has none set',
  },
  GPS_ITEM_INVALID: {
    http: 400,
    exit: EXIT.invalid,
    title:
      'a latitude or longitude item is not a numeric item of the dictionary that holds one value, or the two are not on the same record',
  },
  GEOJSON_ITEM_INVALID: {
    http: 400,
    exit: EXIT.invalid,
    title: 'an item asked as a property of GeoJSON points is not in the dictionary or may take several values per point',
  },
  SYNC_CONTAINER_INVALID: {
    http: 400,
    exit: EXIT.invalid,
    title: 'a cssync container (a sync upload with binary case items) is truncated or malformed; details: offset. Nothing was stored',
  },
  BINARY_ITEM_CONTENT_CHANGED: {
    http: 500,
    exit: EXIT.failed,
    title:
      "a binary item's content file under <home>/files/binary-items changed size while a download sent it (content files are written once: something else modified the home); the download is cut short",
  },
  USERS_IMPORT_INVALID: {
    http: 400,
    exit: EXIT.invalid,
    title:
      'lines of a CSV of accounts are not valid (details: errors, each with line, field and message); nothing was imported (docs/supervision.md#accounts)',
  },
  BINARY_ITEM_SIGNATURE_MISMATCH: {
    http: 400,
    exit: EXIT.invalid,
    title: 'the content of a binary case item does not have the md5 its signature names; details: signature, md5. Nothing was stored',
  },
  // Supervision reports (docs/supervision.md#sync-history-and-reports)
  REPORT_IDS_INVALID: {
    http: 400,
    exit: EXIT.invalid,
    title: 'a report by ids names no id item, too many, one twice, or a name that is not a level-1 id item; details: id_items',
  },
  AREA_NAMES_INVALID: {
    http: 400,
    exit: EXIT.invalid,
    title: 'an area names file has bad lines (each listed with its number in details.lines) or too many; nothing was stored',
  },
  // The audit trail (docs/supervision.md#audit-trail): what `sds audit verify` finds, naming the first bad record (details: seq)
  AUDIT_RECORD_ALTERED: {
    http: 500,
    exit: EXIT.failed,
    title: "an audit record's hash is not the hash of its content: the record was edited after it was written (details: seq)",
  },
  AUDIT_CHAIN_BROKEN: {
    http: 500,
    exit: EXIT.failed,
    title:
      "an audit record does not follow the one before it (its prev_hash is not that record's hash): a record was inserted, replaced or reordered (details: seq)",
  },
  AUDIT_RECORD_MISSING: {
    http: 500,
    exit: EXIT.failed,
    title:
      'an audit record is missing from the chain (a gap in the sequence numbers): a record was deleted (details: seq, the first one missing)',
  },
  AUDIT_HEAD_MISMATCH: {
    http: 500,
    exit: EXIT.failed,
    title:
      'the audit trail does not end where its head row says: the last records were deleted, records were added after the head, or the head row was edited (details: seq, head_seq)',
  },
  AUDIT_HEAD_UNKNOWN: {
    http: 500,
    exit: EXIT.failed,
    title:
      'a head hash written down earlier (verify --expect) is not in the audit trail any more: the records up to it were rewritten (details: seq)',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Where in an input the problem is; every field optional, shown in this order. */
export interface ErrorLocation {
  file?: string;
  line?: number;
  path?: string;
  record?: string;
  item?: string;
  case?: string;
}

export type ErrorDetails = ErrorLocation & Record<string, unknown>;

/** The product's only error type: a stable code, a human message, and data saying where. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
  }

  get http(): number {
    return ERROR_CODES[this.code].http;
  }

  get exit(): number {
    return ERROR_CODES[this.code].exit;
  }
}

/** Wraps anything thrown into an AppError, keeping AppErrors as they are. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new AppError('INTERNAL', message, {}, { cause: err });
}

/** Formats a location as `file:line (item X, case Y)` for one-line human messages. */
export function formatLocation(loc: ErrorLocation): string {
  const head = [loc.file, loc.line !== undefined ? String(loc.line) : undefined].filter(Boolean).join(':');
  const parts: string[] = [];
  if (loc.path) parts.push(`at ${loc.path}`);
  if (loc.record) parts.push(`record ${loc.record}`);
  if (loc.item) parts.push(`item ${loc.item}`);
  if (loc.case) parts.push(`case ${loc.case}`);
  return [head, parts.length ? `(${parts.join(', ')})` : ''].filter(Boolean).join(' ');
}

/** True when `code` is one of the registry's codes (e.g. a code read back from a job row). */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}
