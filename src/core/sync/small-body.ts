import { inflateSync } from 'node:zlib';
import { JsonDepthScanner } from '../../shared/json-depth.js';
import { isCssyncContainer } from '../../sync/cssync-container.js';

/**
 * A small zlib body's JSON inflated in one call to at most `maxJsonBytes`; undefined when it does
 * not inflate cleanly within that, or is a `cssync` container (which is read as a stream). The
 * one call of the main thread's small-body path (upload-body.ts) and of a check thread alike.
 */
export function inflateSmallJson(bytes: Uint8Array, maxJsonBytes: number): Buffer | undefined {
  let json: Buffer;
  try {
    json = inflateSync(bytes, { maxOutputLength: maxJsonBytes });
  } catch {
    return undefined;
  }
  return isCssyncContainer(json) ? undefined : json;
}

/**
 * The cases of a small zlib upload body (DeferredSmallBody) read in one go, as a check thread
 * reads it: inflated in one call to at most `maxJsonBytes`, scanned for nesting deeper than
 * `jsonDepth`, parsed whole. Undefined when any of that does not go cleanly (a corrupt or cut
 * stream, too much JSON, a `cssync` container, too deep, not a JSON array): the body is then
 * read again on the main thread, which refuses it exactly as it refuses any body.
 */
export function readSmallBody(
  bytes: Uint8Array,
  maxJsonBytes: number,
  jsonDepth: number,
): { jsonBytes: number; values: unknown[] } | undefined {
  const json = inflateSmallJson(bytes, maxJsonBytes);
  if (!json || new JsonDepthScanner(jsonDepth).push(json) >= 0) return undefined;
  const bom = json[0] === 0xef && json[1] === 0xbb && json[2] === 0xbf;
  let values: unknown;
  try {
    values = JSON.parse(json.toString('utf8', bom ? 3 : 0));
  } catch {
    return undefined;
  }
  return Array.isArray(values) ? { jsonBytes: json.length, values } : undefined;
}
