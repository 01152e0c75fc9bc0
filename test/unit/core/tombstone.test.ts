import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tombstoneOf } from '../../../src/core/cases/delete.js';
import { DEFAULT_CASE_LIMITS } from '../../../src/cspro/case/case-limits.js';
import type { StoredCase } from '../../../src/store/cases-repo.js';

const note = {
  content: 'n',
  field: { name: 'A', levelKey: '', recordOccurrence: 0, itemOccurrence: 0, subitemOccurrence: 0 },
  operatorId: 'op',
  modifiedTime: 't',
};
const stored: StoredCase = {
  guid: 'g',
  caseKey: '001',
  label: 'House 1',
  data: '{"id":{"A":1}}',
  verified: true,
  deleted: false,
  revision: 3,
  clock: [{ deviceId: 'd', revision: 1 }],
  partialSave: null,
  notes: [note],
  createdAt: 'c',
  modifiedAt: 'm',
};

test('tombstone: keeps the case within the limits; empties only the fields over them', () => {
  assert.deepEqual(tombstoneOf(stored, DEFAULT_CASE_LIMITS), { ...stored, deleted: true });
  const limits = { ...DEFAULT_CASE_LIMITS, labelChars: 3, dataChars: 5, noteChars: 10 };
  const big = { ...stored, notes: [note, { ...note, content: 'x'.repeat(11) }] };
  assert.deepEqual(tombstoneOf(big, limits), { ...stored, deleted: true, label: '', data: '{"id":{}}', notes: [] });
  assert.deepEqual(tombstoneOf({ ...stored, notes: Array(4).fill(note) }, { ...DEFAULT_CASE_LIMITS, notes: 3 }).notes, []);
});
