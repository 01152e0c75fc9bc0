import type { ErrorDetails } from '../../shared/errors.js';
import type { CaseWrite } from '../../store/cases-repo.js';

/** Cases per message from the reading thread: one store batch. */
export const READ_BATCH = 500;
/** Batches the reading thread may have sent ahead of the writer: bounds memory. */
export const READ_AHEAD = 4;

export interface ReadErrorShape {
  code: string;
  message: string;
  details: ErrorDetails;
}

/** One case read and encoded, or why it could not be read. */
export type ReadItem = { ok: true; write: CaseWrite; warnings: number } | { ok: false; error: ReadErrorShape };

export interface ReadWorkerInput {
  file: string;
  model: unknown;
}

/** Reading thread → writer. The writer answers each `batch` with `'more'`. */
/** `read` is the share of the file read when the batch was sent, 0 to 1. */
export type ReadWorkerMessage = { type: 'batch'; items: ReadItem[]; read: number } | { type: 'end' } | { type: 'fatal'; error: ReadErrorShape };
