import type { Dictionary } from '../../cspro/dictionary/model.js';
import type { CaseLimits } from '../../cspro/case/case-limits.js';
import type { CaseWrite } from '../../store/cases-repo.js';
import { checkUploadCases } from './check-upload-case.js';

/**
 * Where a sync upload's cases are checked against their dictionary and encoded for the store:
 * on the calling thread (`INLINE_CHECKER`) or in threads (`CheckPool`, check-pool.ts). Either
 * gives the same cases in body order, or the same refusal of the first case that does not fit.
 */
export interface UploadChecker {
  /** An upload begins (its body is read, checked, written); the function returned says it ended. */
  begin(): () => void;
  /** `values` (the first at `offset` in the body) checked and encoded, as `checkUploadCases`. */
  check(values: unknown[], model: Dictionary, offset: number, limits: CaseLimits): Promise<CaseWrite[]>;
}

/** Checks on the calling thread: what the CLI, tests and `--check-threads 0` use. */
export const INLINE_CHECKER: UploadChecker = {
  begin: () => () => {},
  check: (values, model, offset, limits) => Promise.resolve().then(() => checkUploadCases(values, model, offset, limits)),
};
