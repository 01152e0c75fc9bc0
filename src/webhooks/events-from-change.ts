import type { CaseImage, OutboxRow } from '../store/webhook-queue-repo.js';
import { diffCase } from './case-diff.js';
import type { EventKind } from './event-kinds.js';

/** Case summary of docs/http-api.md#routes, as the case events carry it. */
interface CaseSummaryData {
  guid: string;
  case_label: string;
  modified_date: string;
  verified: boolean;
  deleted: boolean;
}

export interface EventOut {
  event: EventKind;
  data: Record<string, unknown>;
}

function summary(guid: string, c: CaseImage, modifiedAt: string): CaseSummaryData {
  return { guid, case_label: c.label || c.caseKey, modified_date: modifiedAt, verified: c.verified, deleted: c.deleted };
}

/**
 * The kinds of a case change (docs/webhooks.md, "Which change gives which event"): a new case is
 * `case_uploaded`; a soft delete is `case_deleted` alone; otherwise a change of data, label, key
 * or notes, an undelete or an unverify is `case_modified`, and verified turning true is
 * `case_verified` (both when both happen). Pure.
 */
export function caseEventKinds(old: CaseImage | null, now: CaseImage): EventKind[] {
  if (!old) return ['case_uploaded'];
  if (!old.deleted && now.deleted) return ['case_deleted'];
  const kinds: EventKind[] = [];
  const modified =
    old.data !== now.data ||
    old.label !== now.label ||
    old.caseKey !== now.caseKey ||
    old.notes !== now.notes ||
    (old.deleted && !now.deleted) ||
    (old.verified && !now.verified);
  if (modified) kinds.push('case_modified');
  if (!old.verified && now.verified) kinds.push('case_verified');
  return kinds;
}

/** The kinds of event one captured change can give, before `eventsFromChange` keeps the wanted ones. Pure. */
export function changeKinds(row: OutboxRow): EventKind[] {
  return row.topic === 'dictionary' ? ['dictionary_uploaded'] : caseEventKinds(row.old, row.new!);
}

/**
 * The events of one captured change, restricted to the kinds in `wanted` so the diff of a
 * modified case is computed only when someone subscribes to `case_modified`. Pure.
 */
export function eventsFromChange(row: OutboxRow, wanted: (kind: EventKind) => boolean): EventOut[] {
  if (row.topic === 'dictionary') {
    if (!wanted('dictionary_uploaded')) return [];
    return [
      {
        event: 'dictionary_uploaded',
        data: { dictionary: row.dictionaryName, label: row.dictLabel, version: row.dictVersion, created: row.dictCreated === true },
      },
    ];
  }
  const now = row.new!;
  const guid = row.guid!;
  const dictionary = row.dictionaryName;
  const out: EventOut[] = [];
  for (const kind of caseEventKinds(row.old, now)) {
    if (!wanted(kind)) continue;
    const caseSummary = summary(guid, now, row.modifiedAt ?? '');
    if (kind === 'case_deleted') out.push({ event: kind, data: { case_id: guid, dictionary } });
    else if (kind === 'case_modified')
      out.push({ event: kind, data: { dictionary, case_id: guid, case: caseSummary, changes: diffCase(row.old!.data, now.data) } });
    else out.push({ event: kind, data: { dictionary, case_id: guid, case: caseSummary } });
  }
  return out;
}
