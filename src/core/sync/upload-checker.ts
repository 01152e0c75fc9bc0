import type { Dictionary } from '../../cspro/dictionary/model.js';
import type { CaseLimits } from '../../cspro/case/case-limits.js';
import type { CaseWrite } from '../../store/cases-repo.js';
import type { MemoryLease } from '../../shared/memory-budget.js';
import { checkUploadCases } from './check-upload-case.js';
import type { DeferredSmallBody } from './upload-body.js';

/** The checks of one upload, from its first batch to its answer. */
export interface UploadChecks {
  /** `values` (the first at `offset` in the body) checked and encoded, as `checkUploadCases`. */
  check(values: unknown[], model: Dictionary, offset: number, limits: CaseLimits): Promise<CaseWrite[]>;
  /**
   * A small zlib body read and checked whole elsewhere (a check thread), its cases in body order,
   * or the refusal of its first bad case; undefined when it is to be read here, as any body is.
   */
  checkBody(body: DeferredSmallBody, model: Dictionary, limits: CaseLimits): Promise<CaseWrite[] | undefined>;
  /** The upload has ended (stored or refused); later calls do nothing. */
  end(): void;
  /** Whether any of the upload's cases were read or checked elsewhere (a check thread). */
  readonly threaded: boolean;
}

/**
 * Where a sync upload's cases are checked against their dictionary and encoded for the store:
 * on the calling thread (`INLINE_CHECKER`) or in threads (`CheckPool`, check-pool.ts). Either
 * gives the same cases in body order, or the same refusal of the first case that does not fit.
 */
export interface UploadChecker {
  /**
   * An upload begins. `memory`: its lease of the upload memory budget, which a checker that
   * copies the cases elsewhere charges for the copies (docs/limits.md#memory-of-uploads-in-flight).
   */
  begin(memory?: MemoryLease): UploadChecks;
}

const INLINE_CHECKS: UploadChecks = {
  check: (values, model, offset, limits) => Promise.resolve().then(() => checkUploadCases(values, model, offset, limits)),
  checkBody: () => Promise.resolve(undefined),
  end: () => {},
  threaded: false,
};

/** Checks on the calling thread: what the CLI, tests and `--check-threads 0` use. */
export const INLINE_CHECKER: UploadChecker = { begin: () => INLINE_CHECKS };
