import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import type { Dictionary } from '../../../src/cspro/dictionary/model.js';
import { readCsdbDictionaryText, readCsdbFile, readCsdbInfo } from '../../../src/cspro/case/csdb-reader.js';
import type { CaseReadResult } from '../../../src/cspro/case/case-result.js';
import type { RecordObject } from '../../../src/cspro/case/model.js';
import { dictionary, item, level, record, alpha } from '../../unit/case/build-dict.js';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/cspro');
const CSDB = join(FIXTURES, 'capi-household.csdb');

async function readAll(path: string, d: Dictionary): Promise<CaseReadResult[]> {
  const out: CaseReadResult[] = [];
  for await (const r of readCsdbFile(path, d)) out.push(r);
  return out;
}

describe('readCsdbFile on capi-household.csdb (schema 3)', () => {
  let capi: Dictionary;
  let results: CaseReadResult[];
  before(async () => {
    capi = parseDictionary(readFileSync(join(FIXTURES, 'capi-household.dcf')), { file: 'capi-household.dcf' });
    results = await readAll(CSDB, capi);
  });

  it('reads the 4 cases in file order, with their stored keys and GUIDs', () => {
    assert.deepEqual(
      results.map((r) => (r.ok ? [r.index, r.case.id, r.case.caseids, r.warnings.length] : r.error.message)),
      [
        [0, '0434eff7-49c1-4ee1-a53f-ac7fb9881b36', '1109037A0001', 0],
        [1, '5f50c361-9f02-420d-b5d3-f9a3e52eccd8', '1109037A0002', 0],
        [2, 'd867105f-bbca-4d35-b716-7d2341ac0c68', '1109037A0003', 0],
        [3, '7a0c9fc6-502f-488c-962a-4249ff6db33f', '1109101A0001', 0],
      ],
    );
  });

  it('keeps vector clocks and the partial save of the last case', () => {
    for (const r of results) assert.deepEqual(r.ok && r.case.clock, [{ deviceId: '507b9dea16c1', revision: 1 }]);
    const last = results[3];
    assert.ok(last?.ok);
    assert.deepEqual(last.case.partialSave, {
      mode: 'add',
      field: { name: 'HH_GPS_READING', levelKey: '', recordOccurrence: 1, itemOccurrence: 1, subitemOccurrence: 0 },
    });
    assert.deepEqual(Object.keys(last.case), ['id', 'caseids', 'clock', 'partialSave', 'level-1']);
    assert.equal(results.filter((r) => r.ok && r.case.partialSave).length, 1);
    assert.equal(
      results.some((r) => r.ok && (r.case.deleted || r.case.verified || r.case.label || r.case.notes)),
      false,
    );
  });

  it('reads ids, the alpha parent with numeric subitems and GPS decimals', () => {
    const first = results[0];
    assert.ok(first?.ok);
    const l1 = first.case['level-1'];
    assert.deepEqual(l1.id, { HH_PROVINCE: 11, HH_DISTRICT: 9, HH_EA: 37, HH_SEGMENT: 'A', HH_NUMBER: 1 });
    const persons = l1.POPULATION_RECORD as RecordObject[];
    assert.equal(persons.length, 3);
    assert.deepEqual(persons[0], {
      HH_KEEP_ROW: 1,
      HH_NAME: 'LINCOLN DAVIS',
      HH_RELATIONSHIP: 1,
      HH_SEX: 1,
      HH_DATE_OF_BIRTH: '041965',
      HH_MONTH_BORN: 4,
      HH_YEAR_BORN: 1965,
      HH_AGE: 56,
      HH_CITIZENSHIP: 1,
      HH_RESIDENCE_SITUATION: 1,
      HH_LITERACY: 1,
      HH_EDUCATION: 5,
      HH_WORK_STATUS: 1,
      HH_MARITAL_STATUS: 2,
      HH_MARITAL_AGE: 33,
      HH_MORE_ROWS: 1,
    });
    const meta = l1.METADATA_RECORD as RecordObject;
    assert.deepEqual(
      [meta.HH_GPS_LATITUDE, meta.HH_GPS_LONGITUDE, meta.HH_GPS_ALTITUDE, meta.HH_GPS_ACCURACY, meta.HH_PROGRAM_PUBLISH_DATE],
      [38.922705, -77.036166, 5.4, 5.4, 20211207123419],
    );
    const third = results[2];
    assert.ok(third?.ok);
    assert.equal((third.case['level-1'].METADATA_RECORD as RecordObject).HH_GPS_ALTITUDE, -25.8);
  });

  it('keeps a blank roster row of the partial case as an empty occurrence', () => {
    const last = results[3];
    assert.ok(last?.ok);
    assert.deepEqual(last.case['level-1'].POPULATION_RECORD, [{}]);
    assert.equal(last.case['level-1'].DWELLING_UNIT_RECORD, undefined);
  });

  it('exposes the embedded dictionary', () => {
    const info = readCsdbInfo(CSDB);
    assert.deepEqual([info.schemaVersion, info.csproVersion], [3, '8.0.0']);
    assert.equal(JSON.parse(readCsdbDictionaryText(CSDB)).name, 'PSC_HOUSEHOLD_DICT');
  });
});

