/**
 * Splits a top-level JSON array into its elements as the bytes arrive, without parsing them:
 * it tracks only string, escape and bracket state, and hands back each element's text whole, so
 * the caller runs the engine's own `JSON.parse` per element (an order of magnitude faster than a
 * token-by-token streaming parser) while memory stays bounded by one element and one chunk.
 * An element's bytes are decoded only once complete, so a UTF-8 character split across chunks
 * is never cut. A leading byte-order mark and whitespace around the elements are allowed;
 * anything else outside the elements (no `[`, a missing comma, text after `]`, a body that ends
 * early) is an error naming the element and the byte offset. Pure; no I/O.
 */

import { AppError } from '../shared/errors.js';
import { JsonDepthScanner } from '../shared/json-depth.js';
import { DEFAULT_CASE_LIMITS } from '../cspro/case/case-limits.js';

/** Malformed input: which element (0-based) was being read, and the byte offset in the body. */
export class JsonArrayError extends Error {
  constructor(
    message: string,
    readonly index: number,
    readonly offset: number,
  ) {
    super(message);
    this.name = 'JsonArrayError';
  }
}

/** One element's text, its 0-based index and the byte offset where it starts. */
export interface JsonArrayElement {
  index: number;
  offset: number;
  text: string;
}

const enum State {
  /** Before the `[` (a BOM and whitespace may come first). */
  Start,
  /** After `[` or a comma: an element (or, right after `[`, the `]`) comes next. */
  BeforeElement,
  /** Inside an element. */
  InElement,
  /** After an element: a comma or `]` comes next. */
  AfterElement,
  /** After the closing `]`: only whitespace may follow. */
  Done,
}

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const BOM = [0xef, 0xbb, 0xbf];

const isSpace = (b: number) => b === SPACE || b === LF || b === CR || b === TAB;

function describe(b: number): string {
  return b >= 0x21 && b < 0x7f ? `"${String.fromCharCode(b)}"` : `byte 0x${b.toString(16).padStart(2, '0')}`;
}

export class JsonArraySplitter {
  private state = State.Start;
  /** Bytes of the body seen before the current chunk. */
  private consumed = 0;
  /** BOM bytes matched so far at the very start. */
  private bomSeen = 0;
  /** Index of the element being read (or next to be read). */
  private next = 0;
  /** Pieces of the current element from earlier chunks. */
  private pieces: Uint8Array[] = [];
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The current element is a bare scalar (number, true, false, null): it ends at a delimiter. */
  private scalar = false;
  /** Byte offset where the current element starts. */
  private elementOffset = 0;

  /** The 0-based index of the element being read, or of the next one. */
  get index(): number {
    return this.next;
  }

