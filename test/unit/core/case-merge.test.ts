import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeCaseWrite, toCaseWrite } from '../../../src/core/cases/merge.js';
import type { SyncCase } from '../../../src/cspro/case/model.js';
import type { StoredCase } from '../../../src/store/cases-repo.js';

const mergeIncoming = (c: SyncCase, existing: StoredCase | undefined, device: string) => mergeCaseWrite(toCaseWrite(c), existing, device);

const incoming = (over: Partial<SyncCase> = {}): SyncCase => ({
  id: 'g1',
  caseids: '0101',
  clock: [],
  'level-1': { id: { A: 1 }, REC: { X: 2 } },
  ...over,
});

const stored = (over: Partial<StoredCase> = {}): StoredCase => ({
  guid: 'g1',
  caseKey: '0101',
  label: '',
  data: JSON.stringify({ id: { A: 1 }, REC: { X: 2 } }),
  verified: false,
  deleted: false,
  revision: 5,
  clock: [{ deviceId: 'srv', revision: 1 }],
  partialSave: null,
  notes: [],
  createdAt: 't',
  modifiedAt: 't',
  ...over,
});

test('a new case without a clock gets the server device at revision 1', () => {
  const r = mergeIncoming(incoming(), undefined, 'srv');
  assert.equal(r.outcome, 'inserted');
  assert.deepEqual(r.write!.clock, [{ deviceId: 'srv', revision: 1 }]);
});

test('the same content again is unchanged; a change ticks the server device', () => {
  assert.equal(mergeIncoming(incoming(), stored(), 'srv').outcome, 'unchanged');
  const changed = mergeIncoming(incoming({ 'level-1': { id: { A: 1 }, REC: { X: 3 } } }), stored(), 'srv');
  assert.equal(changed.outcome, 'updated');
  assert.deepEqual(changed.write!.clock, [{ deviceId: 'srv', revision: 2 }]);
  assert.equal(mergeIncoming(incoming({ deleted: true }), stored(), 'srv').outcome, 'updated');
});

test('clocked cases reconcile: older ignored, newer replaces, concurrent merges and wins', () => {
  const server = stored({ clock: [{ deviceId: 'tab1', revision: 3 }] });
  const older = mergeIncoming(incoming({ clock: [{ deviceId: 'tab1', revision: 2 }], label: 'x' }), server, 'srv');
  assert.equal(older.outcome, 'older');
  const newer = mergeIncoming(incoming({ clock: [{ deviceId: 'tab1', revision: 4 }], label: 'x' }), server, 'srv');
  assert.equal(newer.outcome, 'updated');
  assert.deepEqual(newer.write!.clock, [{ deviceId: 'tab1', revision: 4 }]);
  const both = mergeIncoming(incoming({ clock: [{ deviceId: 'tab2', revision: 1 }], label: 'y' }), server, 'srv');
  assert.equal(both.outcome, 'updated');
  assert.deepEqual(both.write!.clock, [
    { deviceId: 'tab1', revision: 3 },
    { deviceId: 'tab2', revision: 1 },
  ]);
  assert.equal(both.write!.label, 'y');
});
