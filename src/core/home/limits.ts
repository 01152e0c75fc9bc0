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
}

const MB = 1024 * 1024;

/** Default of `limits.import_mismatch_cases` (docs/limits.md). */
const DEFAULT_IMPORT_MISMATCH_CASES = 20;

export const DEFAULT_LIMITS: Readonly<Limits> = {
  ...DEFAULT_CASE_LIMITS,
  requestBytes: 64 * MB,
  pageBytes: 8 * MB,
  importMismatchCases: DEFAULT_IMPORT_MISMATCH_CASES,
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
] as const;

/** config.json key, environment variable and field of every limit (for `sds config`). */
export const LIMIT_SETTINGS: ReadonlyArray<readonly [string, string, keyof Limits, number, number]> = FIELDS;

function whole(value: unknown, where: string, min: number, max: number): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new AppError('CONFIG_INVALID', `${where} must be a whole number from ${min} to ${max}; got ${JSON.stringify(value)}`, {
      field: where,
    });
  }
  return n;
}

/**
 * Resolves the limits: the environment (SDS_LIMIT_*) over the `limits` object of config.json
 * over the defaults. An unknown key or a value out of range is CONFIG_INVALID naming where it
 * came from, never silently defaulted.
 */
export function limitsSettings(file: Record<string, unknown>, env: NodeJS.ProcessEnv, fileName = 'config.json'): Limits {
  const section = file.limits ?? {};
  if (typeof section !== 'object' || section === null || Array.isArray(section)) {
    throw new AppError('CONFIG_INVALID', `limits in ${fileName} must be an object`, { field: 'limits' });
  }
  const known = new Set<string>(FIELDS.map((f) => f[0]));
  for (const k of Object.keys(section)) {
    if (!known.has(k))
      throw new AppError('CONFIG_INVALID', `limits.${k} in ${fileName} is not a setting; known: ${[...known].join(', ')}`, {
        field: `limits.${k}`,
      });
  }
  const out: Limits = { ...DEFAULT_LIMITS };
  for (const [key, envName, field, min, max] of FIELDS) {
    const fromEnv = env[envName];
    const fromFile = (section as Record<string, unknown>)[key];
    if (fromEnv !== undefined && fromEnv !== '') out[field] = whole(fromEnv, envName, min, max);
    else if (fromFile !== undefined) out[field] = whole(fromFile, `limits.${key} in ${fileName}`, min, max);
  }
  return out;
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