  /** Feeds the next bytes; returns the elements completed by them, as text. */
  push(chunk: Uint8Array): JsonArrayElement[] {
    const out: JsonArrayElement[] = [];
    let start = this.state === State.InElement ? 0 : -1;
    const n = chunk.length;
    for (let i = 0; i < n; i++) {
      if (this.state === State.InElement && !this.scalar) {
        // The hot path: the bytes inside an object or string element, scanned with local state.
        const end = this.scanElement(chunk, i);
        if (end < 0) break;
        out.push(this.take(chunk, start, end + 1));
        this.state = State.AfterElement;
        i = end;
        continue;
      }
      const b = chunk[i]!;
      switch (this.state) {
        case State.InElement:
          if (this.inString) {
            if (this.escaped) this.escaped = false;
            else if (b === BACKSLASH) this.escaped = true;
            else if (b === QUOTE) {
              this.inString = false;
              if (this.depth === 0) {
                out.push(this.take(chunk, start, i + 1));
                this.state = State.AfterElement;
              }
            }
          } else if (this.scalar) {
            if (isSpace(b) || b === COMMA || b === CLOSE_ARRAY) {
              out.push(this.take(chunk, start, i));
              this.state = State.AfterElement;
              i -= 1; // the delimiter is read again as what follows the element
            }
          } else if (b === QUOTE) this.inString = true;
          else if (b === OPEN_OBJECT || b === OPEN_ARRAY) this.depth += 1;
          else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
            this.depth -= 1;
            if (this.depth === 0) {
              out.push(this.take(chunk, start, i + 1));
              this.state = State.AfterElement;
            }
          }
          break;
        case State.Start:
          if (this.consumed + i === this.bomSeen && this.bomSeen < 3 && b === BOM[this.bomSeen]) this.bomSeen += 1;
          else if (b === OPEN_ARRAY && (this.bomSeen === 0 || this.bomSeen === 3)) this.state = State.BeforeElement;
          else if (!isSpace(b) || (this.bomSeen > 0 && this.bomSeen < 3))
            this.fail(`expected "[" to open the array, found ${describe(b)}`, i);
          break;
        case State.BeforeElement:
        case State.AfterElement:
          if (isSpace(b)) break;
          if (this.state === State.AfterElement) {
            if (b === COMMA) this.state = State.BeforeElement;
            else if (b === CLOSE_ARRAY) this.state = State.Done;
            else this.fail(`expected "," or "]" after element ${this.next - 1}, found ${describe(b)}`, i);
            break;
          }
          if (b === CLOSE_ARRAY) {
            if (this.next > 0) this.fail('expected an element after ",", found "]"', i);
            this.state = State.Done;
            break;
          }
          if (b === COMMA) this.fail('expected an element, found ","', i);
          start = i;
          this.elementOffset = this.consumed + i;
          this.state = State.InElement;
          this.depth = 0;
          this.inString = false;
          this.escaped = false;
          this.scalar = false;
          if (b === QUOTE) this.inString = true;
          else if (b === OPEN_OBJECT || b === OPEN_ARRAY) this.depth = 1;
          else this.scalar = true;
          break;
        case State.Done:
          if (!isSpace(b)) this.fail(`unexpected ${describe(b)} after the closing "]"`, i);
          break;
      }
    }
    if (this.state === State.InElement) this.pieces.push(chunk.subarray(start));
    this.consumed += n;
    return out;
  }

  /**
   * Scans an object, array or string element from `from`: the index of the byte that closes it,
   * or -1 when the chunk ends first (the state is kept for the next chunk). Same rules as the
   * general loop, with the state in locals so the engine keeps it in registers.
   */
  private scanElement(chunk: Uint8Array, from: number): number {
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    const n = chunk.length;
    let i = from;
    for (; i < n; i++) {
      const b = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (b === BACKSLASH) escaped = true;
        else if (b === QUOTE) {
          inString = false;
          if (depth === 0) break;
        }
      } else if (b === QUOTE) inString = true;
      else if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth += 1;
      else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        depth -= 1;
        if (depth === 0) break;
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return i < n ? i : -1;
  }

  /** Declares the end of the body; throws when the array is not complete. */
  end(): void {
    if (this.state === State.Done) return;
    if (this.state === State.Start) this.fail(this.consumed === 0 ? 'the body is empty' : 'the body has no "[" to open the array', 0);
    this.fail(this.state === State.InElement ? `the body ends inside element ${this.next}` : 'the body ends before the closing "]"', 0);
  }

  /** The element that ends at `end` of this chunk; the count moves on. */
  private take(chunk: Uint8Array, start: number, end: number): JsonArrayElement {
    const last = chunk.subarray(start, end);
    let text: string;
    if (this.pieces.length === 0) text = Buffer.from(last.buffer, last.byteOffset, last.length).toString('utf8');
    else {
      this.pieces.push(last);
      text = Buffer.concat(this.pieces).toString('utf8');
      this.pieces = [];
    }
    return { index: this.next++, offset: this.elementOffset, text };
  }

  private fail(message: string, i: number): never {
    throw new JsonArrayError(message, this.next, this.consumed + i);
  }
}

