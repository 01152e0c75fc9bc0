/**
 * The log file of one import, `logs/import/<dict>_<YYYY-MM-DD_HH-MM-SS>.log` (UTC) under the
 * home: every warning and every unreadable case, written as each batch arrives so none is held
 * in memory for it, and a summary per file. The import's report lists only the first few.
 */

import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../../shared/errors.js';
import type { ImportWarning, ReadErrorShape } from './read-worker-protocol.js';

function stamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}_${p(d.getUTCHours())}-${p(d.getUTCMinutes())}-${p(d.getUTCSeconds())}`;
}

/** Where a warning or error is: `file:line` or `file case #N` (1-based position), then the rest. */
function describeLocation(
  file: string,
  at: { line?: number; index?: number; case?: string; record?: string; item?: string; occurrence?: number },
): string {
  const head = at.line !== undefined ? `${file}:${at.line}` : at.index !== undefined ? `${file} case #${at.index + 1}` : file;
  const parts: string[] = [];
  if (at.case !== undefined) parts.push(`case ${JSON.stringify(at.case)}`);
  if (at.record) parts.push(`record ${at.record}${at.occurrence ? `(${at.occurrence})` : ''}`);
  if (at.item) parts.push(`item ${at.item}`);
  return parts.length > 0 ? `${head} (${parts.join(', ')})` : head;
}

/** One line for a warning: where, what kind, the value, the message. */
export function warningLine(file: string, w: ImportWarning): string {
  return `warning ${w.kind}: ${describeLocation(file, w)}${w.value !== undefined ? ` value ${JSON.stringify(w.value)}` : ''}: ${w.message}`;
}

/** One line for a case that could not be read. */
export function errorLine(file: string, e: ReadErrorShape): string {
  const d = e.details;
  const at = {
    ...(typeof d.line === 'number' ? { line: d.line } : {}),
    ...(typeof d.index === 'number' ? { index: d.index } : {}),
    ...(typeof d.case === 'string' ? { case: d.case } : {}),
    ...(d.record ? { record: d.record } : {}),
    ...(d.item ? { item: d.item } : {}),
  };
  return `error ${e.code}: ${describeLocation(typeof d.file === 'string' ? d.file : file, at)}: ${e.message}`;
}

/** An open import log; lines are appended with one write per call. */
export class ImportLog {
  private fd: number | undefined;

  private constructor(
    readonly path: string,
    fd: number,
  ) {
    this.fd = fd;
  }

  /**
   * Creates the log of an import of `dictionary` started at `now` in `dir`. A second import in the
   * same second gets `_2`, `_3`, ... rather than sharing a file.
   */
  static create(dir: string, dictionary: string, now: Date): ImportLog {
    try {
      mkdirSync(dir, { recursive: true });
      const base = `${dictionary}_${stamp(now)}`;
      for (let n = 1; ; n++) {
        const path = join(dir, `${base}${n > 1 ? `_${n}` : ''}.log`);
        try {
          return new ImportLog(path, openSync(path, 'wx'));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        }
      }
    } catch (err) {
      throw new AppError('IO_ERROR', `cannot create the import log in ${dir}: ${(err as Error).message}`, { file: dir }, { cause: err });
    }
  }

  /** Appends lines (each without its newline). */
  write(lines: readonly string[]): void {
    if (lines.length === 0 || this.fd === undefined) return;
    writeSync(this.fd, lines.join('\n') + '\n');
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
