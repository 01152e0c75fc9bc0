/**
 * A stored case as the flattener reads it: the one mapping from the store's changed-case row to
 * `FlattenInput`, shared by the breakout and the export so both flatten a case exactly alike
 * (docs/export.md#how-an-export-runs). Pure; throws SyntaxError when the stored data is not JSON.
 */
import type { LevelObject } from '../cspro/case/model.js';
import type { ChangedCase } from '../store/cases-repo.js';
import type { FlattenInput } from './flatten-types.js';

export function flattenInput(c: ChangedCase, breakoutTime: string): FlattenInput {
  return {
    id: c.guid,
    caseids: c.caseKey,
    label: c.label,
    verified: c.verified,
    revision: c.revision,
    modifiedTime: c.modifiedAt,
    breakoutTime,
    level1: JSON.parse(c.data) as LevelObject,
    notes: c.notes,
  };
}
