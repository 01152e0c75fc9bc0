/**
 * The `cssync` container of the CSPro sync protocol (docs/sync.md#binary-items): a body that
 * carries binary case items beside the case JSON. Layout, integers 32-bit little-endian:
 *
 *   "cssync"  version (1)  n + n bytes of the case JSON array
 *   then for each binary item:  n + n bytes of a JSON header  n + n bytes of content
 *
 * The header is `{"caseid": uuid, "signature": md5}` (8.0.1 clients add `length` and
 * `metadata`; 8.1 writes `uuid` for `caseid`). The reader streams: the case JSON and each
 * content pass through as chunks, never held whole. Pure: no I/O, only the bytes given.
 */
import { AppError } from '../shared/errors.js';

const MAGIC = Buffer.from('cssync', 'latin1');
const VERSION = 1;

/** Whether a body (after inflating) starts with the container's magic. */
export function isCssyncContainer(head: Uint8Array): boolean {
  return head.length >= MAGIC.length && Buffer.from(head.subarray(0, MAGIC.length)).equals(MAGIC);
}

/** What the container says of one binary item before its content. */
export interface CssyncItemHeader {
  /** The md5 (hex, lower case) of the content. */
  signature: string;
  /** The case it belongs to (`caseid`, or `uuid` of 8.1), when given. */
  caseId?: string;
  /** The header as sent (metadata and all). */
  raw: Record<string, unknown>;
}

/** Limits the reader enforces from the lengths, before reading what they announce. */
export interface CssyncLimits {
  /** Bytes of the case JSON; more is 413 PAYLOAD_TOO_LARGE. */
  jsonBytes: number;
  /** Bytes of one item's content; more is 413 PAYLOAD_TOO_LARGE. */
  itemBytes: number;
}

/** A header is a small object: more than this is not one. */
const MAX_HEADER_BYTES = 64 * 1024;
const MD5 = /^[0-9a-fA-F]{32}$/;

/** SYNC_CONTAINER_INVALID: the container `message` (is cut short, gives …) at byte `offset` of the container. */
export function containerInvalid(message: string, offset: number): AppError {
  return new AppError('SYNC_CONTAINER_INVALID', `the cssync container ${message} (at byte ${offset}); nothing was stored`, { offset });
}

const invalid = containerInvalid;

/**
 * Reads a container from `source` in order: `cases()` first (the case JSON's bytes), then
 * `nextItem()` until it returns undefined, draining each item's `content` before asking for the
 * next. A length past the end, a negative or absurd length, a header that is not JSON naming a
 * signature, or bytes after the last item's content that do not make a whole item is
 * SYNC_CONTAINER_INVALID with the byte offset.
 */
export class CssyncReader {
  private readonly it: AsyncIterator<Uint8Array>;
  private buf: Buffer = Buffer.alloc(0);
  private ended = false;
  /** Bytes consumed from the body so far. */
  offset = 0;
  private stage: 'start' | 'items' = 'start';

  constructor(
    source: AsyncIterable<Uint8Array>,
    private readonly limits: CssyncLimits,
  ) {
    this.it = source[Symbol.asyncIterator]();
  }

  /** Makes at least `n` bytes available; false when the body ends first. */
  private async fill(n: number): Promise<boolean> {
    while (this.buf.length < n && !this.ended) {
      const next = await this.it.next();
      if (next.done) this.ended = true;
      else this.buf = this.buf.length === 0 ? Buffer.from(next.value) : Buffer.concat([this.buf, next.value]);
    }
    return this.buf.length >= n;
  }

  private take(n: number): Buffer {
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    this.offset += n;
    return out;
  }

  private async int32(what: string): Promise<number> {
    if (!(await this.fill(4))) throw invalid(`ends inside the length of ${what}`, this.offset + this.buf.length);
    const at = this.offset;
    const v = this.take(4).readInt32LE(0);
    if (v < 0) throw invalid(`gives a negative length (${v}) for ${what}`, at);
    return v;
  }

