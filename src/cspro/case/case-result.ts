/**
 * What the import readers (.dat, .json, .csdb) yield: one result per case, either the case with
 * the warnings met while reading it, or the error that kept it from being read. A broken case
 * never stops the file; the caller stores the good ones and reports the others.
 */

import { AppError, type ErrorDetails } from '../../shared/errors.js';
import type { SyncCase } from './model.js';

type CaseWarningKind =
  /** A numeric field held text that is not a number; the value became DEFAULT. */
  | 'invalid-value'
  /** More record occurrences than the record's maxOccurrences; the extra ones were dropped. */
  | 'too-many-records'
  /** More item occurrences than the item has; the extra ones were dropped. */
  | 'too-many-occurrences'
  /** An alpha value longer than the item; it was cut to the item length. */
  | 'value-truncated'
  /** A numeric value with more digits than the item width (it would be `***` in a .dat file). */
  | 'value-too-wide'
  /** An id item is blank. */
  | 'blank-id'
  /** The same case key was read before in this file; the store keeps the last one. */
  | 'duplicate-key';

/** Something odd in a case that was still read, with where it is. */
export interface CaseWarning {
  kind: CaseWarningKind;
  message: string;
  line?: number;
  record?: string;
  item?: string;
  /** 1-based record occurrence, when it matters. */
  occurrence?: number;
  /** The value as found in the file, when a value caused the warning. */
  value?: string;
}

interface CaseReadOk {
  ok: true;
  case: SyncCase;
  warnings: CaseWarning[];
  /** 1-based line of the case's first record line (text sources). */
  firstLine?: number;
  /** 0-based position of the case in its source (JSON array index, .csdb file order). */
  index?: number;
}

interface CaseReadError {
  ok: false;
  /** Always code CASE_INVALID, with file, line or index, case key and item in the details. */
  error: AppError;
}

export type CaseReadResult = CaseReadOk | CaseReadError;

/** The .dat reader always knows the first line of a case. */
export type DatCaseResult = (CaseReadOk & { firstLine: number }) | CaseReadError;

/** A CASE_INVALID error. */
export function caseError(message: string, details: ErrorDetails = {}): AppError {
  return new AppError('CASE_INVALID', message, details);
}

/**
 * Adds location details (file, case, ...) to an error raised deeper down, keeping the details the
 * deeper code already set. Anything that is not a CASE_INVALID AppError becomes one.
 */
export function withCaseDetails(err: unknown, details: ErrorDetails): AppError {
  // A case over a limit keeps its own code (CASE_TOO_LARGE 413, JSON_TOO_DEEP 400; docs/limits.md).
  if (err instanceof AppError && (err.code === 'CASE_INVALID' || err.code === 'CASE_TOO_LARGE' || err.code === 'JSON_TOO_DEEP')) {
    return new AppError(err.code, err.message, { ...details, ...err.details }, { cause: err.cause });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new AppError('CASE_INVALID', message, details, { cause: err });
}

/**
 * How far a reader is into its file: `done` of `total` units (bytes for text files, cases for a
 * `.csdb`), called as cases are yielded so an import can show a percentage.
 */
export type ReadPosition = (done: number, total: number) => void;
