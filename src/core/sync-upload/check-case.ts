import type { Dictionary } from '../../cspro/dictionary/model.js';
import { normalizeSyncCase } from '../../cspro/case/sync-json.js';
import type { CaseWrite } from '../../store/cases-repo.js';
import { AppError } from '../../shared/errors.js';
import { toCaseWrite } from '../case-merge.js';

/**
 * One uploaded case checked against the dictionary and encoded for the store, or CASE_INVALID
 * naming its position, id and caseids. The same function runs on the request's thread and in
 * the checking worker, so a refusal reads the same wherever the case was checked.
 */
export function checkUploadedCase(value: unknown, model: Dictionary, index: number): CaseWrite {
  try {
    return toCaseWrite(normalizeSyncCase(value, model, { index }).case);
  } catch (err) {
    const e = err as AppError;
    const id = typeof e.details?.id === 'string' ? e.details.id : undefined;
    const where = `case ${index}${id ? ` (id ${id}${typeof e.details.case === 'string' ? `, caseids "${e.details.case}"` : ''})` : ''}`;
    throw new AppError('CASE_INVALID', `${where}: ${e.message}; nothing of this upload was stored`, { ...e.details, index });
  }
}
