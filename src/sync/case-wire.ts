/**
 * One stored case as CSWeb sends it to the data-collection client (download, single case):
 * `{id, caseids, label, deleted, verified, clock, level-1, notes, partialSave?}` with `level-1`
 * as a JSON *string*, which is how CSEntry ≥ 7.5 expects it. The store keeps `level-1` as JSON
 * text, so it is embedded as a string without being parsed (pure; no I/O).
 */

import type { StoredCase } from '../store/cases-repo.js';

/** What the wire form needs of a stored case. */
export type WireCaseSource = Omit<StoredCase, 'createdAt' | 'modifiedAt' | 'revision'>;

/** The JSON text of one case in the wire form. */
export function wireCaseJson(c: WireCaseSource): string {
  const clock = c.clock.map((e) => ({ deviceId: String(e.deviceId), revision: e.revision }));
  let s =
    `{"id":${JSON.stringify(c.guid)},"caseids":${JSON.stringify(c.caseKey)},"label":${JSON.stringify(c.label)},` +
    `"deleted":${c.deleted},"verified":${c.verified},"clock":${JSON.stringify(clock)},` +
    `"level-1":${JSON.stringify(c.data)},"notes":${JSON.stringify(c.notes)}`;
  if (c.partialSave) s += `,"partialSave":${JSON.stringify(c.partialSave)}`;
  return s + '}';
}
