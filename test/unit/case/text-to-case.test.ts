import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../src/shared/errors.js';
import { textToCase } from '../../../src/cspro/case/text-to-case.js';
import { caseKeyOf, idItemText, levelKeyOf, lineKeyText } from '../../../src/cspro/case/case-key.js';
import { caseGuid, isUuid, uuidV5 } from '../../../src/cspro/case/case-guid.js';
import { alpha, dictionary, item, level, miniDict, record } from './build-dict.js';

// MINI_DICT lines (see build-dict.ts for the columns).
const H = 'H01001' + '2' + '00123450' + ' 12.345678' + '99';
const ALICE = 'P01001' + 'ALICE'.padEnd(20) + ' 34' + '19900415' + '0102';
const BOB = 'P01001' + 'BOB'.padEnd(20) + '  7' + '20170301' + '  03';

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError);
    return err;
  }
  assert.fail('expected an error');
}

describe('textToCase', () => {
  it('reads the composed MINI_DICT case (build-dict.ts)', () => {
    const { level1, warnings } = textToCase(miniDict(), [H, ALICE, BOB]);
    assert.deepEqual(level1, {
      id: { PROV: 1, HHNUM: 1 },
      HH_REC: { ROOF: 2, INCOME: 1234.5, GPS_LAT: 12.345678, AGE_HEAD: 99 },
      PERSON_REC: [
        { NAME: 'ALICE', AGE: 34, DOB: 19900415, DOB_YEAR: 1990, DOB_MONTH: 4, CHILDREN: [1, 2] },
        { NAME: 'BOB', AGE: 7, DOB: 20170301, DOB_YEAR: 2017, DOB_MONTH: 3, CHILDREN: ['', 3] },
      ],
    });
    assert.deepEqual(warnings, []);
  });

  it('puts records in dictionary order whatever the line order, and skips blank and erased lines', () => {
    const { level1 } = textToCase(miniDict(), [ALICE, '', '~' + H.slice(1), H, '   ']);
    assert.deepEqual(Object.keys(level1), ['id', 'HH_REC', 'PERSON_REC']);
    assert.equal((level1.PERSON_REC as unknown[]).length, 1);
  });

  it('maps DEFAULT to its code, keeps `***` silent and warns about text that is not a number', () => {
    const line = (ageHead: string, age: string) => [H.slice(0, 25) + ageHead, 'P01001' + 'X'.padEnd(20) + age];
    const a = textToCase(miniDict(), line('**', '***'));
    assert.equal((a.level1.HH_REC as Record<string, unknown>).AGE_HEAD, 98);
    assert.equal((a.level1.PERSON_REC as Record<string, unknown>[])[0]?.AGE, 'DEFAULT');
    assert.deepEqual(a.warnings, []);
    const b = textToCase(miniDict(), [{ text: line('x9', ' 3a')[1] as string, line: 7 }]);
    assert.deepEqual(b.warnings, [
      {
        kind: 'invalid-value',
        message: 'item AGE holds " 3a", not a number; read as DEFAULT',
        record: 'PERSON_REC',
        item: 'AGE',
        occurrence: 1,
        value: ' 3a',
        line: 7,
      },
    ]);
  });

  it('drops occurrences beyond maxOccurrences with a warning', () => {
    const lines = [ALICE, BOB, ALICE, { text: BOB, line: 12 }];
    const { level1, warnings } = textToCase(miniDict(), lines);
    assert.equal((level1.PERSON_REC as unknown[]).length, 3);
    assert.deepEqual(warnings, [
      {
        kind: 'too-many-records',
        message: 'record PERSON_REC has more than 3 occurrences; the extra line is dropped',
        record: 'PERSON_REC',
        occurrence: 4,
        line: 12,
      },
    ]);
  });

  it('refuses an unknown record type, a line cut inside a numeric id and a non-numeric id', () => {
    const a = thrown(() => textToCase(miniDict(), [H, { text: 'Z01001xx', line: 3 }]));
    assert.equal(a.code, 'CASE_INVALID');
    assert.equal(a.message, 'unknown record type "Z"');
    assert.deepEqual(a.details, { line: 3, record: 'Z' });
    const b = thrown(() => textToCase(miniDict(), [{ text: 'H0100', line: 4 }]));
    assert.equal(b.message, 'id item HHNUM is not a number: "00 "');
    assert.deepEqual(b.details, { line: 4, item: 'HHNUM' });
    const c = thrown(() => textToCase(miniDict(), [{ text: 'H0A001', line: 5 }]));
    assert.equal(c.message, 'id item PROV is not a number: "0A"');
    assert.deepEqual(c.details, { line: 5, item: 'PROV' });
    assert.equal(thrown(() => textToCase(miniDict(), ['', '~x'])).message, 'the case has no record lines');
  });

  it('reads a line trimmed inside the id area as padded with blanks: a blank id is a warning', () => {
    // CLUSTER 2-4, VISIT 5-6 (blank, trimmed away), HHNUM 7-8 (numeric, blank, trimmed away).
    const recs = [record('P', '1', 5, [item('AGE', 9, 2)]), record('H', '2', 1, [alpha('WALL', 9, 4)])];
    const dict = dictionary('TRIM', [level('L', [item('CLUSTER', 2, 3), alpha('VISIT', 5, 2), item('HHNUM', 7, 2)], recs)], {
      start: 1,
      length: 1,
    });
    const { level1, warnings } = textToCase(dict, [
      { text: '1215    30', line: 1 },
      { text: '1215', line: 2 },
      { text: '1215    ', line: 3 },
      { text: '2215    MUD', line: 4 },
    ]);
    assert.deepEqual(level1, { id: { CLUSTER: 215 }, P: [{ AGE: 30 }, {}, {}], H: { WALL: 'MUD' } });
    assert.deepEqual(warnings, [
      { kind: 'blank-id', message: 'id item VISIT is blank', item: 'VISIT', line: 1 },
      { kind: 'blank-id', message: 'id item HHNUM is blank', item: 'HHNUM', line: 1 },
    ]);
    // A line that holds nothing but a short record type still reads: every id is blank.
    assert.deepEqual(textToCase(dict, ['2']).level1, { id: {}, H: {} });
  });

  it('matches a multi-character record type exactly after padding', () => {
    const recs = [record('A_REC', 'A', 1, [item('X', 5, 1)]), record('AB_REC', 'AB', 1, [item('Y', 5, 1)])];
    const dict = dictionary('RT', [level('L', [item('ID', 3, 2)], recs)], { start: 1, length: 2 });
    assert.deepEqual(textToCase(dict, ['A 017', 'AB018']).level1, { id: { ID: 1 }, A_REC: { X: 7 }, AB_REC: { Y: 8 } });
  });

  it('reads a dictionary without record type (one record)', () => {
    const dict = dictionary(
      'LOOKUP',
      [level('L', [item('CODE', 1, 2, { zeroFill: true })], [record('R', '', 1, [alpha('NAME', 3, 10)])])],
      {
        start: 0,
        length: 0,
      },
    );
    assert.deepEqual(textToCase(dict, ['01Alabama']).level1, { id: { CODE: 1 }, R: { NAME: 'Alabama' } });
  });
});

