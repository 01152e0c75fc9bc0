import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../src/shared/errors.js';
import { normalizeSyncCase } from '../../../src/cspro/case/sync-json.js';
import { miniDict } from './build-dict.js';

const ID = '997F1B93-B3C7-468E-BA29-7C9B799A0281';
const LEVEL = {
  id: { PROV: 1, HHNUM: '1' },
  HH_REC: { ROOF: 2, INCOME: 1234.5, GPS_LAT: '12.345678', AGE_HEAD: 'MISSING', UNKNOWN_ITEM: 5 },
  PERSON_REC: [
    { NAME: 'ALICE   ', AGE: 34, DOB: 19900415, DOB_YEAR: 1990, DOB_MONTH: 4, CHILDREN: [1, 2, ''] },
    { NAME: 'BOB', AGE: '', CHILDREN: ['', 3] },
  ],
  UNKNOWN_REC: { X: 1 },
};
const EXPECTED_LEVEL = {
  id: { PROV: 1, HHNUM: 1 },
  HH_REC: { ROOF: 2, INCOME: 1234.5, GPS_LAT: 12.345678, AGE_HEAD: 99 },
  PERSON_REC: [
    { NAME: 'ALICE', AGE: 34, DOB: 19900415, DOB_YEAR: 1990, DOB_MONTH: 4, CHILDREN: [1, 2] },
    { NAME: 'BOB', CHILDREN: ['', 3] },
  ],
};

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError);
    return err;
  }
  assert.fail('expected an error');
}