/**
 * The elements of a JSON array read from `chunks`, each parsed with `JSON.parse` as soon as it is
 * complete. Malformed structure or an element that is not valid JSON throws JsonArrayError with
 * the element's index.
 */
export async function* parseJsonArray(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<unknown> {
  const splitter = new JsonArraySplitter();
  for await (const chunk of chunks) {
    for (const e of splitter.push(chunk)) {
      let value: unknown;
      try {
        value = JSON.parse(e.text);
      } catch (err) {
        throw new JsonArrayError(
          `element ${e.index} (from byte ${e.offset}) is not valid JSON: ${(err as Error).message}`,
          e.index,
          e.offset,
        );
      }
      yield value;
    }
  }
  splitter.end();
}

/**
 * The chunks of a body, each scanned for nesting before it is handed on: the first bracket
 * deeper than `maxDepth` (the array itself is depth 1) ends the body with JSON_TOO_DEEP, before
 * any of it is parsed (docs/limits.md).
 */
async function* depthChecked(chunks: AsyncIterable<Uint8Array>, maxDepth: number): AsyncGenerator<Uint8Array> {
  const scanner = new JsonDepthScanner(maxDepth);
  for await (const chunk of chunks) {
    const at = scanner.push(chunk);
    if (at >= 0) {
      throw new AppError(
        'JSON_TOO_DEEP',
        `the body nests arrays and objects deeper than the limit of ${maxDepth} (at byte ${at}); nothing of it was parsed or stored`,
        {
          limit: maxDepth,
          offset: at,
        },
      );
    }
    yield chunk;
  }
}

/** Bodies up to this many bytes are parsed by one `JSON.parse` (see parseJsonArrayBatches). */
const WHOLE_PARSE_LIMIT = 16 * 1024 * 1024;

const BATCH = 500;

/**
 * The elements of a JSON array read from `chunks`, in batches. A body that ends within
 * `wholeLimit` bytes (every upload the data-collection client sends: it syncs in chunks of a
 * few hundred cases) is parsed by one `JSON.parse`, about twice as fast as splitting it; one that
 * is not a valid array is then split as a stream would be, so its error names the same element.
 * A larger body is split as it arrives (parseJsonArray), with memory bounded by one batch.
 * Either way every chunk is first scanned for nesting: deeper than `maxDepth` is JSON_TOO_DEEP
 * before any of the body is parsed (docs/limits.md).
 */
export async function* parseJsonArrayBatches(
  chunks: AsyncIterable<Uint8Array>,
  wholeLimit = WHOLE_PARSE_LIMIT,
  maxDepth = DEFAULT_CASE_LIMITS.jsonDepth,
): AsyncGenerator<unknown[]> {
  const iterator = depthChecked(chunks, maxDepth)[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let size = 0;
  let ended = false;
  while (size <= wholeLimit) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    head.push(next.value);
    size += next.value.length;
  }
  if (ended) {
    // A body of one chunk (an upload inflated in one call) is read where it is, not copied.
    const only = head.length === 1 ? head[0] : undefined;
    const whole = only && Buffer.isBuffer(only) ? only : Buffer.concat(head);
    const hasBom = whole[0] === BOM[0] && whole[1] === BOM[1] && whole[2] === BOM[2];
    let value: unknown;
    try {
      value = JSON.parse(whole.toString('utf8', hasBom ? 3 : 0));
    } catch {
      value = undefined; // split below, for an error that names the element
    }
    if (Array.isArray(value)) {
      if (value.length > 0) yield value;
      return;
    }
  }
  const rest = async function* () {
    yield* head;
    if (!ended) for (let n = await iterator.next(); !n.done; n = await iterator.next()) yield n.value;
  };
  let batch: unknown[] = [];
  for await (const element of parseJsonArray(rest())) {
    batch.push(element);
    if (batch.length === BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