describe('readCsdbFile on a schema-2 file with notes and flags (built by the test)', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sds-csdb-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads text questionnaires, notes, deleted/verified, label and a broken case', async () => {
    const dict = dictionary(
      'STATES',
      [level('L', [item('CODE', 1, 2, { zeroFill: true })], [record('R', '', 1, [alpha('NAME', 3, 10)])])],
      {
        start: 0,
        length: 0,
      },
    );
    const path = join(dir, 'states.csdb');
    const db = new Database(path);
    db.exec(`CREATE TABLE meta (schema_version INTEGER, cspro_version TEXT, dictionary TEXT);
      CREATE TABLE cases (id TEXT, key TEXT, label TEXT, questionnaire TEXT, last_modified_revision INTEGER, deleted INTEGER,
        file_order REAL, verified INTEGER, partial_save_mode TEXT, partial_save_field_name TEXT, partial_save_level_key TEXT,
        partial_save_record_occurrence INTEGER, partial_save_item_occurrence INTEGER, partial_save_subitem_occurrence INTEGER);
      CREATE TABLE vector_clock (case_id TEXT, device TEXT, revision INTEGER);
      CREATE TABLE notes (case_id TEXT, field_name TEXT, level_key TEXT, record_occurrence INTEGER, item_occurrence INTEGER,
        subitem_occurrence INTEGER, content TEXT, operator_id TEXT, modified_time INTEGER);`);
    db.prepare('INSERT INTO meta VALUES (2, ?, ?)').run('7.1.0', '\uFEFF[Dictionary]\r\nName=STATES\r\n');
    const ins = db.prepare('INSERT INTO cases VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    ins.run('B0000000-0000-4000-8000-000000000002', '02', 'Alaska', '02Alaska\r\n', 1, 2, 1, '3', null, null, null, null, null);
    ins.run('a0000000-0000-4000-8000-000000000001', '01', '', '01Alabama\r\n', 0, 1, 0, null, null, null, null, null, null);
    ins.run('c0000000-0000-4000-8000-000000000003', '0X', '', '0XBad\r\n', 0, 3, 0, null, null, null, null, null, null);
    db.prepare('INSERT INTO vector_clock VALUES (?, ?, ?)').run('a0000000-0000-4000-8000-000000000001', 'dev-a', 4);
    db.prepare('INSERT INTO vector_clock VALUES (?, ?, ?)').run('a0000000-0000-4000-8000-000000000001', 'dev-b', 1);
    db.prepare('INSERT INTO notes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
      'B0000000-0000-4000-8000-000000000002',
      'NAME',
      '',
      1,
      0,
      0,
      'spelling?',
      'op7',
      123456789,
    );
    db.close();

    assert.equal(readCsdbDictionaryText(path), '[Dictionary]\r\nName=STATES\r\n');
    const results = await readAll(path, dict);
    assert.equal(results.length, 3);
    assert.deepEqual(results[0], {
      ok: true,
      index: 0,
      warnings: [],
      case: {
        id: 'a0000000-0000-4000-8000-000000000001',
        caseids: '01',
        clock: [
          { deviceId: 'dev-a', revision: 4 },
          { deviceId: 'dev-b', revision: 1 },
        ],
        'level-1': { id: { CODE: 1 }, R: { NAME: 'Alabama' } },
      },
    });
    assert.deepEqual(results[1], {
      ok: true,
      index: 1,
      warnings: [],
      case: {
        id: 'b0000000-0000-4000-8000-000000000002',
        caseids: '02',
        label: 'Alaska',
        deleted: true,
        verified: true,
        notes: [
          {
            content: 'spelling?',
            field: { name: 'NAME', levelKey: '', recordOccurrence: 1, itemOccurrence: 0, subitemOccurrence: 0 },
            operatorId: 'op7',
            modifiedTime: '1973-11-29T21:33:09Z',
          },
        ],
        clock: [],
        partialSave: { mode: 'verify' },
        'level-1': { id: { CODE: 2 }, R: { NAME: 'Alaska' } },
      },
    });
    const bad = results[2];
    assert.ok(bad && !bad.ok);
    assert.equal(bad.error.code, 'CASE_INVALID');
    assert.equal(bad.error.message, 'id item CODE is not a number: "0X"');
    assert.deepEqual(bad.error.details, { file: path, index: 2, case: '0X', id: 'c0000000-0000-4000-8000-000000000003', item: 'CODE' });
  });

  it('refuses a clock revision that is not a safe whole number (2^53 + 1 would be read as 2^53)', async () => {
    const dict = dictionary(
      'STATES',
      [level('L', [item('CODE', 1, 2, { zeroFill: true })], [record('R', '', 1, [alpha('NAME', 3, 10)])])],
      {
        start: 0,
        length: 0,
      },
    );
    const path = join(dir, 'clocks.csdb');
    const db = new Database(path);
    db.exec(`CREATE TABLE meta (schema_version INTEGER, cspro_version TEXT, dictionary TEXT);
      CREATE TABLE cases (id TEXT, key TEXT, label TEXT, questionnaire TEXT, last_modified_revision INTEGER, deleted INTEGER,
        file_order REAL, verified INTEGER);
      CREATE TABLE vector_clock (case_id TEXT, device TEXT, revision INTEGER);`);
    db.prepare('INSERT INTO meta VALUES (2, ?, ?)').run('7.1.0', '[Dictionary]\r\nName=STATES\r\n');
    const ins = db.prepare('INSERT INTO cases VALUES (?, ?, ?, ?, 1, 0, ?, 0)');
    ins.run('a0000000-0000-4000-8000-000000000001', '01', '', '01Alabama\r\n', 1);
    ins.run('b0000000-0000-4000-8000-000000000002', '02', '', '02Alaska\r\n', 2);
    const clock = db.prepare('INSERT INTO vector_clock VALUES (?, ?, ?)');
    clock.run('a0000000-0000-4000-8000-000000000001', 'dev-a', 2n ** 53n - 1n);
    clock.run('b0000000-0000-4000-8000-000000000002', 'dev-a', 1);
    clock.run('b0000000-0000-4000-8000-000000000002', 'dev-b', 2n ** 53n + 1n);
    db.close();
    const [good, bad] = await readAll(path, dict);
    assert.ok(good?.ok);
    assert.deepEqual(good.case.clock, [{ deviceId: 'dev-a', revision: 2 ** 53 - 1 }]);
    assert.ok(bad && !bad.ok);
    assert.equal(bad.error.code, 'CASE_INVALID');
    assert.equal(bad.error.message, 'clock[1].revision must be a whole number from 0 to 9007199254740991, got 9007199254740993');
    assert.equal(bad.error.details?.path, 'clock[1].revision');
  });
});