describe('case keys and GUIDs', () => {
  it('renders ids with their own width and zero fill (docs/cspro-formats.md#case-keys)', () => {
    const ids = [item('P', 1, 2, { zeroFill: true }), alpha('V', 3, 3), item('C', 6, 2)];
    assert.equal(levelKeyOf(ids, { P: 1, V: '001', C: 1 }), '01001 1');
    assert.equal(levelKeyOf(ids, { P: 1 }), '01     ');
    assert.equal(idItemText(item('M', 1, 3, { zeroFill: true }), 'MISSING'), '***');
    assert.equal(caseKeyOf(miniDict(), textToCase(miniDict(), [H]).level1), '01001');
    assert.equal(lineKeyText(miniDict(), 'P0100'), '0100 ');
  });

  it('makes RFC 4122 v5 UUIDs', () => {
    // The RFC 4122 appendix namespace for DNS and Python's uuid5(NAMESPACE_DNS, 'python.org').
    assert.equal(uuidV5('python.org', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'), '886313e1-3b8a-5372-9b90-0c9aee199e5d');
    const guid = caseGuid('MINI_DICT', '01001');
    assert.ok(isUuid(guid));
    assert.equal(guid[14], '5');
    assert.equal(caseGuid('MINI_DICT', '01001'), guid);
    assert.notEqual(caseGuid('MINI_DICT', '01002'), guid);
    assert.notEqual(caseGuid('OTHER', '01001'), guid);
  });
});

describe('isUuid', () => {
  it('takes the 8-4-4-4-12 hex form in either case, nothing else', () => {
    const good = '997F1B93-b3c7-468E-BA29-7c9b799a0281';
    assert.ok(isUuid(good));
    assert.ok(isUuid(good.toUpperCase()) && isUuid(good.toLowerCase()));
    const reference = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    // Every character of every position swapped for a few others: the check agrees with the pattern.
    for (let i = 0; i < good.length; i++) {
      for (const c of ['-', '0', '9', 'a', 'f', 'A', 'F', 'g', 'G', '@', '`', '/', ':', ' ', 'é', '\u0141']) {
        const s = good.slice(0, i) + c + good.slice(i + 1);
        assert.equal(isUuid(s), reference.test(s), s);
      }
    }
    for (const bad of ['', good.slice(1), good + '0', `{${good}}`, 42, undefined, null]) assert.equal(isUuid(bad), false, String(bad));
  });
});
