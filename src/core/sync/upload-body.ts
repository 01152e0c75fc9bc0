import { Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import { AppError } from '../../shared/errors.js';
import { bodyEncodingOf } from '../../sync/body-encoding.js';
import { containerInvalid, CssyncReader, isCssyncContainer, type CssyncItemHeader } from '../../sync/cssync-container.js';
import { JsonArrayError, parseJsonArrayBatches } from '../../sync/json-array-splitter.js';
import { caseError } from '../../cspro/case/case-result.js';
import type { MemoryLease } from '../../shared/memory-budget.js';
import { UPLOAD_MEMORY_FACTOR } from '../home/index.js';
import { inflateSmallJson } from './small-body.js';

/** Reads from `input` until at least `n` bytes arrived (or it ended); returns them and the rest. */
async function peek(input: Readable, n: number): Promise<{ head: Buffer; rest: AsyncIterator<Buffer> }> {
  const it = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const parts: Buffer[] = [];
  let size = 0;
  while (size < n) {
    const next = await it.next();
    if (next.done) break;
    const chunk = Buffer.from(next.value);
    parts.push(chunk);
    size += chunk.length;
  }
  return { head: Buffer.concat(parts), rest: it };
}

/** The inflated body's bytes as they pass, at most `maxBytes` of them. */
async function* metered(body: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Buffer> {
  let seen = 0;
  for await (const chunk of body) {
    seen += chunk.length;
    if (seen > maxBytes)
      throw new AppError('PAYLOAD_TOO_LARGE', `the upload is larger than the limit of ${maxBytes} bytes of JSON`, { limit: maxBytes });
    yield chunk;
  }
}

/** A failure of zlib itself (a stream cut short, corrupt data, a wrong checksum), as opposed to the socket's. */
function isZlibError(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code?.startsWith('Z_') === true;
}

/**
 * An inflated container's bytes, with a break of its compression told as the container's fault
 * (SYNC_CONTAINER_INVALID at the inflated byte it came to), as the same cut uncompressed is: it
 * may come up while a binary item streams to its file, whose writer would take anything else
 * for a failure of the disk.
 */
async function* containerBytes(body: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let at = 0;
  try {
    for await (const chunk of body) {
      at += chunk.length;
      yield chunk;
    }
  } catch (err) {
    if (!isZlibError(err)) throw err;
    throw containerInvalid(`is cut short or corrupt inside its compression (${(err as Error).message})`, at);
  }
}

/**
 * Seconds a refused upload is told to wait (Retry-After): about what a large upload in flight
 * takes to be stored and give its memory back (docs/limits.md#memory-of-uploads-in-flight).
 */
const BUSY_RETRY_SECONDS = 5;

/**
 * The inflated body's bytes as they pass, each charged UPLOAD_MEMORY_FACTOR times to `lease`
 * before anything holds it: the bytes, their text, the parsed cases and the text to store
 * (docs/limits.md#memory-of-uploads-in-flight). A charge the budget cannot take is 503
 * SERVER_BUSY, thrown before the cases are written, so nothing of the upload is stored.
 */
async function* charged(body: AsyncIterable<Buffer>, lease: MemoryLease, budgetBytes: number | undefined): AsyncGenerator<Buffer> {
  for await (const chunk of body) {
    if (!lease.reserve(chunk.length * UPLOAD_MEMORY_FACTOR)) {
      const budget = budgetBytes === undefined ? '' : ` (limits.upload_memory_bytes, ${budgetBytes} bytes)`;
      throw new AppError(
        'SERVER_BUSY',
        `the sync uploads in flight hold all the memory this server allows them${budget}; nothing of this upload was stored: send it again in ${BUSY_RETRY_SECONDS} s`,
        { retry_after: BUSY_RETRY_SECONDS },
      );
    }
    yield chunk;
  }
}

/** `heads`, then the rest of an iterator: the chunks a peek took, put back as they came. */
async function* rejoined(heads: readonly Buffer[], rest: AsyncIterator<Buffer>): AsyncGenerator<Buffer> {
  for (const head of heads) if (head.length > 0) yield head;
  for (let n = await rest.next(); !n.done; n = await rest.next()) yield Buffer.from(n.value);
}

/**
 * Compressed bodies up to this many bytes are read whole and inflated in one call on the main
 * thread (`inflatedSmall`): every upload the data-collection client sends (a few hundred cases,
 * tens of KB compressed). A zlib stream in the thread pool hands its output back in 16 KiB
 * chunks, one round trip each; the one call costs less CPU and no waiting (docs/decisions.md,
 * "Small uploads inflated in one call").
 */
const SMALL_BODY_BYTES = 1024 * 1024;

/**
 * The most JSON a small body is inflated to in one call: many times a client's upload, and little
 * main-thread time lost on a body that inflates past it and goes the stream's way.
 */
const SMALL_JSON_BYTES = 4 * 1024 * 1024;

/**
 * The chunks of a body, `head` first, read on from `rest` until more than `n` bytes came or it
 * ended; `rest` goes on after them. The chunks are kept as they came: a body that goes the stream's way after
 * all meets zlib in the same pieces, so it fails, and is charged, as it would have.
 */
async function readSmall(head: Buffer, rest: AsyncIterator<Buffer>, n: number): Promise<{ parts: Buffer[]; ended: boolean }> {
  const parts = [head];
  let size = head.length;
  while (size <= n) {
    const next = await rest.next();
    if (next.done) return { parts, ended: true };
    const chunk = Buffer.from(next.value);
    parts.push(chunk);
    size += chunk.length;
  }
  return { parts, ended: false };
}

/**
 * A small zlib body's JSON, inflated in one call and charged to `memory` as a whole, when that
 * is sure to end as the stream would: it inflates cleanly to at most `maxBytes`, it is not a
 * `cssync` container, and the budget takes it. Otherwise undefined, and the body goes the
 * stream's way, which gives each refusal (413, 503, a corrupt or cut stream, the container's own
 * errors) exactly as it does for a large body.
 */
function inflatedSmall(body: Buffer, maxBytes: number, memory: MemoryLease | undefined): Buffer | undefined {
  const json = inflateSmallJson(body, maxBytes);
  if (!json) return undefined;
  if (memory && !memory.reserve(json.length * UPLOAD_MEMORY_FACTOR)) return undefined;
  return json;
}

/** One buffer as a body of one chunk (none when empty, as a stream that ends at once). */
async function* single(bytes: Buffer): AsyncGenerator<Buffer> {
  if (bytes.length > 0) yield bytes;
}

/**
 * A small zlib body (at most SMALL_BODY_BYTES, arrived whole) that `readUploadBodyDeferring`
 * hands to its reader before reading it: the reader may read and check it elsewhere (a check
 * thread: check-pool.ts) and set `taken`; otherwise, once the reader asks for the next batch, it
 * is read as `readUploadBody` reads it, with the same refusals.
 */
export class DeferredSmallBody {
  /** Set by the reader when it read the body itself: `readUploadBody` then ends. */
  taken = false;

  constructor(
    /** The compressed bytes, as they came. */
    readonly bytes: Buffer,
    /** The most JSON it may inflate to before it is no longer read in one call. */
    readonly maxJsonBytes: number,
    /** The nesting limit of its JSON (limits.json_depth). */
    readonly jsonDepth: number,
  ) {}
}

/** Where the binary items of a `cssync` container go (core/sync/binary-items.ts): called once per item, in order. */
export type BinaryItemSink = (header: CssyncItemHeader, content: AsyncIterable<Buffer>) => Promise<void>;

/** The limits an upload body is read under (docs/limits.md). */
export interface UploadBodyLimits {
  requestBytes: number;
  jsonDepth: number;
  /** Bytes of one binary item's content in a `cssync` container. */
  binaryItemBytes: number;
  /** The size of the budget `memory` leases from, named when an upload is refused for it. */
  uploadMemoryBytes?: number;
}

/**
 * The elements of a sync upload body (`input`, the request's bytes), in batches (json-array-splitter: a body of the usual size
 * parsed whole, a very large one split as it arrives), after inflating it when the bytes say it
 * is compressed (zlib as the client sends it, or gzip), whatever `Content-Encoding` claims. More
 * than `limits.requestBytes` of JSON is 413 (counted as it inflates, so a compression bomb stops
 * there); nesting deeper than `limits.jsonDepth` is 400 JSON_TOO_DEEP before anything is parsed;
 * broken JSON is CASE_INVALID naming the element where reading stopped (docs/limits.md). A body
 * in the `cssync` container (docs/sync.md#binary-items) yields its case JSON the same way, then
 * hands each binary item's content to `sink` as it streams in, before the generator ends; its
 * compression cut short or corrupt is SYNC_CONTAINER_INVALID, as the same cut uncompressed. With
 * `memory`, every inflated byte of JSON is charged to it before it is held (`charged`, above):
 * the caller releases the lease once the upload is stored or refused.
 */
export function readUploadBody(
  input: Readable,
  limits: UploadBodyLimits,
  sink?: BinaryItemSink,
  memory?: MemoryLease,
): AsyncGenerator<unknown[]> {
  return readBody(input, limits, sink, memory, false) as AsyncGenerator<unknown[]>;
}

/** `readUploadBody` that first yields a small zlib body unread (DeferredSmallBody), for the caller to read elsewhere. */
export function readUploadBodyDeferring(
  input: Readable,
  limits: UploadBodyLimits,
  sink?: BinaryItemSink,
  memory?: MemoryLease,
): AsyncGenerator<unknown[] | DeferredSmallBody> {
  return readBody(input, limits, sink, memory, true);
}

async function* readBody(
  input: Readable,
  limits: UploadBodyLimits,
  sink: BinaryItemSink | undefined,
  memory: MemoryLease | undefined,
  deferSmall: boolean,
): AsyncGenerator<unknown[] | DeferredSmallBody> {
  const maxBytes = limits.requestBytes;
  const { head, rest } = await peek(input, 6);
  if (head.length === 0) throw new AppError('USAGE', 'the upload has no body: send a JSON array of cases');
  const encoding = bodyEncodingOf(head);
  let decoded: Readable | undefined;
  let next = 0;
  try {
    let parts = [head];
    if (encoding === 'zlib') {
      const small = await readSmall(head, rest, SMALL_BODY_BYTES);
      const whole = small.ended ? (small.parts.length === 1 ? head : Buffer.concat(small.parts)) : undefined;
      if (whole && deferSmall) {
        const deferred = new DeferredSmallBody(whole, Math.min(maxBytes, SMALL_JSON_BYTES), limits.jsonDepth);
        yield deferred;
        if (deferred.taken) return;
      }
      const json = whole ? inflatedSmall(whole, Math.min(maxBytes, SMALL_JSON_BYTES), memory) : undefined;
      if (json) {
        // The stream gave other requests (download pages) a turn between its chunks; the one
        // call would hold the event loop from the body's last byte to its batches: one turn here.
        await new Promise((resolve) => setImmediate(resolve));
        for await (const batch of parseJsonArrayBatches(single(json), undefined, limits.jsonDepth)) {
          next += batch.length;
          yield batch;
        }
        return;
      }
      parts = small.parts;
    }
    const raw = Readable.from(rejoined(parts, rest));
    decoded = encoding === 'gzip' ? raw.pipe(createGunzip()) : encoding === 'zlib' ? raw.pipe(createInflate()) : raw;
    if (encoding !== 'identity') raw.on('error', (err) => decoded!.destroy(err));
    const inflated = await peek(decoded, 6);
    const body = rejoined([inflated.head], inflated.rest);
    if (isCssyncContainer(inflated.head)) {
      if (!sink) throw new AppError('SYNC_BINARY_UNSUPPORTED', 'the upload is a cssync binary container, not accepted here');
      const reader = new CssyncReader(containerBytes(body), { jsonBytes: maxBytes, itemBytes: limits.binaryItemBytes });
      // Only the case JSON is charged: each binary item streams to its file, never held whole.
      const json = memory ? charged(reader.cases(), memory, limits.uploadMemoryBytes) : reader.cases();
      for await (const batch of parseJsonArrayBatches(json, undefined, limits.jsonDepth)) {
        next += batch.length;
        yield batch;
      }
      for (let item = await reader.nextItem(); item; item = await reader.nextItem()) await sink(item.header, item.content);
      return;
    }
    const json = memory ? charged(metered(body, maxBytes), memory, limits.uploadMemoryBytes) : metered(body, maxBytes);
    for await (const batch of parseJsonArrayBatches(json, undefined, limits.jsonDepth)) {
      next += batch.length;
      yield batch;
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    const why = isZlibError(err) ? 'the compressed body is corrupt' : (err as Error).message;
    const index = err instanceof JsonArrayError ? err.index : next;
    throw caseError(`the upload is not a JSON array of cases readable past element ${index}: ${why}; nothing of this upload was stored`, {
      index,
    });
  } finally {
    decoded?.destroy();
    input.resume();
  }
}
