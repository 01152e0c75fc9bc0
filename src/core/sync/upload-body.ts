import { Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import { AppError } from '../../shared/errors.js';
import { bodyEncodingOf, isBinaryContainer } from '../../sync/body-encoding.js';
import { JsonArrayError, parseJsonArrayBatches } from '../../sync/json-array-splitter.js';
import { caseError } from '../../cspro/case/case-result.js';

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

/** The inflated body, checked as it passes: not the cssync container, at most `maxBytes`. */
async function* metered(decoded: Readable, maxBytes: number): AsyncGenerator<Buffer> {
  let seen = 0;
  for await (const chunk of decoded as AsyncIterable<Buffer>) {
    if (seen === 0 && isBinaryContainer(chunk)) {
      throw new AppError(
        'SYNC_BINARY_UNSUPPORTED',
        'the upload is a cssync binary container (a dictionary with binary items); only JSON case arrays are accepted',
      );
    }
    seen += chunk.length;
    if (seen > maxBytes)
      throw new AppError('PAYLOAD_TOO_LARGE', `the upload is larger than the limit of ${maxBytes} bytes of JSON`, { limit: maxBytes });
    yield chunk;
  }
}

/**
 * The elements of a sync upload body (`input`, the request's bytes), in batches (json-array-splitter: a body of the usual size
 * parsed whole, a very large one split as it arrives), after inflating it when the bytes say it
 * is compressed (zlib as the client sends it, or gzip), whatever `Content-Encoding` claims. More
 * than `limits.requestBytes` of JSON is 413 (counted as it inflates, so a compression bomb stops
 * there); nesting deeper than `limits.jsonDepth` is 400 JSON_TOO_DEEP before anything is parsed;
 * broken JSON is CASE_INVALID naming the element where reading stopped (docs/limits.md).
 */
export async function* readUploadBody(input: Readable, limits: { requestBytes: number; jsonDepth: number }): AsyncGenerator<unknown[]> {
  const maxBytes = limits.requestBytes;
  const { head, rest } = await peek(input, 6);
  if (head.length === 0) throw new AppError('USAGE', 'the upload has no body: send a JSON array of cases');
  const raw = Readable.from(
    (async function* () {
      yield head;
      for (let n = await rest.next(); !n.done; n = await rest.next()) yield n.value;
    })(),
  );
  const encoding = bodyEncodingOf(head);
  const decoded: Readable = encoding === 'gzip' ? raw.pipe(createGunzip()) : encoding === 'zlib' ? raw.pipe(createInflate()) : raw;
  if (encoding !== 'identity') raw.on('error', (err) => decoded.destroy(err));
  let next = 0;
  try {
    for await (const batch of parseJsonArrayBatches(metered(decoded, maxBytes), undefined, limits.jsonDepth)) {
      next += batch.length;
      yield batch;
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    const why = (err as NodeJS.ErrnoException).code?.startsWith('Z_') ? 'the compressed body is corrupt' : (err as Error).message;
    const index = err instanceof JsonArrayError ? err.index : next;
    throw caseError(`the upload is not a JSON array of cases readable past element ${index}: ${why}; nothing of this upload was stored`, {
      index,
    });
  } finally {
    decoded.destroy();
    input.resume();
  }
}
