/**
 * Streaming reader of a JSON file holding an array of sync cases (the body of a client upload,
 * docs/cspro-formats.md#the-case-model), with stream-json: the parser and array streamer hand over one element at a
 * time, so a file far larger than memory is fine. Each element goes through sync-json.ts.
 *
 * A bad element is one `{ ok: false }` result (CASE_INVALID, details: file, index, case id, path)
 * and the next element is read. Broken JSON (or a top level that is not an array) ends the
 * file: the cases before it are yielded, then one error result with the index where reading
 * stopped. A file that cannot be opened throws IO_ERROR.
 */

import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { AppError } from '../../shared/errors.js';
import type { Dictionary } from '../dictionary/model.js';
import { caseError, type CaseReadResult, type ReadPosition } from './case-result.js';
import { normalizeSyncCase } from './sync-json.js';
import type { CaseLimits } from './case-limits.js';

async function assertReadable(path: string): Promise<void> {
  try {
    const handle = await open(path, 'r');
    await handle.close();
  } catch (err) {
    throw new AppError('IO_ERROR', `cannot read ${path}: ${(err as Error).message}`, { file: path }, { cause: err });
  }
}

/** Reads a JSON array of sync cases one case at a time (see the file comment). */
export async function* readJsonCasesFile(
  path: string,
  dict: Dictionary,
  onPosition?: ReadPosition,
  opts: { limits?: CaseLimits } = {},
): AsyncGenerator<CaseReadResult> {
  await assertReadable(path);
  const size = onPosition ? (await stat(path)).size : 0;
  const input = createReadStream(path);
  // Imported here: only a JSON import reads with it (docs/cli.md#start-up-time).
  const { default: streamArray } = await import('stream-json/streamers/stream-array.js');
  const elements = streamArray.withParserAsStream();
  // pipe() does not forward read errors; hand them to the parser stream so the loop sees them.
  input.on('error', (err) => elements.destroy(err));
  input.pipe(elements);
  let next = 0;
  try {
    for await (const element of elements as AsyncIterable<{ key: number; value: unknown }>) {
      const index = element.key;
      next = index + 1;
      onPosition?.(input.bytesRead, size);
      try {
        const { case: syncCase, warnings } = normalizeSyncCase(element.value, dict, { file: path, index, ...opts });
        yield { ok: true, case: syncCase, warnings, index };
      } catch (err) {
        yield { ok: false, error: err as AppError };
      }
    }
  } catch (err) {
    const message = `${path} is not a JSON array of cases readable past element ${next}: ${(err as Error).message}`;
    yield { ok: false, error: caseError(message, { file: path, index: next }) };
  } finally {
    input.destroy();
    elements.destroy();
  }
}