  /** `n` bytes as they arrive, in chunks; the body ending first is SYNC_CONTAINER_INVALID. */
  private async *section(n: number, what: string): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (this.buf.length === 0 && !(await this.fill(1))) throw invalid(`ends ${left} bytes before the end of ${what}`, this.offset);
      const part = this.take(Math.min(left, this.buf.length));
      left -= part.length;
      yield part;
    }
  }

  private async whole(n: number, what: string): Promise<Buffer> {
    const parts: Buffer[] = [];
    for await (const p of this.section(n, what)) parts.push(p);
    return Buffer.concat(parts);
  }

  /** The magic and version, then the case JSON's bytes as they arrive. */
  async *cases(): AsyncGenerator<Buffer> {
    if (this.stage !== 'start') throw new AppError('INTERNAL', 'cssync reader: cases() reads the container once, first');
    if (!(await this.fill(MAGIC.length)) || !this.buf.subarray(0, MAGIC.length).equals(MAGIC)) {
      throw invalid('does not start with "cssync"', 0);
    }
    this.take(MAGIC.length);
    const versionAt = this.offset;
    const version = await this.int32('the version');
    if (version !== VERSION) throw invalid(`has version ${version}; only version ${VERSION} is known`, versionAt);
    const lengthAt = this.offset;
    const n = await this.int32('the case JSON');
    if (n > this.limits.jsonBytes) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `the case JSON of the upload is ${n} bytes, more than the limit of ${this.limits.jsonBytes}`,
        {
          limit: this.limits.jsonBytes,
          offset: lengthAt,
        },
      );
    }
    this.stage = 'items';
    yield* this.section(n, 'the case JSON');
  }

  /**
   * The next binary item's header and its content as it arrives (drain `content` before calling
   * again), or undefined at the end of the body.
   */
  async nextItem(): Promise<{ header: CssyncItemHeader; length: number; content: AsyncIterable<Buffer> } | undefined> {
    if (this.stage !== 'items') throw new AppError('INTERNAL', 'cssync reader: nextItem() comes after cases() is read');
    if (!(await this.fill(1))) return undefined;
    const headerAt = this.offset;
    const hn = await this.int32('a binary item header');
    if (hn > MAX_HEADER_BYTES) throw invalid(`gives a binary item header of ${hn} bytes, more than ${MAX_HEADER_BYTES}`, headerAt);
    const text = (await this.whole(hn, 'a binary item header')).toString('utf8');
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw invalid('has a binary item header that is not JSON', headerAt + 4);
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw invalid('has a binary item header that is not an object', headerAt + 4);
    const h = raw as Record<string, unknown>;
    if (typeof h.signature !== 'string' || !MD5.test(h.signature)) {
      throw invalid('has a binary item header without an md5 signature', headerAt + 4);
    }
    const caseId = typeof h.caseid === 'string' ? h.caseid : typeof h.uuid === 'string' ? h.uuid : undefined;
    const header: CssyncItemHeader = { signature: h.signature.toLowerCase(), raw: h, ...(caseId !== undefined ? { caseId } : {}) };
    const lengthAt = this.offset;
    const length = await this.int32(`the content of binary item ${header.signature}`);
    if (length > this.limits.itemBytes) {
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `binary item ${header.signature} is ${length} bytes, more than the limit of ${this.limits.itemBytes}; nothing was stored`,
        { limit: this.limits.itemBytes, signature: header.signature, offset: lengthAt },
      );
    }
    return { header, length, content: this.section(length, `binary item ${header.signature}`) };
  }
}

/** One binary item to put in a container. */
export interface CssyncItem {
  header: Record<string, unknown>;
  content: Buffer;
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n, 0);
  return b;
}

/** The bytes before the case JSON: magic, version and the JSON's length. */
export function cssyncHead(jsonLength: number): Buffer {
  return Buffer.concat([MAGIC, int32(VERSION), int32(jsonLength)]);
}

/** The bytes before one item's content: its header's length, the header, the content's length. */
export function cssyncItemHead(header: Record<string, unknown>, contentLength: number): Buffer {
  const h = Buffer.from(JSON.stringify(header), 'utf8');
  return Buffer.concat([int32(h.length), h, int32(contentLength)]);
}

/** A container's bytes, in parts (the case JSON given as text or bytes). */
export function* writeCssyncContainer(casesJson: string | Buffer, items: Iterable<CssyncItem>): Generator<Buffer> {
  const json = typeof casesJson === 'string' ? Buffer.from(casesJson, 'utf8') : casesJson;
  yield cssyncHead(json.length);
  yield json;
  for (const item of items) {
    yield cssyncItemHead(item.header, item.content.length);
    yield item.content;
  }
}
