import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { AppError } from '../../../src/shared/errors.js';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { checkCsdbFile, readCsdbFile } from '../../../src/cspro/case/csdb-reader.js';
import { dictionaryDifferences } from '../../../src/cspro/case/csdb-check.js';
import type { CaseReadResult } from '../../../src/cspro/case/case-result.js';
import { writeCsdb } from '../../helpers/build-csdb.js';
import { OWN_CASES, otherDcfText, trimmedDcfText, trimmedDict, writeOtherCsdb, writeOwnCsdb } from '../../helpers/trimmed-ids.js';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/cspro');

async function readAll(path: string, dict = trimmedDict()): Promise<CaseReadResult[]> {
  const out: CaseReadResult[] = [];
  for await (const r of readCsdbFile(path, dict)) out.push(r);
  return out;
}

function mismatch(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, 'DICTIONARY_MISMATCH', err.message);
    return err;
  }
  assert.fail('expected DICTIONARY_MISMATCH');
}

describe('a .csdb checked against the dictionary', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sds-csdb-check-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a file written with the dictionary (the built file is realistic)', async () => {
    const path = join(dir, 'own.csdb');
    writeOwnCsdb(path);
    checkCsdbFile(path, trimmedDict());
    const results = await readAll(path);
    assert.deepEqual(
      results.map((r) => (r.ok ? [r.case.caseids, r.case['level-1']] : r.error.message)),
      OWN_CASES.map((c) => [c.key, c.level1]),
    );
  });

  it('passes the real capi-household.csdb with its own dictionary', () => {
    checkCsdbFile(join(FIXTURES, 'capi-household.csdb'), parseDictionary(readFileSync(join(FIXTURES, 'capi-household.dcf'))));
  });

  it('refuses a file of another dictionary with the same record names, naming the items, before reading a case', async () => {
    const path = join(dir, 'other.csdb');
    writeOtherCsdb(path);
    const e = mismatch(() => checkCsdbFile(path, trimmedDict()));
    assert.equal(e.details.file, path);
    assert.equal(e.details.dictionary, 'TRIMMED_IDS_DICT');
    assert.deepEqual(e.details.differences, [
      // From the dictionary embedded in meta:
      'the ids of level-1 are EA_CODE, DWELLING, ROUND in the file, CLUSTER, HHNUM, VISIT in the dictionary',
      'record PERSON has items PNUM, GENDER, AGE_YEARS, FULL_NAME in the file that the dictionary does not have',
      'record HOUSING has items ROOF_TYPE, ROOM_COUNT in the file that the dictionary does not have',
      // From the tables:
      'table level-1 has no column for ids cluster, hhnum, visit',
      'table level-1 has columns ea_code, dwelling, round that no id of the dictionary reads',
      'table person of record PERSON has columns pnum, gender, age_years, full_name that no item of the dictionary reads',
      'table housing of record HOUSING has columns roof_type, room_count that no item of the dictionary reads',
    ]);
    assert.match(e.message, /^.*other\.csdb was not written with dictionary TRIMMED_IDS_DICT: the ids of level-1 are EA_CODE/);
    assert.match(e.message, /and 2 more differences$/);
    await assert.rejects(readAll(path), (err: AppError) => err.code === 'DICTIONARY_MISMATCH');
  });

  it('refuses on the tables alone when the embedded dictionary is missing', () => {
    const path = join(dir, 'no-meta-dictionary.csdb');
    writeOtherCsdb(path);
    const db = new Database(path);
    db.prepare("UPDATE meta SET dictionary = ''").run();
    db.close();
    const e = mismatch(() => checkCsdbFile(path, trimmedDict()));
    assert.deepEqual(e.details.differences, [
      'table level-1 has no column for ids cluster, hhnum, visit',
      'table level-1 has columns ea_code, dwelling, round that no id of the dictionary reads',
      'table person of record PERSON has columns pnum, gender, age_years, full_name that no item of the dictionary reads',
      'table housing of record HOUSING has columns roof_type, room_count that no item of the dictionary reads',
    ]);
  });

  it('refuses on the embedded dictionary alone when the tables fit but the dictionary is another', () => {
    const path = join(dir, 'renamed.csdb');
    writeCsdb(path, trimmedDict(), trimmedDcfText().replace('Name=TRIMMED_IDS_DICT', 'Name=HOUSEHOLD_LISTING'), OWN_CASES);
    const e = mismatch(() => checkCsdbFile(path, trimmedDict()));
    assert.deepEqual(e.details.differences, ['the file was written with dictionary HOUSEHOLD_LISTING, not TRIMMED_IDS_DICT']);
  });

  it('reads a file that lacks an item and a record added to the dictionary later: they read blank', async () => {
    const older = trimmedDcfText()
      .replace(/\[Record\]\r\nLabel=Housing record[\s\S]*$/, '')
      .replace(/\[Item\]\r\nLabel=Age\r\n[^[]*/, '');
    const olderDict = parseDictionary(older);
    const path = join(dir, 'older.csdb');
    writeCsdb(path, olderDict, older, [
      { ...OWN_CASES[0]!, level1: { id: { CLUSTER: 101, HHNUM: 1, VISIT: 1 }, PERSON: [{ LINE: 1, SEX: 2, NAME: 'A' }] } },
    ]);
    checkCsdbFile(path, trimmedDict());
    const [r] = await readAll(path);
    assert.ok(r?.ok);
    assert.deepEqual(r.case['level-1'], { id: { CLUSTER: 101, HHNUM: 1, VISIT: 1 }, PERSON: [{ LINE: 1, SEX: 2, NAME: 'A' }] });
  });

  it('compares types, decimals and, for text questionnaires, positions and record types', () => {
    const dict = trimmedDict();
    const moved = parseDictionary(
      trimmedDcfText()
        .replace("RecordTypeValue='2'", "RecordTypeValue='H'")
        .replace('Name=AGE\r\nStart=13\r\nLen=3\r\n', 'Name=AGE\r\nStart=13\r\nLen=3\r\nDataType=Alpha\r\n'),
    );
    assert.deepEqual(dictionaryDifferences(dict, moved, false), ['record PERSON item AGE is alpha in the file, numeric in the dictionary']);
    assert.deepEqual(dictionaryDifferences(dict, moved, true), [
      'record PERSON item AGE is alpha, columns 13-15 in the file, numeric, columns 13-15 in the dictionary',
      "record HOUSING has record type 'H' in the file, '2' in the dictionary",
    ]);
    assert.deepEqual(
      dictionaryDifferences(dict, parseDictionary(otherDcfText().replace(/Name=\w+_DICT/, 'Name=TRIMMED_IDS_DICT')), false).length,
      3,
    );
  });
});
