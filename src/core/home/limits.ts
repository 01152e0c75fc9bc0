import { configSection, resolveWholeSettings } from '../../shared/config-section.js';
import { AppError } from '../../shared/errors.js';
import { homeConfigPath, readHomeConfig } from '../../shared/home-config.js';
import type { HomePaths } from '../../shared/home.js';
import { DEFAULT_CASE_LIMITS, type CaseLimits } from '../../cspro/case/case-limits.js';
import type { Store } from '../../store/open-store.js';

/**
 * Every limit on what is stored and parsed (docs/limits.md): the case field limits of
 * cspro/case/case-limits.ts, plus the limits of one request and one page.
 */
export interface Limits extends CaseLimits {
  /** Bytes of one sync upload after inflating (its JSON); more is 413 PAYLOAD_TOO_LARGE. */
  requestBytes: number;
  /** Bytes of stored text in one page of `GET …/cases` (list and sync download); the page ends early past it, always with at least one case. */
  pageBytes: number;
  /** Cases at the start of a `.dat` that, all with unknown record types, make it DICTIONARY_MISMATCH (docs/import.md). */
  importMismatchCases: number;
  /** Cases read from a CSWeb database and committed per page of `sds csweb import` (docs/migrating-from-csweb.md#how-the-import-runs). */
  cswebPageCases: number;
  /** Cases read from the store per page of `sds export` (docs/export.md#memory-and-speed). */
  exportPageCases: number;
  /** Rows per Parquet row group of `sds export` (docs/export.md#memory-and-speed). */
  exportRowGroupRows: number;
  /** Rows of one sheet of an Excel export, its header row included; a larger table is EXPORT_XLSX_TOO_MANY_ROWS (docs/export.md#excel). */
  exportXlsxRows: number;
  /** Bytes of one binary case item's content (an image, a recording); more is 413 PAYLOAD_TOO_LARGE (docs/sync.md#binary-items). */
  binaryItemBytes: number;
  /** Cases in one reply of a CSPro 8.1 data source query; a longer result is cut and says `resultLimit` (docs/sync.md#queries). */
  dataSourceCases: number;
  /** Bytes of the data source's cache header once inflated; past it the header is ignored (docs/sync.md#cached-cases). */
  dataSourceCacheBytes: number;
  /** Bytes of a deployed package's `package.json` that are read; past it the package is stored without metadata (docs/sync.md#apps). */
  appPackageJsonBytes: number;
  /** Seconds after its last write a temporary upload file is removed at server start, whoever wrote it (docs/sync.md#files). */
  stalePartSeconds: number;
  /**
   * Bytes of memory the sync uploads in flight of `sds serve` may hold together, each charged
   * UPLOAD_MEMORY_FACTOR times its inflated JSON; past it 503 SERVER_BUSY (docs/limits.md#memory-of-uploads-in-flight).
   */
  uploadMemoryBytes: number;
  /** Bytes of one CSV of accounts (`sds users import`, `POST /api/users/import`); more is 413 PAYLOAD_TOO_LARGE (docs/supervision.md#accounts). */
  usersImportBytes: number;
  /** Accounts in one CSV import; more is 413 PAYLOAD_TOO_LARGE, nothing imported (docs/supervision.md#accounts). */
  usersImportRows: number;
}

const MB = 1024 * 1024;

/**
 * Bytes of memory a sync upload holds, at most, per byte of its inflated JSON while it is read,
 * parsed, checked and written: the bytes, their text, the parsed cases and the text to store
 * (docs/limits.md#memory-of-uploads-in-flight).
 */
export const UPLOAD_MEMORY_FACTOR = 6;

/** Default of `limits.import_mismatch_cases` (docs/limits.md). */
const DEFAULT_IMPORT_MISMATCH_CASES = 20;

export const DEFAULT_LIMITS: Readonly<Limits> = {
  ...DEFAULT_CASE_LIMITS,
  requestBytes: 64 * MB,
  pageBytes: 8 * MB,
  importMismatchCases: DEFAULT_IMPORT_MISMATCH_CASES,
  cswebPageCases: 500,
  exportPageCases: 500,
  exportRowGroupRows: 65_536,
  // Excel's own limit: a sheet holds no more rows.
  exportXlsxRows: 1_048_576,
  binaryItemBytes: 64 * MB,
  // The client asks 1000 identifiers at a time, "CSWeb's actual limit".
  dataSourceCases: 1000,
  dataSourceCacheBytes: MB,
  appPackageJsonBytes: MB,
  // A day: far beyond any writer's pause (the body timeout, at most a day, cuts a stalled upload).
  stalePartSeconds: 86_400,
  uploadMemoryBytes: 1024 * MB,
  // 3,000 interviewers take about 300 KB; each row costs an argon2 hash (tens of milliseconds).
  usersImportBytes: 4 * MB,
  usersImportRows: 10_000,
};

