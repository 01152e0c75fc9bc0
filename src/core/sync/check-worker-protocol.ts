import type { Dictionary } from '../../cspro/dictionary/model.js';
import type { CaseLimits } from '../../cspro/case/case-limits.js';
import type { CaseWrite } from '../../store/cases-repo.js';
import type { ErrorDetails } from '../../shared/errors.js';

/** A part of an upload body for a check thread (check-worker.ts) to check. */
export interface CheckTask {
  task: number;
  /** The dictionary's key in the thread's cache; `model` comes with it the first time a thread sees it. */
  modelKey: number;
  model?: Dictionary;
  /** A key the thread is to drop: the pool keeps a bounded number of models per thread. */
  forget?: number;
  values: unknown[];
  /** The first value's index in the body, so refusals name the case as the main thread would. */
  offset: number;
  limits: CaseLimits;
}

/** A check thread's answer: the parts' cases encoded for the store, or the first refusal. */
export type CheckReply =
  | { task: number; writes: CaseWrite[] }
  | { task: number; error: { code: string; message: string; details: ErrorDetails } };
