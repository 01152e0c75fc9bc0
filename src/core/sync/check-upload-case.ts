import { AppError } from '../../shared/errors.js';
import type { Dictionary } from '../../cspro/dictionary/model.js';
import { checkCaseFields, type CaseLimits } from '../../cspro/case/case-limits.js';
import type { CaseWrite } from '../../store/cases-repo.js';
import { normalizeV3Case } from '../../sync/case-json-v3.js';
import { toCaseWrite } from '../cases/index.js';

/**
 * One element of a sync upload body checked against its dictionary and encoded for the store;
 * a case that does not fit throws the upload's refusal, naming the case by its `index` in the
 * body (and its id and caseids when it has them), with "nothing of this upload was stored".
 */
function checkUploadCase(value: unknown, model: Dictionary, index: number, limits: CaseLimits): CaseWrite {
  try {
    // Either case form is read, whatever the client's version (docs/sync.md#v3-case-json).
    const write = toCaseWrite(normalizeV3Case(value, model, { index, limits }).case);
    // Lengths only (docs/limits.md): the fast path stays fast.
    checkCaseFields(write, limits);
    return write;
  } catch (err) {
    const e = err as AppError;
    if (e.code === 'CASE_TOO_LARGE')
      throw new AppError(e.code, `case ${index}: ${e.message}; nothing of this upload was stored`, { ...e.details, index });
    const id = typeof e.details?.id === 'string' ? e.details.id : undefined;
    const where = `case ${index}${id ? ` (id ${id}${typeof e.details.case === 'string' ? `, caseids "${e.details.case}"` : ''})` : ''}`;
    const code = e.code === 'JSON_TOO_DEEP' ? e.code : 'CASE_INVALID';
    throw new AppError(code, `${where}: ${e.message}; nothing of this upload was stored`, { ...e.details, index });
  }
}

/** `values` checked by `checkUploadCase`, the first at `offset` in the body. */
export function checkUploadCases(values: readonly unknown[], model: Dictionary, offset: number, limits: CaseLimits): CaseWrite[] {
  const writes = new Array<CaseWrite>(values.length);
  for (let i = 0; i < values.length; i++) writes[i] = checkUploadCase(values[i], model, offset + i, limits);
  return writes;
}
