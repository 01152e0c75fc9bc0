/**
 * How deep the arrays and objects of a JSON text nest, found by a scan of its bytes (or
 * characters) before anything is parsed: `JSON.parse` of a few megabytes of `[[[[…` builds
 * millions of nested arrays (hundreds of MB) before it fails, so deep input is refused first
 * (docs/limits.md). Only string and escape state is kept; inside a string the scan jumps from
 * quote to quote with `indexOf`, so a body of long strings costs little. Pure; no I/O.
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
  push(chunk: Uint8Array): number {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    const at = this.scan(
      buf.length,
      (i) => buf[i]!,
      (from) => buf.indexOf(QUOTE, from),
    );
    const base = this.consumed;
    this.consumed += buf.length;
    return at < 0 ? -1 : base + at;
  }

  /** Scans a string (e.g. a `level-1` JSON text inside a case); the character offset, or -1. */
  pushText(text: string): number {
    const at = this.scan(
      text.length,
      (i) => text.charCodeAt(i),
      (from) => text.indexOf('"', from),
    );
    this.consumed += text.length;
    return at;
  }

  private scan(n: number, at: (i: number) => number, nextQuote: (from: number) => number): number {
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    const limit = this.limit;
    let i = 0;
    let found = -1;
    while (i < n) {
      if (inString) {
        if (escaped) {
          escaped = false;
          i += 1;
          continue;
        }
        const q = nextQuote(i);
        if (q < 0) {
          // The string goes on in the next chunk: an odd run of backslashes at the end escapes
          // the first character of that chunk.
          let k = n - 1;
          while (k >= i && at(k) === BACKSLASH) k -= 1;
          escaped = (n - 1 - k) % 2 === 1;
          break;
        }
        let k = q - 1;
        while (k >= i && at(k) === BACKSLASH) k -= 1;
        if ((q - 1 - k) % 2 === 0) inString = false;
        i = q + 1;
        continue;
      }
      const b = at(i);
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
    return found;
  }
}

/** The offset of the first bracket nested deeper than `limit` in `text` (bytes or a string), or -1. */
export function jsonDepthExceeded(text: Uint8Array | string, limit: number): number {
  const scanner = new JsonDepthScanner(limit);
  return typeof text === 'string' ? scanner.pushText(text) : scanner.push(text);
}
