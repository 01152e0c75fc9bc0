import type { Dictionary } from '../../cspro/dictionary/model.js';
import type { CaseLimits } from '../../cspro/case/case-limits.js';
import type { CaseWrite } from '../../store/cases-repo.js';
import type { ErrorDetails } from '../../shared/errors.js';

/** What every task to a check thread (check-worker.ts) carries. */
interface TaskBase {
  task: number;
  /** The dictionary's key in the thread's cache; `model` comes with it the first time a thread sees it. */
  modelKey: number;
  model?: Dictionary;
  /** A key the thread is to drop: the pool keeps a bounded number of models per thread. */
  forget?: number;
  limits: CaseLimits;
}

/** Parsed cases of an upload body to check. */
export interface CheckCasesTask extends TaskBase {
  kind: 'cases';
  values: unknown[];
  /** The first value's index in the body, so refusals name the case as the main thread would. */
  offset: number;
}

/** A small zlib upload body to read (small-body.ts) and check whole. */
export interface CheckBodyTask extends TaskBase {
  kind: 'body';
  bytes: Uint8Array;
  maxJsonBytes: number;
  jsonDepth: number;
}

export type CheckTask = CheckCasesTask | CheckBodyTask;

/** The refusal of a case, as the thread made it. */
export interface CheckRefusal {
  code: string;
  message: string;
  details: ErrorDetails;
}

/**
 * A check thread's answer: the cases encoded for the store, or the first refusal; for a body,
 * with the bytes of JSON it inflated to, or `unread` when the body is to be read on the main
 * thread.
 */
export type CheckReply =
  | { task: number; writes: CaseWrite[]; jsonBytes?: number }
  | { task: number; error: CheckRefusal; jsonBytes?: number }
  | { task: number; unread: true };
