/**
 * The one content equality of cases (src/core/cases/content.ts): every field a case holds,
 * except its guid and clock, counts. The table of changes is typed over the fields of a case
 * write, so a field added to the store's cases does not compile here until it is listed, and
 * fails here until the equality compares it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sameContent } from '../../../src/core/cases/content.js';
import { mergeCaseWrite } from '../../../src/core/cases/merge.js';
import type { CaseWrite } from '../../../src/store/cases-repo.js';

const field = { name: 'P1', levelKey: '', recordOccurrence: 1, itemOccurrence: 0, subitemOccurrence: 0 };

const base: Required<CaseWrite> = {
  guid: '00000000-0000-4000-8000-000000000001',
  caseKey: '001001',
  label: 'House 1',
  data: '{"id":{"CLUSTER":1,"HHNO":1}}',
  verified: false,
  deleted: false,
  clock: [{ deviceId: 'tab1', revision: 1 }],
  partialSave: { mode: 'add', field },
  notes: [{ content: 'check', field, operatorId: 'op1', modifiedTime: '2025-01-15T08:00:00Z' }],
  caseNote: 'dog in the yard',
};

/** One change per content field: what the case looks like with only that field changed. */
const changes: Record<Exclude<keyof CaseWrite, 'guid' | 'clock'>, Partial<CaseWrite>> = {
  caseKey: { caseKey: '001002' },
  label: { label: 'House 2' },
  data: { data: '{"id":{"CLUSTER":1,"HHNO":2}}' },
  verified: { verified: true },
  deleted: { deleted: true },
  partialSave: { partialSave: { mode: 'modify', field } },
  notes: { notes: [] },
  caseNote: { caseNote: 'no dog' },
};

test('every content field counts: a case differing in only one of them is not the same content', () => {
  assert.ok(sameContent(base, { ...base }));
  for (const [name, change] of Object.entries(changes)) {
    assert.equal(sameContent({ ...base, ...change }, base), false, name);
    assert.equal(sameContent(base, { ...base, ...change }), false, name);
  }
  // A blank case note and none are the same: V3 drops a blank one (docs/sync.md#v3-case-json).
  const { caseNote: _dropped, ...noNote } = base;
  assert.ok(sameContent({ ...noNote }, { ...base, caseNote: '' }));
  // The clock is not content: each write path weighs it in its own way.
  assert.ok(sameContent({ ...base, clock: [{ deviceId: 'tab2', revision: 7 }] }, base));
});

test('the merge sees a change in the case note alone as an update', () => {
  const stored = { ...base, revision: 4, createdAt: 't', modifiedAt: 't' };
  assert.equal(mergeCaseWrite({ ...base }, stored, 'srv').outcome, 'unchanged');
  const r = mergeCaseWrite({ ...base, caseNote: 'no dog' }, stored, 'srv');
  assert.equal(r.outcome, 'updated');
  assert.equal(r.write?.caseNote, 'no dog');
});