/** config.json key (in the `limits` object), environment variable, field, and allowed range. */
const FIELDS = [
  ['label_chars', 'SDS_LIMIT_LABEL_CHARS', 'labelChars', 1, 1e9],
  ['caseids_chars', 'SDS_LIMIT_CASEIDS_CHARS', 'caseidsChars', 1, 1e9],
  ['case_data_chars', 'SDS_LIMIT_CASE_DATA_CHARS', 'dataChars', 1, 1e9],
  ['notes_per_case', 'SDS_LIMIT_NOTES_PER_CASE', 'notes', 0, 1e9],
  ['note_chars', 'SDS_LIMIT_NOTE_CHARS', 'noteChars', 1, 1e9],
  ['text_chars', 'SDS_LIMIT_TEXT_CHARS', 'textChars', 1, 1e9],
  ['clock_entries', 'SDS_LIMIT_CLOCK_ENTRIES', 'clockEntries', 1, 1e9],
  ['json_depth', 'SDS_LIMIT_JSON_DEPTH', 'jsonDepth', 8, 10_000],
  ['request_bytes', 'SDS_LIMIT_REQUEST_BYTES', 'requestBytes', 1024, 2 ** 31 - 1],
  ['page_bytes', 'SDS_LIMIT_PAGE_BYTES', 'pageBytes', 1024, 2 ** 28],
  ['import_mismatch_cases', 'SDS_LIMIT_IMPORT_MISMATCH_CASES', 'importMismatchCases', 1, 1_000_000],
  ['csweb_page_cases', 'SDS_LIMIT_CSWEB_PAGE_CASES', 'cswebPageCases', 1, 100_000],
  ['export_page_cases', 'SDS_LIMIT_EXPORT_PAGE_CASES', 'exportPageCases', 1, 100_000],
  ['export_row_group_rows', 'SDS_LIMIT_EXPORT_ROW_GROUP_ROWS', 'exportRowGroupRows', 1_000, 10_000_000],
  ['export_xlsx_rows', 'SDS_LIMIT_EXPORT_XLSX_ROWS', 'exportXlsxRows', 2, 1_048_576],
  ['binary_item_bytes', 'SDS_LIMIT_BINARY_ITEM_BYTES', 'binaryItemBytes', 1024, 2 ** 31 - 1],
  ['data_source_cases', 'SDS_LIMIT_DATA_SOURCE_CASES', 'dataSourceCases', 1, 100_000],
  ['data_source_cache_bytes', 'SDS_LIMIT_DATA_SOURCE_CACHE_BYTES', 'dataSourceCacheBytes', 1024, 2 ** 28],
  ['app_package_json_bytes', 'SDS_LIMIT_APP_PACKAGE_JSON_BYTES', 'appPackageJsonBytes', 1024, 2 ** 28],
  ['stale_part_seconds', 'SDS_LIMIT_STALE_PART_SECONDS', 'stalePartSeconds', 60, 31_536_000],
  ['upload_memory_bytes', 'SDS_LIMIT_UPLOAD_MEMORY_BYTES', 'uploadMemoryBytes', MB, 2 ** 40],
  ['users_import_bytes', 'SDS_LIMIT_USERS_IMPORT_BYTES', 'usersImportBytes', 1024, 2 ** 28],
  ['users_import_rows', 'SDS_LIMIT_USERS_IMPORT_ROWS', 'usersImportRows', 1, 1_000_000],
] as const;

/** config.json key, environment variable and field of every limit (for `sds config`). */
export const LIMIT_SETTINGS: ReadonlyArray<readonly [string, string, keyof Limits, number, number]> = FIELDS;

/**
 * Resolves the limits: the environment (SDS_LIMIT_*) over the `limits` object of config.json
 * over the defaults. An unknown key or a value out of range is CONFIG_INVALID naming where it
 * came from, never silently defaulted.
 */
export function limitsSettings(file: Record<string, unknown>, env: NodeJS.ProcessEnv, fileName = 'config.json'): Limits {
  const section = configSection(
    file,
    'limits',
    fileName,
    FIELDS.map((f) => f[0]),
  );
  const out: Limits = { ...DEFAULT_LIMITS };
  resolveWholeSettings(out, FIELDS, section, env, 'limits', fileName);
  return out;
}

/**
 * Checks that one upload at the request limit fits the upload memory budget alone: otherwise it
 * would be refused as busy however long it waited. CONFIG_INVALID naming both limits.
 */
export function checkUploadMemory(limits: Limits): void {
  const needs = UPLOAD_MEMORY_FACTOR * limits.requestBytes;
  if (limits.uploadMemoryBytes >= needs) return;
  throw new AppError(
    'CONFIG_INVALID',
    `limits.upload_memory_bytes (${limits.uploadMemoryBytes}) must hold one upload at limits.request_bytes (${limits.requestBytes}) ` +
      `held ${UPLOAD_MEMORY_FACTOR} times over, at least ${needs}: raise upload_memory_bytes or lower request_bytes`,
    { field: 'limits.upload_memory_bytes' },
  );
}

/** The limits of a home: its config.json and the environment `env`. */
export function loadLimits(home: HomePaths, env: NodeJS.ProcessEnv = process.env): Limits {
  return limitsSettings(readHomeConfig(home), env, homeConfigPath(home));
}

const cache = new WeakMap<Store, Limits>();

/**
 * The limits a store's writes and reads use: those given once by `useLimits` (`sds serve` does,
 * with its HTTP settings), else read from the home's config.json and process.env on first use.
 */
export function limitsOf(store: Store): Limits {
  let l = cache.get(store);
  if (!l) {
    l = loadLimits(store.home);
    cache.set(store, l);
  }
  return l;
}

/** Sets the limits of a store for the rest of its life (the server's resolved settings). */
export function useLimits(store: Store, limits: Limits): void {
  cache.set(store, limits);
}
