import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import type { Dictionary } from '../../../src/cspro/dictionary/model.js';
import { readJsonCasesFile } from '../../../src/cspro/case/json-cases-reader.js';
import type { CaseReadResult } from '../../../src/cspro/case/case-result.js';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/cspro');

async function readAll(path: string, d: Dictionary): Promise<CaseReadResult[]> {
  const out: CaseReadResult[] = [];
  for await (const r of readJsonCasesFile(path, d)) out.push(r);
  return out;
}

describe('readJsonCasesFile', () => {
  let dir: string;
  let popstan: Dictionary;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sds-json-'));
    popstan = parseDictionary(readFileSync(join(FIXTURES, 'popstan-census.json.dcf')), { file: 'popstan-census.json.dcf' });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const ids = { PROVINCE: 1, DISTRICT: 1, VILLAGE: 30, EA: 1, UR: 1, BUILDING: 21, HU: 24, HH: 1 };
  const field = { name: 'P04_AGE', levelKey: '', recordOccurrence: 2, itemOccurrence: 1, subitemOccurrence: 0 };

  it('reads level-1 as a string, as an object and old data lines, with notes, clock and partial save', async () => {
    const cases = [
      {
        id: '11111111-1111-4111-8111-111111111111',
        caseids: '010103000110210241',
        clock: [{ deviceId: 'tab-1', revision: 2 }],
        notes: [{ content: 'age checked', field, operatorId: 'enum1', modifiedTime: '2024-03-01T10:00:00Z' }],
        'level-1': JSON.stringify({
          id: ids,
          PERSON: [
            { LINE: 1, P04_AGE: 19 },
            { LINE: 2, P04_AGE: '7' },
          ],
          HOUSING: { H01_TYPE: 1 },
        }),
      },
      {
        id: '22222222-2222-4222-8222-222222222222',
        caseids: '010103000110210242',
        clock: [],
        partialSave: { mode: 'add', field },
        'level-1': { id: { ...ids, HH: 2 }, PERSON: [{ LINE: 1, P15_OCC: 93, P15A_OCC: 9, P04_AGE: 'DEFAULT' }] },
      },
      {
        id: '33333333-3333-4333-8333-333333333333',
        caseids: '010103000110210243',
        clock: [{ deviceId: 'tab-2', revision: 1 }],
        data: ['10101030001102102430252075101011049', '20101030001102102431112'],
      },
    ];
    const path = join(dir, 'cases.json');
    writeFileSync(path, '\uFEFF' + JSON.stringify(cases, null, 2));
    const results = await readAll(path, popstan);
    assert.deepEqual(results, [
      {
        ok: true,
        index: 0,
        warnings: [],
        case: {
          id: '11111111-1111-4111-8111-111111111111',
          caseids: '010103000110210241',
          notes: [{ content: 'age checked', field, operatorId: 'enum1', modifiedTime: '2024-03-01T10:00:00Z' }],
          clock: [{ deviceId: 'tab-1', revision: 2 }],
          'level-1': {
            id: ids,
            PERSON: [
              { LINE: 1, P04_AGE: 19 },
              { LINE: 2, P04_AGE: 7 },
            ],
            HOUSING: { H01_TYPE: 1 },
          },
        },
      },
      {
        ok: true,
        index: 1,
        warnings: [],
        case: {
          id: '22222222-2222-4222-8222-222222222222',
          caseids: '010103000110210242',
          clock: [],
          partialSave: { mode: 'add', field },
          'level-1': { id: { ...ids, HH: 2 }, PERSON: [{ LINE: 1, P04_AGE: 'DEFAULT', P15_OCC: 93, P15A_OCC: 9 }] },
        },
      },
      {
        ok: true,
        index: 2,
        warnings: [],
        case: {
          id: '33333333-3333-4333-8333-333333333333',
          caseids: '010103000110210243',
          clock: [{ deviceId: 'tab-2', revision: 1 }],
          'level-1': {
            id: { ...ids, HH: 3 },
            PERSON: [
              {
                LINE: 2,
                P02_REL: 5,
                P03_SEX: 2,
                P04_AGE: 7,
                P05_MS: 5,
                P06_MOTHER: 1,
                P07_BIRTH: 1,
                P08_RES95: 1,
                P09_ATTEND: 1,
                P10_HIGH_GR: 4,
                P11_LITERACY: 9,
              },
            ],
            HOUSING: { H01_TYPE: 1, H02_WALL: 1, H03_ROOF: 1, H04_FLOOR: 2 },
          },
        },
      },
    ]);
  });

  it('reports a bad element with its index and reads on; stops at broken JSON', async () => {
    const good = { id: '44444444-4444-4444-8444-444444444444', clock: [], 'level-1': { id: ids } };
    const path = join(dir, 'bad.json');
    writeFileSync(path, `[${JSON.stringify({ ...good, 'level-1': { id: { ...ids, EA: 'x' } } })}, ${JSON.stringify(good)}, {"id": `);
    const results = await readAll(path, popstan);
    assert.equal(results.length, 3);
    const [first, second, third] = results;
    assert.ok(first && !first.ok);
    assert.equal(first.error.code, 'CASE_INVALID');
    assert.deepEqual(first.error.details, {
      file: path,
      index: 0,
      id: '44444444-4444-4444-8444-444444444444',
      path: 'level-1.id.EA',
      record: 'id',
      item: 'EA',
    });
    assert.ok(second?.ok);
    assert.equal(second.case.caseids, '010103000110210241');
    assert.ok(third && !third.ok);
    assert.equal(third.error.code, 'CASE_INVALID');
    assert.equal(third.error.details.index, 2);
  });

  it('refuses a top level that is not an array', async () => {
    const path = join(dir, 'object.json');
    writeFileSync(path, '{"id": "x"}');
    const results = await readAll(path, popstan);
    assert.equal(results.length, 1);
    const [only] = results;
    assert.ok(only && !only.ok);
    assert.equal(only.error.details.index, 0);
    assert.match(only.error.message, /not a JSON array of cases/);
  });
});
