/**
 * A download page's case JSON built from the stored text of its cases (docs/sync.md#how-a-page-is-built):
 * the older wire form (`{id, caseids, label, deleted, verified, clock, level-1, notes, partialSave?}`,
 * case-wire.ts) assembled from the columns as they are, without parsing and re-encoding them.
 * `level-1` is embedded as a JSON string (one `JSON.stringify` of the stored text); the clock, the
 * notes and the partial save are sent as stored when they are in the form the case writers store
 * (canonical-stored-json.ts), and re-encoded as before when not, so rows written otherwise (by an
 * older version, an import) read as they always did. The bytes are those of `wireCaseJson` for every
 * case. Pure; no I/O.
 */

import type { CaseNote, ClockEntry, PartialSave } from '../cspro/case/model.js';
import type { SyncCaseRow } from '../store/sync-repo.js';
import type { V3CaseSource } from './case-json-v3.js';
import { isCanonicalClock, isCanonicalNotes, isCanonicalPartialSave } from './canonical-stored-json.js';

/** The clock's wire form: each entry `{deviceId, revision}` with the device id as a string. */
function wireClock(text: string): string {
  if (isCanonicalClock(text)) return text;
  const clock = (JSON.parse(text) as ClockEntry[]).map((e) => ({ deviceId: String(e.deviceId), revision: e.revision }));
  return JSON.stringify(clock);
}

function wireNotes(text: string): string {
  return isCanonicalNotes(text) ? text : JSON.stringify(JSON.parse(text));
}

/** The `,"partialSave":…` member, or '' when the case has none (stored null, or a stored JSON null). */
function partialSaveMember(text: string | null): string {
  if (text === null) return '';
  if (isCanonicalPartialSave(text)) return `,"partialSave":${text}`;
  const value = JSON.parse(text) as PartialSave | null;
  return value ? `,"partialSave":${JSON.stringify(value)}` : '';
}

/** The JSON text of one page case in the older wire form. */
export function pageCaseJson(c: SyncCaseRow): string {
  return (
    `{"id":${JSON.stringify(c.guid)},"caseids":${JSON.stringify(c.caseKey)},"label":${JSON.stringify(c.label)},` +
    `"deleted":${c.deleted},"verified":${c.verified},"clock":${wireClock(c.clock)},` +
    `"level-1":${JSON.stringify(c.data)},"notes":${wireNotes(c.notes)}${partialSaveMember(c.partialSave)}}`
  );
}

/** The JSON array of a page's cases in the older wire form (a sync download's body). */
export function pageCasesJson(cases: readonly SyncCaseRow[]): string {
  let s = '[';
  for (let i = 0; i < cases.length; i++) s += (i === 0 ? '' : ',') + pageCaseJson(cases[i]!);
  return s + ']';
}

/**
 * A page case with its JSON columns parsed, for CSPro 8.1's case JSON (case-json-v3.ts), whose
 * shape differs from the stored one and is rebuilt from the parsed values.
 */
export function parsedPageCase(c: SyncCaseRow): V3CaseSource {
  const out: V3CaseSource = {
    guid: c.guid,
    caseKey: c.caseKey,
    label: c.label,
    data: c.data,
    verified: c.verified,
    deleted: c.deleted,
    clock: JSON.parse(c.clock) as ClockEntry[],
    partialSave: c.partialSave === null ? null : (JSON.parse(c.partialSave) as PartialSave | null),
    notes: c.notes === '[]' ? [] : (JSON.parse(c.notes) as CaseNote[]),
  };
  if (c.caseNote !== null) out.caseNote = c.caseNote;
  return out;
}
