/**
 * The cache header of the CSPro 8.1 data source (docs/sync.md#the-81-data-source): the cases the
 * client's local cache holds for a query, so the reply can send an empty object in place of each
 * one unchanged since. Pure.
 */

import { inflateRawSync, inflateSync } from 'node:zlib';
import { jsonDepthExceeded } from '../shared/json-depth.js';
import { DEFAULT_CASE_LIMITS } from '../cspro/case/case-limits.js';

/** The header's name, as CSPro 8.1.1 sends it and CSWeb 8.1 reads it (docs/sync.md#cached-cases). Kept here, and only here. */
export const CASES_CACHE_HEADER = 'x-csw-cases-cache';

export interface CasesCache {
  /** The server revision the client's cached cases were current at. */
  serverRevision: number;
  /** Positions of the cases it holds. */
  positions: ReadonlySet<number>;
}

function inflate(bytes: Buffer, maxBytes: number): Buffer | undefined {
  for (const fn of [inflateSync, inflateRawSync]) {
    try {
      return fn(bytes, { maxOutputLength: maxBytes });
    } catch {
      // Not this form (or larger than the limit): try the next, else the header is unreadable.
    }
  }
  return undefined;
}

/**
 * Reads the header: base64 of the zlib-compressed JSON `{"exclude": {"serverRevision": n,
 * "positions": [n, …]}}`. Undefined when it cannot be read, inflates past `maxBytes`, nests
 * deeper than `maxDepth` (the `json_depth` limit of bodies, checked before parsing), or has
 * another shape: the reply is then sent without placeholders, which is always correct, only
 * larger (docs/decisions.md, "The 8.1 data source").
 */
export function parseCasesCache(value: string, maxBytes: number, maxDepth: number = DEFAULT_CASE_LIMITS.jsonDepth): CasesCache | undefined {
  const bytes = Buffer.from(value.trim(), 'base64');
  if (bytes.length === 0) return undefined;
  const text = inflate(bytes, maxBytes);
  if (!text || jsonDepthExceeded(text, maxDepth) >= 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.toString('utf8'));
  } catch {
    return undefined;
  }
  const exclude = (parsed as { exclude?: unknown } | null)?.exclude as { serverRevision?: unknown; positions?: unknown } | undefined;
  if (typeof exclude !== 'object' || exclude === null) return undefined;
  const { serverRevision, positions } = exclude;
  if (typeof serverRevision !== 'number' || !Number.isSafeInteger(serverRevision) || !Array.isArray(positions)) return undefined;
  const set = new Set<number>();
  for (const p of positions) if (typeof p === 'number' && Number.isSafeInteger(p)) set.add(p);
  return { serverRevision, positions: set };
}
