import type { ErrorDetails } from '../../../shared/errors.js';
import type { CaseWarning } from '../../../cspro/case/case-result.js';
import type { CaseLimits } from '../../../cspro/case/case-limits.js';
import type { CaseWrite } from '../../../store/cases-repo.js';

/** Cases per message from the reading thread: one store batch. */
export const READ_BATCH = 500;
/** Batches the reading thread may have sent ahead of the writer: bounds memory. */
export const READ_AHEAD = 4;

export interface ReadErrorShape {
  code: string;
  message: string;
  details: ErrorDetails;
}

/**
 * A warning met while reading one case, with where it is: the case key, and the 1-based line
 * (text files) or the 0-based position of the case in its file (.csdb, .json).
 */
export interface ImportWarning extends CaseWarning {
  case: string;
  index?: number;
}

/**
 * One case read and encoded, or why it could not be read. The warnings travel with their case,
 * so the writer holds at most a few batches' worth of them.
 */
export type ReadItem = { ok: true; write: CaseWrite; warnings?: ImportWarning[] } | { ok: false; error: ReadErrorShape };

export interface ReadWorkerInput {
  file: string;
  model: unknown;
  /** The case limits (docs/limits.md): a case over one is reported, not stored. */
  limits: CaseLimits;
}

/** Reading thread → writer. The writer answers each `batch` with `'more'`. */
/** `read` is the share of the file read when the batch was sent, 0 to 1. */
export type ReadWorkerMessage =
  { type: 'batch'; items: ReadItem[]; read: number } | { type: 'end' } | { type: 'fatal'; error: ReadErrorShape };
