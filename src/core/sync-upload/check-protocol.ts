import type { Dictionary } from '../../cspro/dictionary/model.js';
import type { ErrorDetails } from '../../shared/errors.js';
import type { CaseWrite } from '../../store/cases-repo.js';

/** A batch of parsed upload elements to check; `model` comes with the first batch of an upload. */
export interface CheckJob {
  job: number;
  upload: number;
  /** Index of the first value in the upload. */
  start: number;
  values: unknown[];
  model?: Dictionary;
}

/** The worker's answer: every case encoded, or the first refusal of the batch. */
export type CheckReply =
  | { job: number; ok: true; writes: CaseWrite[] }
  | { job: number; ok: false; error: { code: string; message: string; details: ErrorDetails } };

/** Tells the worker an upload is over: it forgets the upload's dictionary. */
export interface CheckDone {
  done: number;
}
