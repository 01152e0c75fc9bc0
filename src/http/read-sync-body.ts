import { Readable, Transform } from 'node:stream';
import type { ReadableStream as NodeWebStream } from 'node:stream/web';
import { createGunzip, createInflate } from 'node:zlib';
import type { Context } from 'hono';
import streamArray from 'stream-json/streamers/stream-array.js';
import { AppError } from '../shared/errors.js';
import { bodyEncodingOf, isBinaryContainer } from '../sync/body-encoding.js';
import { caseError } from '../cspro/case/case-result.js';
import type { AppEnv } from './app-env.js';

function source(c: Context<AppEnv>): Readable {
  const s = c.env?.incoming ?? (c.req.raw.body ? Readable.fromWeb(c.req.raw.body as unknown as NodeWebStream<Uint8Array>) : undefined);
  if (!s) throw new AppError('USAGE', 'the upload has no body: send a JSON array of cases');
  return s;
}

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

/**
 * The elements of a sync upload body, one at a time: the JSON array is parsed as it arrives
 * (stream-json), after inflating it when the bytes say it is compressed (zlib as the client
 * sends it, or gzip), whatever `Content-Encoding` claims. More than `maxBytes` of JSON is 413;
 * broken JSON is CASE_INVALID naming the element where reading stopped.
 */
export async function* readSyncBody(c: Context<AppEnv>, maxBytes: number): AsyncGenerator<unknown> {
  const input = source(c);
  const { head, rest } = await peek(input, 6);
  if (head.length === 0) throw new AppError('USAGE', 'the upload has no body: send a JSON array of cases');
  const raw = Readable.from(
    (async function* () {
      yield head;
      for (let n = await rest.next(); !n.done; n = await rest.next()) yield n.value;
    })(),
  );
  const encoding = bodyEncodingOf(head);
  let decoded: Readable = encoding === 'gzip' ? raw.pipe(createGunzip()) : encoding === 'zlib' ? raw.pipe(createInflate()) : raw;
  if (encoding !== 'identity') raw.on('error', (err) => decoded.destroy(err));
  let seen = 0;
  let first = true;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      if (first) {
        first = false;
        if (isBinaryContainer(chunk)) {
          cb(new AppError('SYNC_BINARY_UNSUPPORTED', 'the upload is a cssync binary container (a dictionary with binary items); only JSON case arrays are accepted'));
          return;
        }
      }
      seen += chunk.length;
      if (seen > maxBytes) cb(new AppError('PAYLOAD_TOO_LARGE', `the upload is larger than the limit of ${maxBytes} bytes of JSON`, { limit: maxBytes }));
      else cb(null, chunk);
    },
  });
  decoded.on('error', (err) => meter.destroy(err));
  decoded = decoded.pipe(meter);
  const elements = streamArray.withParserAsStream();
  meter.on('error', (err) => elements.destroy(err));
  meter.pipe(elements);
  let next = 0;
  try {
    for await (const element of elements as AsyncIterable<{ key: number; value: unknown }>) {
      next = element.key + 1;
      yield element.value;
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    const why = (err as NodeJS.ErrnoException).code?.startsWith('Z_') ? 'the compressed body is corrupt' : (err as Error).message;
    throw caseError(`the upload is not a JSON array of cases readable past element ${next}: ${why}; nothing of this upload was stored`, { index: next });
  } finally {
    elements.destroy();
    input.resume();
  }
}