describe('normalizeSyncCase', () => {
  it('accepts level-1 as a JSON string and as an object, and canonicalises it', () => {
    const clock = [{ deviceId: 'dev1', revision: 3 }];
    const asString = normalizeSyncCase({ id: ID, caseids: '01001', clock, 'level-1': JSON.stringify(LEVEL) }, miniDict());
    const asObject = normalizeSyncCase({ id: ID, caseids: '01001', clock, 'level-1': LEVEL }, miniDict());
    const expected = { id: ID.toLowerCase(), caseids: '01001', clock, 'level-1': EXPECTED_LEVEL };
    assert.deepEqual(asString, { case: expected, warnings: [] });
    assert.deepEqual(asObject, { case: expected, warnings: [] });
  });

  it('converts the old `data` lines and rebuilds caseids when absent', () => {
    const data = ['H01001200123450 12.345678', 'P01001ALICE                34199004150102'];
    const { case: c } = normalizeSyncCase({ id: ID, clock: [], data }, miniDict());
    assert.equal(c.caseids, '01001');
    assert.deepEqual(c['level-1'], {
      id: { PROV: 1, HHNUM: 1 },
      HH_REC: { ROOF: 2, INCOME: 1234.5, GPS_LAT: 12.345678 },
      PERSON_REC: [{ NAME: 'ALICE', AGE: 34, DOB: 19900415, DOB_YEAR: 1990, DOB_MONTH: 4, CHILDREN: [1, 2] }],
    });
  });

  it('keeps label, flags, notes and partial save in sync-format order', () => {
    const field = { name: 'AGE', levelKey: '', recordOccurrence: 2, itemOccurrence: 0, subitemOccurrence: 0 };
    const raw = {
      'level-1': { id: { PROV: 1, HHNUM: 1 } },
      partialSave: { mode: 'modify', field },
      clock: [],
      notes: [{ content: 'checked', field, operatorId: 'op1', modifiedTime: '1973-11-29T21:33:09Z' }],
      verified: true,
      deleted: false,
      label: 'House 1',
      id: ID,
    };
    const { case: c } = normalizeSyncCase(raw, miniDict());
    assert.deepEqual(Object.keys(c), ['id', 'caseids', 'label', 'verified', 'notes', 'clock', 'partialSave', 'level-1']);
    assert.deepEqual(c.partialSave, { mode: 'modify', field });
    assert.deepEqual(c.notes, [{ content: 'checked', field, operatorId: 'op1', modifiedTime: '1973-11-29T21:33:09Z' }]);
  });

  it('drops records and occurrences beyond the maximum with warnings', () => {
    const person = { NAME: 'P', CHILDREN: [1, 2, 3, 4] };
    const { case: c, warnings } = normalizeSyncCase(
      {
        id: ID,
        clock: [],
        'level-1': { id: { PROV: 1, HHNUM: 1 }, PERSON_REC: [person, person, person, person], HH_REC: [{ ROOF: 1 }, { ROOF: 2 }] },
      },
      miniDict(),
    );
    assert.deepEqual(c['level-1'].HH_REC, { ROOF: 1 });
    assert.equal((c['level-1'].PERSON_REC as unknown[]).length, 3);
    assert.deepEqual(
      warnings.map((w) => [w.kind, w.record, w.item]),
      [
        ['too-many-records', 'HH_REC', undefined],
        ['too-many-records', 'PERSON_REC', undefined],
        ['too-many-occurrences', 'PERSON_REC', 'CHILDREN'],
        ['too-many-occurrences', 'PERSON_REC', 'CHILDREN'],
        ['too-many-occurrences', 'PERSON_REC', 'CHILDREN'],
      ],
    );
  });

  it('refuses bad cases with the case id, path and item', () => {
    const bad = (raw: unknown) => thrown(() => normalizeSyncCase(raw, miniDict(), { file: 'up.json', index: 4 }));
    const a = bad({ id: ID, caseids: '01001', clock: [], 'level-1': { id: { PROV: 1 }, PERSON_REC: [{ AGE: 'abc' }] } });
    assert.equal(a.code, 'CASE_INVALID');
    assert.equal(a.message, 'level-1.PERSON_REC[0].AGE: expects a number or MISSING/REFUSED/DEFAULT/NOTAPPL, got "abc"');
    assert.deepEqual(a.details, {
      file: 'up.json',
      index: 4,
      id: ID.toLowerCase(),
      case: '01001',
      path: 'level-1.PERSON_REC[0].AGE',
      record: 'PERSON_REC',
      item: 'AGE',
    });
    assert.equal(bad({ id: 'nope', clock: [] }).message, 'id must be a GUID (8-4-4-4-12 hex digits)');
    assert.equal(bad({ id: ID, 'level-1': {} }).message, 'clock must be an array of {deviceId, revision}');
    // Anything but a safe integer ≥ 0: past 2^53 - 1 a JSON number is no longer exact.
    for (const [revision, got] of [
      [-1, '-1'],
      [1.5, '1.5'],
      [1e308, '1e+308'],
      [2 ** 53, '9007199254740992'],
      ['3', '"3"'],
    ] as const) {
      const e = bad({
        id: ID,
        clock: [
          { deviceId: 'd', revision: 1 },
          { deviceId: 'e', revision },
        ],
        'level-1': {},
      });
      assert.equal(e.code, 'CASE_INVALID');
      assert.equal(e.message, `clock[1].revision must be a whole number from 0 to 9007199254740991, got ${got}`);
      assert.equal(e.details?.path, 'clock[1].revision');
    }
    assert.equal(
      normalizeSyncCase({ id: ID, clock: [{ deviceId: 'd', revision: 2 ** 53 - 1 }], 'level-1': {} }, miniDict()).case.clock[0]!.revision,
      2 ** 53 - 1,
    );
    assert.equal(bad({ id: ID, clock: [], 'level-1': '{not json' }).message.startsWith('level-1 is not valid JSON'), true);
    assert.equal(bad({ id: ID, clock: [] }).message, 'the case has neither level-1 nor data');
    assert.equal(bad({ id: ID, clock: [], 'level-1': { id: {}, HH_REC: 5 } }).message, 'level-1.HH_REC must be an object');
    assert.equal(
      bad({ id: ID, clock: [], 'level-1': { id: { PROV: [1] } } }).message,
      'level-1.id.PROV: expects a single value, got an array',
    );
    assert.equal(
      bad({ id: ID, clock: [], partialSave: { mode: 'x' }, 'level-1': {} }).message,
      'partialSave.mode must be add, modify or verify',
    );
    assert.equal(bad([]).message, 'a case must be a JSON object');
  });

  it('reads a record whose keys come out of dictionary order as one in order: output, warnings and first problem', () => {
    const clock = [{ deviceId: 'dev1', revision: 1 }];
    const level = (person: Record<string, unknown>) => ({ id: { PROV: 1, HHNUM: 1 }, PERSON_REC: [person] });
    const long = 'X'.repeat(25);
    const inOrder = normalizeSyncCase({ id: ID, clock, 'level-1': level({ NAME: long, AGE: 34, CHILDREN: [1, 2, 3, 4] }) }, miniDict());
    const reversed = normalizeSyncCase({ id: ID, clock, 'level-1': level({ CHILDREN: [1, 2, 3, 4], AGE: 34, NAME: long }) }, miniDict());
    // Stored JSON is canonical: the same text, keys in dictionary order, whatever order they came in.
    assert.equal(JSON.stringify(reversed.case['level-1']), JSON.stringify(inOrder.case['level-1']));
    assert.equal(JSON.stringify(reversed.case['level-1'].PERSON_REC), '[{"NAME":"XXXXXXXXXXXXXXXXXXXX","AGE":34,"CHILDREN":[1,2,3]}]');
    assert.deepEqual(
      reversed.warnings.map((w) => w.kind),
      ['value-truncated', 'too-many-occurrences'],
    );
    assert.deepEqual(reversed.warnings, inOrder.warnings);
    // Two refused items: the first in dictionary order is named, also when it comes last.
    const err = thrown(() => normalizeSyncCase({ id: ID, clock, 'level-1': level({ CHILDREN: 'many', NAME: {} }) }, miniDict()));
    assert.equal(err.details.item, 'NAME');
    const err2 = thrown(() =>
      normalizeSyncCase({ id: ID, clock, 'level-1': level({ AGE: 1, CHILDREN: 'x', NAME: 'A', DOB: {} }) }, miniDict()),
    );
    assert.equal(err2.details.item, 'DOB');
  });
});
