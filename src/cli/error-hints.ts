/**
 * What the CLI adds to an error: which flag or command fixes it. Core errors say only what is
 * wrong, in domain words, because HTTP clients get the same messages (docs/decisions.md, "Core
 * speaks in domain words"); the flag names and `sds …` commands live here, keyed by error code
 * and the error's structured details.
 */
import { AppError, type ErrorCode, type ErrorDetails } from '../shared/errors.js';

/** The flag of each setting a core error may name in `details.settings`. */
const FLAG_OF: Readonly<Record<string, string>> = {
  url: '--url',
  host: '--host',
  port: '--port',
  database: '--database',
  file: '--file',
  'password-env': '--password-env',
  'tls-mode': '--tls-mode',
  'tls-ca': '--tls-ca',
  'tls-cert': '--tls-cert',
  'tls-key': '--tls-key',
  user: '--user',
  type: '--type',
  'connect-timeout': '--connect-timeout',
  timeout: '--timeout',
  'older-than': '--older-than',
  keep: '--keep',
  since: '--since',
  limit: '--limit',
  offset: '--offset',
  before: '--before',
  device: '--device',
  name: '--name',
  lat: '--lat',
  lon: '--lon',
};

const shellWord = (s: string): string => (/^[\w./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The command that fixes an error, by code; the suffix is appended to the message as it stands. */
const COMMAND_HINTS: Partial<Record<ErrorCode, (d: ErrorDetails) => string | undefined>> = {
  SCHEDULE_NOT_FOUND: (d) => (text(d.dictionary) ? `; add one with: sds schedule add ${d.dictionary}` : undefined),
  SCHEDULE_EXISTS: (d) => (text(d.dictionary) ? `; change it with: sds schedule update ${d.dictionary}` : undefined),
  TARGET_NOT_CONFIGURED: (d) => (text(d.dictionary) ? `: sds target set ${d.dictionary} --type ...` : undefined),
  // Only the refusal for breakout tables carries them (not the one for cases).
  DICT_IN_USE: (d) => (text(d.dictionary) && Array.isArray(d.tables) ? ` (sds breakout drop ${d.dictionary})` : undefined),
  // A dictionary with cases is renamed by purging it and uploading it again (docs/sync.md#syncable-names).
  SYNC_NAME_LOCKED: (d) => (text(d.dictionary) ? ` (sds dict delete ${d.dictionary} --with-cases)` : undefined),
  RESTORE_HOME_NOT_EMPTY: () => '; choose another with --home',
  // The import's core names no flag (docs/supervision.md#accounts).
  USERS_IMPORT_INVALID: (d) =>
    [
      d.header_suspected === true ? '\n(import with --header)' : '',
      d.accounts_exist === true ? '\n(--update updates existing accounts)' : '',
    ].join('') || undefined,
  // Before a migration of a PostgreSQL store (docs/upgrading.md#a-postgresql-store).
  BACKUP_STORE_EXTERNAL: (d) => (d.step === 'migrate' ? '; back the database up first, then run `sds migrate --no-backup`' : undefined),
  BACKUP_NOT_CHOSEN: (d) =>
    text(d.newest) && text(d.file)
      ? ` (sds restore ${shellWord(String(d.newest))}, or sds restore ${shellWord(String(d.file))} --latest)`
      : undefined,
  CSWEB_TIMEZONE_REQUIRED: () => ' (--timezone ZONE, or --csweb-config PATH of its config.php)',
  CSWEB_TIMEZONE_UNKNOWN: () => ' (--timezone ZONE; it takes precedence over --csweb-config)',
  CSWEB_ADDRESS_INVALID: () => ' (--from mysql://USER@HOST:PORT/DATABASE, the password in --password-env VAR)',
  // The core says the home must be migrated; the CLI names the command (docs/upgrading.md#upgrading-a-home).
  STORE_NEEDS_MIGRATION: (d) =>
    text(d.home) ? `; stop sds serve and the scheduler, then run \`sds --home ${shellWord(String(d.home))} migrate\`` : undefined,
  EXPORT_XLSX_TOO_MANY_ROWS: () => ' (--format csv, parquet, stata or spss)',
  // The table formats' message names the flag itself (export-folder.ts); the GeoJSON one does not.
  EXPORT_FILE_EXISTS: (d) => (d.replaceable === true ? '; give --force to replace it, or another --out' : undefined),
  EXPORT_GPS_UNSET: (d) =>
    text(d.dictionary)
      ? `; give --lat ITEM --lon ITEM, or set them once: sds dict set-gps ${d.dictionary} --lat ITEM --lon ITEM`
      : undefined,
  NOT_FOUND: (d) => (text(d.suggestion) && text(d.dictionary) ? `; ${d.suggestion}: sds breakout start ${d.dictionary}` : undefined),
};

/** The flags of the settings an error names (`details.settings`), as " (option --x)". */
function flagHint(details: ErrorDetails): string | undefined {
  const settings = Array.isArray(details.settings) ? details.settings.filter((s): s is string => typeof s === 'string') : [];
  const flags = settings.map((s) => FLAG_OF[s]).filter((f): f is string => f !== undefined);
  if (flags.length === 0) return undefined;
  return ` (option${flags.length > 1 ? 's' : ''} ${flags.join(', ')})`;
}

/** The hint the CLI appends to an error's message, or undefined when it has none. */
export function cliHint(e: AppError): string | undefined {
  const parts = [COMMAND_HINTS[e.code]?.(e.details), flagHint(e.details)].filter((p): p is string => p !== undefined);
  return parts.length > 0 ? parts.join('') : undefined;
}

/** The error as the CLI shows it: its message with the CLI's hint appended (same code and details). */
export function withCliHint(e: AppError): AppError {
  const hint = cliHint(e);
  if (hint === undefined) return e;
  return new AppError(e.code, e.message + hint, e.details, { cause: e.cause });
}
