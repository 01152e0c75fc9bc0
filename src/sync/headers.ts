/**
 * The `x-csw-*` request headers of the data-collection client's sync protocol
 * (docs/sync.md#download-get-cases), parsed into plain values. Pure: the caller hands
 * in a header getter. Values a client could not have meant are refused with SYNC_HEADER_INVALID
 * naming the header, rather than silently read as "everything".
 */

import { AppError } from '../shared/errors.js';

export type HeaderGetter = (name: string) => string | undefined;

/** Device recorded when a request carries no `x-csw-device`. */
const UNKNOWN_DEVICE = 'unknown';

/** Chunk size of a download that names none (CSWeb sends everything; a cap keeps memory flat). */
const DEFAULT_CHUNK = 1000;
/** Largest chunk a client may ask for. */
const MAX_CHUNK = 10000;

export interface DownloadRequest {
  device: string;
  /** The revision the device already holds (`x-csw-if-revision-exists`, else `If-Match`); 0 for a full sync. */
  lastRevision: number;
  /** Whether the client named a revision at all (only then can it be unknown: 412). */
  hasLastRevision: boolean;
  /** Guid cursor inside `lastRevision` (`x-csw-case-range-start-after`), '' for none. */
  startAfter: string;
  count: number;
  universe: string;
  excludeRevisions: number[];
}

export interface UploadRequest {
  device: string;
  /** `x-csw-if-revision-exists`, when sent. */
  ifRevisionExists?: number;
}

function invalid(header: string, value: string, expected: string): AppError {
  return new AppError('SYNC_HEADER_INVALID', `header ${header}: "${value}" is not ${expected}`, { header });
}

function unquote(v: string): string {
  const t = v.trim().replace(/^W\//, '');
  return t.length >= 2 && t.startsWith('"') && t.endsWith('"') ? t.slice(1, -1) : t;
}

function revisionOf(header: string, raw: string): number {
  const v = unquote(raw);
  if (!/^\d{1,15}$/.test(v)) throw invalid(header, raw, 'a revision number');
  return Number(v);
}

/** The device id of a request, `unknown` when absent or blank. */
export function deviceOf(get: HeaderGetter): string {
  const d = (get('x-csw-device') ?? '').trim();
  if (d.length > 128) throw invalid('x-csw-device', d.slice(0, 40) + '…', 'a device id of at most 128 characters');
  return d === '' ? UNKNOWN_DEVICE : d;
}

function lastRevisionOf(get: HeaderGetter): number | undefined {
  const own = get('x-csw-if-revision-exists');
  if (own !== undefined && own.trim() !== '') return revisionOf('x-csw-if-revision-exists', own);
  // The official swagger names the header If-Match; accept it too.
  const ifMatch = get('if-match');
  if (ifMatch !== undefined && ifMatch.trim() !== '' && ifMatch.trim() !== '*') return revisionOf('If-Match', ifMatch);
  return undefined;
}

/** Parses the headers of `GET …/cases` in the sync form. */
export function parseDownloadHeaders(get: HeaderGetter): DownloadRequest {
  const last = lastRevisionOf(get);
  const countRaw = get('x-csw-case-range-count');
  let count = DEFAULT_CHUNK;
  if (countRaw !== undefined && countRaw.trim() !== '') {
    const v = countRaw.trim();
    if (!/^\d{1,9}$/.test(v) || Number(v) < 1) throw invalid('x-csw-case-range-count', countRaw, 'a whole number ≥ 1');
    count = Math.min(Number(v), MAX_CHUNK);
  }
  const startRaw = (get('x-csw-case-range-start-after') ?? '').trim();
  const startAfter = unquote(startRaw).toLowerCase();
  if (startAfter !== '' && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(startAfter)) {
    throw invalid('x-csw-case-range-start-after', startRaw, 'a case GUID');
  }
  const excludeRaw = (get('x-csw-exclude-revisions') ?? '').trim();
  const excludeRevisions = excludeRaw === '' ? [] : excludeRaw.split(',').map((r) => revisionOf('x-csw-exclude-revisions', r));
  return {
    device: deviceOf(get),
    lastRevision: last ?? 0,
    hasLastRevision: last !== undefined,
    startAfter,
    count,
    // The client sends the universe quoted; CSWeb trims the quotes.
    universe: unquote(get('x-csw-universe') ?? ''),
    excludeRevisions,
  };
}

/** Parses the headers of `POST …/cases`. */
export function parseUploadHeaders(get: HeaderGetter): UploadRequest {
  const own = get('x-csw-if-revision-exists');
  const ifRevisionExists = own !== undefined && own.trim() !== '' ? revisionOf('x-csw-if-revision-exists', own) : undefined;
  return { device: deviceOf(get), ...(ifRevisionExists !== undefined ? { ifRevisionExists } : {}) };
}

/**
 * True when `GET …/cases` is the sync download rather than the spec's case list: the client
 * always sends `x-csw-*` headers (at least the device and the chunk size); a list request never
 * does. `If-Match` alone also selects sync, as the official swagger describes it.
 */
export function isSyncDownload(get: HeaderGetter, headerNames: Iterable<string>): boolean {
  for (const name of headerNames) if (name.toLowerCase().startsWith('x-csw-')) return true;
  return (get('if-match') ?? '') !== '';
}

/**
 * Whether a folder listing should give each file's md5 (`x-csw-get-file-md5`, a JSON boolean CSPro
 * 8.1 sends; docs/sync.md#files): only an explicit `false` turns it off, since 8.0 clients send no
 * header and need the md5 of every file.
 */
export function wantsFileMd5(get: HeaderGetter): boolean {
  const raw = get('x-csw-get-file-md5');
  if (raw === undefined || raw.trim() === '') return true;
  const v = raw.trim().toLowerCase();
  if (v === 'false') return false;
  if (v === 'true') return true;
  throw invalid('x-csw-get-file-md5', raw, 'true or false');
}
