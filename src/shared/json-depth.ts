/**
 * How deep the arrays and objects of a JSON text nest, found by a scan of its bytes (or
 * characters) before anything is parsed: `JSON.parse` of a few megabytes of `[[[[…` builds
 * millions of nested arrays (hundreds of MB) before it fails, so deep input is refused first
 * (docs/limits.md). Only string and escape state is kept. The scan is a tight loop per input
 * kind (bytes, characters) with its state in locals, and the bytes of a string in a loop of their
 * own: jumping between quotes with `indexOf` costs a native call per quote, and the `level-1`
 * texts inside an upload are mostly escaped quotes. Pure; no I/O.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * A depth scan fed in chunks (a body as it arrives). `push` answers the offset of the first
 * bracket that opens level `limit + 1`, or -1; the state (depth, string, escape) carries over.
 */
export class JsonDepthScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private consumed = 0;

  constructor(readonly limit: number) {}

  /** Scans the next bytes; the body offset of the bracket past the limit, or -1. */
  push(input: Uint8Array): number {
    // A plain Uint8Array view of a Buffer: the loop then reads one kind of array only and stays on
    // V8's fast path, whatever it was fed first (bench/README.md, "The depth scan").
    const chunk = input.constructor === Uint8Array ? input : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    const limit = this.limit;
    const n = chunk.length;
    let found = -1;
    let i = 0;
    while (i < n) {
      if (inString) {
        if (escaped) {
          escaped = false;
          i += 1;
          continue;
        }
        // The string's own bytes, up to its closing quote, in a loop of their own.
        for (; i < n; i++) {
          const c = chunk[i]!;
          if (c === BACKSLASH) {
            if (i + 1 < n) i += 1;
            else escaped = true;
          } else if (c === QUOTE) {
            inString = false;
            break;
          }
        }
        i += 1;
        continue;
      }
      const b = chunk[i]!;
      if (b === QUOTE) inString = true;
      else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
        depth += 1;
        if (depth > limit) {
          found = i;
          break;
        }
      } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) depth -= 1;
      i += 1;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    const base = this.consumed;
    this.consumed += n;
    return found < 0 ? -1 : base + found;
  }

  /** Scans a string (e.g. a `level-1` JSON text inside a case); the character offset, or -1. */
  pushText(text: string): number {
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    const limit = this.limit;
    const n = text.length;
    let found = -1;
    let i = 0;
    while (i < n) {
      if (inString) {
        if (escaped) {
          escaped = false;
          i += 1;
          continue;
        }
        // The string's own bytes, up to its closing quote, in a loop of their own.
        for (; i < n; i++) {
          const c = text.charCodeAt(i);
          if (c === BACKSLASH) {
            if (i + 1 < n) i += 1;
            else escaped = true;
          } else if (c === QUOTE) {
            inString = false;
            break;
          }
        }
        i += 1;
        continue;
      }
      const b = text.charCodeAt(i);
      if (b === QUOTE) inString = true;
      else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
        depth += 1;
        if (depth > limit) {
          found = i;
          break;
        }
      } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) depth -= 1;
      i += 1;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    this.consumed += n;
    return found;
  }
}

/** True when `text` has at most `limit` opening brackets in all, strings included: it cannot nest deeper. */
function fewOpenings(text: string, limit: number): boolean {
  let count = 0;
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i >= 0; i = text.indexOf(bracket, i + 1)) {
      count += 1;
      if (count > limit) return false;
    }
  }
  return true;
}

/** The offset of the first bracket nested deeper than `limit` in `text` (bytes or a string), or -1. */
export function jsonDepthExceeded(text: Uint8Array | string, limit: number): number {
  if (typeof text !== 'string') return new JsonDepthScanner(limit).push(text);
  // A case's `level-1` nests a few levels and opens a few dozen brackets: counting them with
  // the engine's own search is much cheaper than scanning every character.
  if (fewOpenings(text, limit)) return -1;
  return new JsonDepthScanner(limit).pushText(text);
}
