import type { CaseWrite } from '../../store/cases-repo.js';
import type { Dictionary } from '../../cspro/dictionary/model.js';
import type { CaseWarning } from '../../cspro/case/case-result.js';
import { normalizeSyncCase } from '../../cspro/case/sync-json.js';
import { normalizeV3Case } from '../../sync/case-json-v3.js';
import { checkCaseFields } from '../../cspro/case/case-limits.js';
import { rowToSyncJson, type ConvertedRow, type CswebCaseRow } from '../../csweb/case-rows.js';
import type { Limits } from '../home/index.js';
import { toCaseWrite } from '../cases/index.js';

/**
 * A CSWeb case row as sds stores it: read through the sync upload's normaliser with the
 * dictionary, so import and verify decode alike (docs/migrating-from-csweb.md#case-content).
 * Throws when the row cannot be decoded or is over a limit of docs/limits.md.
 */
export function decodeCswebRow(
  row: CswebCaseRow,
  model: Dictionary,
  zone: string,
  limits: Limits,
): { write: CaseWrite; converted: ConvertedRow; warnings: CaseWarning[] } {
  // The decoded JSON may be a few times the stored size; the data limit bounds it.
  const converted = rowToSyncJson(row, zone, limits.dataChars * 4);
  // An 8.1 row holds the 8.1 client's case JSON: read as an 8.1 upload is (docs/sync.md#v3-case-json).
  const { case: c, warnings } =
    converted.form === 'v3'
      ? normalizeV3Case(converted.syncJson, model, { limits })
      : normalizeSyncCase(converted.syncJson, model, { limits });
  const write = toCaseWrite(c);
  checkCaseFields(write, limits);
  return { write, converted, warnings };
}
