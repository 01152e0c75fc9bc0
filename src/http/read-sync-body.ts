import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import type { Context } from 'hono';
import { AppError } from '../shared/errors.js';
import { readUploadBodyDeferring, type BinaryItemSink, type DeferredSmallBody, type UploadBodyLimits } from '../core/sync/index.js';
import type { MemoryLease } from '../shared/memory-budget.js';
import type { AppEnv } from './app-env.js';

function source(c: Context<AppEnv>): Readable {
  const s = c.env?.incoming ?? (c.req.raw.body ? Readable.fromWeb(c.req.raw.body as unknown as NodeWebStream<Uint8Array>) : undefined);
  if (!s) throw new AppError('USAGE', 'the upload has no body: send a JSON array of cases');
  return s;
}

/**
 * The elements of a sync upload body, in batches: the request's bytes, read and checked by core
 * (`readUploadBody`, docs/limits.md); binary items of a `cssync` container go to `sink`; the
 * inflated JSON is charged to `memory` (docs/limits.md#memory-of-uploads-in-flight). A small
 * zlib body comes first unread, for the upload's check threads (`readUploadBodyDeferring`).
 */
export async function* readSyncBody(
  c: Context<AppEnv>,
  limits: UploadBodyLimits,
  sink?: BinaryItemSink,
  memory?: MemoryLease,
): AsyncGenerator<unknown[] | DeferredSmallBody> {
  // A generator, so that a missing body is reported when the upload is read, as before.
  yield* readUploadBodyDeferring(source(c), limits, sink, memory);
}
