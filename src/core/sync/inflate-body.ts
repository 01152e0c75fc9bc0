import { Readable } from 'node:stream';
import { createGunzip, createInflate, gunzipSync, inflateSync } from 'node:zlib';
import { AppError } from '../../shared/errors.js';
import { bodyEncodingOf } from '../../sync/body-encoding.js';

/** A zlib failure as the sender's fault: its body is not the compressed stream it claims. */
function corrupt(err: unknown, what: string): AppError {
  if (err instanceof AppError) return err;
  return new AppError(
    'USAGE',
    `${what} is labelled compressed but is not a readable zlib or gzip stream: ${(err as Error).message}`,
    {},
    { cause: err },
  );
}

/**
 * A whole body (a dictionary upload) inflated when its first bytes say it is compressed, zlib or
 * gzip, whatever `Content-Encoding` claims (docs/sync.md#compressed-bodies): a `.dcf` text or a JSON
 * dictionary never starts like either. More than `maxBytes` inflated is 413 PAYLOAD_TOO_LARGE.
 */
export function inflateWhole(body: Buffer, maxBytes: number, what: string): Buffer {
  const encoding = bodyEncodingOf(body);
  if (encoding === 'identity') return body;
  try {
    return encoding === 'gzip' ? gunzipSync(body, { maxOutputLength: maxBytes }) : inflateSync(body, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new AppError('PAYLOAD_TOO_LARGE', `${what} is larger than the limit of ${maxBytes} bytes once inflated`, { limit: maxBytes });
    }
    throw corrupt(err, what);
  }
}

/**
 * A streamed body (a file or an application package) inflated when `Content-Encoding` says
 * `deflate` or `gzip`: CSPro 8.1 sends a zlib stream under `deflate` (8.0 labels zlib `gzip`), so the
 * first bytes choose zlib or gzip (docs/sync.md#compressed-bodies). Without the label the bytes
 * are the file's own, even when they look compressed (a zip, a `.gz` the user syncs). A body
 * labelled compressed that is neither is taken as it is.
 */
export async function* inflateLabelled(
  body: AsyncIterable<Buffer>,
  contentEncoding: string | undefined,
  what: string,
): AsyncGenerator<Buffer> {
  const label = (contentEncoding ?? '').trim().toLowerCase();
  if (label !== 'deflate' && label !== 'gzip' && label !== 'x-gzip') {
    yield* body;
    return;
  }
  const it = body[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  while (head.length < 2) {
    const next = await it.next();
    if (next.done) break;
    head = Buffer.concat([head, next.value]);
  }
  async function* rest(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
  }
  const encoding = bodyEncodingOf(head);
  if (encoding === 'identity') {
    yield* rest();
    return;
  }
  const raw = Readable.from(rest());
  const inflated = raw.pipe(encoding === 'gzip' ? createGunzip() : createInflate());
  raw.on('error', (err) => inflated.destroy(err));
  try {
    for await (const chunk of inflated) yield chunk as Buffer;
  } catch (err) {
    throw corrupt(err, what);
  } finally {
    inflated.destroy();
  }
}
