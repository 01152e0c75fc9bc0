/**
 * The V3 case JSON codec (CSPro 8.1): real cases of the fixtures go model → V3 → model unchanged,
 * and hand-written V3 JSON in the shapes CSPro 8.1 writes reads into the model and back.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { readDatFile } from '../../../src/cspro/case/dat-reader.js';
import { readCsdbFile } from '../../../src/cspro/case/csdb-reader.js';
import type { SyncCase } from '../../../src/cspro/case/model.js';
import type { Dictionary } from '../../../src/cspro/dictionary/model.js';
import { AppError } from '../../../src/shared/errors.js';
import { toCaseWrite } from '../../../src/core/cases/index.js';
import { isV3Case, normalizeV3Case, v3CaseJson, v3CaseObject, v3CasesJson, type V3CaseSource } from '../../../src/sync/case-json-v3.js';
import { dictionary, item, level, miniDict, record } from '../case/build-dict.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../../fixtures/cspro/${name}`, import.meta.url));
const dictOf = (name: string) => parseDictionary(readFileSync(fixture(name)), { file: name });
const UUID = '997f1b93-b3c7-468e-ba29-7c9b799a0281';
const MD5 = '0123456789abcdef0123456789abcdef';

/** A model case as the store hands it to the writer. */
const sourceOf = (c: SyncCase): V3CaseSource => toCaseWrite(c);

async function readAll(reader: AsyncGenerator<{ ok: boolean; case?: SyncCase }>): Promise<SyncCase[]> {
  const out: SyncCase[] = [];
  for await (const r of reader) {
    assert.ok(r.ok && r.case);
    out.push(r.case);
  }
  return out;
}

/** model → V3 text → model, as an upload of a downloaded case would go. */
function roundTrip(c: SyncCase, dict: Dictionary): SyncCase {
  const text = v3CaseJson(sourceOf(c), dict);
  const { case: back, warnings } = normalizeV3Case(JSON.parse(text), dict);
  assert.deepEqual(warnings, []);
  return back;
}

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError);
    return err;
  }
  assert.fail('expected an error');
}

describe('V3 case JSON, round trips of real cases', () => {
  it('every Popstan census case, with notes, a case note, flags, a partial save and a clock added to some', async () => {
    const dict = dictOf('popstan-census.json.dcf');
    const cases = await readAll(readDatFile(fixture('popstan-census.dat'), dict));
    assert.equal(cases.length, 4872);
    const field = { name: 'P03_SEX', levelKey: '', recordOccurrence: 2, itemOccurrence: 0, subitemOccurrence: 0 };
    cases.forEach((c, k) => {
      if (k % 3 === 0) {
        c.label = `case ${k}`;
        c.clock = [
          { deviceId: 'tablet-a', revision: k },
          { deviceId: 'server', revision: 2 },
        ];
      }
      if (k % 5 === 0) c.notes = [{ content: `note ${k}\nsecond line`, field, operatorId: 'op7', modifiedTime: '2024-03-01T10:00:00Z' }];
      if (k % 7 === 0) c.partialSave = { mode: 'modify', field: { ...field, levelKey: c.caseids } };
      if (k % 11 === 0) c.caseNote = 'revisit: head of household away';
      if (k % 13 === 0) c.verified = true;
      if (k % 17 === 0) c.deleted = true;
    });
    let persons = 0;
    for (const c of cases) {
      persons += (c['level-1'].PERSON as unknown[] | undefined)?.length ?? 0;
      assert.deepEqual(roundTrip(c, dict), c);
    }
    assert.ok(persons > 20000, 'the census has rosters of persons');
  });

  it('the CAPI household .csdb cases (partial save, vector clocks, subitems, specials)', async () => {
    const dict = dictOf('capi-household.dcf');
    const cases = await readAll(readCsdbFile(fixture('capi-household.csdb'), dict));
    assert.equal(cases.length, 4);
    assert.ok(cases.some((c) => c.partialSave));
    for (const c of cases) assert.deepEqual(roundTrip(c, dict), c);
  });

  it('a two-level case: child levels keyed by the level name, ids directly in each level', () => {
    const dict = dictOf('two-level.json.dcf');
    const c: SyncCase = {
      id: UUID,
      caseids: '01020304001',
      clock: [{ deviceId: 'd1', revision: 1 }],
      'level-1': {
        id: { PROV: 1, DIST: 2, VILLAGE: 3, EA: 4, BUILD: 1 },
        BUILD_REC: { ROOF: 1, WATER: 2, NUMBER_OF_HUS: 2 },
        'level-2': [
          {
            id: { HOUSE_NUMBER: 1 },
            HOUSE_REC: { TELEPHONE: 1, HEAT: 2 },
            POP_RECC: [
              { LINE: 1, SEX: 1, AGE: 40 },
              { LINE: 2, SEX: 2, AGE: 38 },
            ],
          },
          { id: { HOUSE_NUMBER: 2 }, HOUSE_REC: { PC: 1 } },
        ],
      },
    };
    const v3 = v3CaseObject(sourceOf(c), dict);
    assert.deepEqual(v3.TWO_LEVEL_QUEST, {
      PROV: { code: 1 },
      DIST: { code: 2 },
      VILLAGE: { code: 3 },
      EA: { code: 4 },
      BUILD: { code: 1 },
      BUILD_REC: [{ ROOF: { code: 1 }, WATER: { code: 2 }, NUMBER_OF_HUS: { code: 2 } }],
      HOUSEHOLD: [
        {
          HOUSE_NUMBER: { code: 1 },
          HOUSE_REC: [{ TELEPHONE: { code: 1 }, HEAT: { code: 2 } }],
          POP_RECC: [
            { LINE: { code: 1 }, SEX: { code: 1 }, AGE: { code: 40 } },
            { LINE: { code: 2 }, SEX: { code: 2 }, AGE: { code: 38 } },
          ],
        },
        { HOUSE_NUMBER: { code: 2 }, HOUSE_REC: [{ PC: { code: 1 } }] },
      ],
    });
    assert.deepEqual(roundTrip(c, dict), c);
  });
});

describe('V3 case JSON, hand-written', () => {
  // The shapes CSPro 8.1 writes (docs/sync.md#v3-case-json), on the small test dictionary.
  const v3 = {
    key: '01001',
    uuid: UUID.toUpperCase(),
    label: 'House 1',
    verified: true,
    partialSave: { mode: 'modify', name: 'AGE', levelKey: '01001', occurrences: { record: 2, item: 0, subitem: 0 } },
    caseNote: 'call back on Monday',
    notes: [
      {
        text: 'checked',
        modifiedTime: '1973-11-29T21:33:09Z',
        operatorId: 'op1',
        name: 'AGE',
        occurrences: { record: 2, item: 0, subitem: 0 },
      },
      { text: 'about the house', name: 'QUEST' },
    ],
    QUEST: {
      PROV: { code: 1 },
      HHNUM: { code: 1 },
      HH_REC: [{ ROOF: { code: 2 }, INCOME: { code: 1234.5 }, AGE_HEAD: { code: 'MISSING' } }],
      PERSON_REC: [
        { NAME: { code: 'ALICE' }, AGE: { code: 34 }, CHILDREN: [{ code: 1 }, {}, { code: 3 }] },
        { NAME: { code: 'BOB' }, AGE: {} },
      ],
    },
    clock: [{ deviceId: 'dev1', revision: 3 }],
    position: 17,
  };
  const model: SyncCase = {
    id: UUID,
    caseids: '01001',
    label: 'House 1',
    verified: true,
    notes: [
      {
        content: 'checked',
        field: { name: 'AGE', levelKey: '', recordOccurrence: 2, itemOccurrence: 0, subitemOccurrence: 0 },
        operatorId: 'op1',
        modifiedTime: '1973-11-29T21:33:09Z',
      },
      {
        content: 'about the house',
        field: { name: 'QUEST', levelKey: '', recordOccurrence: 0, itemOccurrence: 0, subitemOccurrence: 0 },
        operatorId: '',
        modifiedTime: '',
      },
    ],
    clock: [{ deviceId: 'dev1', revision: 3 }],
    partialSave: {
      mode: 'modify',
      field: { name: 'AGE', levelKey: '01001', recordOccurrence: 2, itemOccurrence: 0, subitemOccurrence: 0 },
    },
    caseNote: 'call back on Monday',
    'level-1': {
      id: { PROV: 1, HHNUM: 1 },
      HH_REC: { ROOF: 2, INCOME: 1234.5, AGE_HEAD: 99 },
      PERSON_REC: [{ NAME: 'ALICE', AGE: 34, CHILDREN: [1, '', 3] }, { NAME: 'BOB' }],
    },
  };

  it('reads into the model (the position ignored, specials mapped as in the older format)', () => {
    assert.equal(isV3Case(v3), true);
    const { case: c, warnings } = normalizeV3Case(v3, miniDict());
    assert.deepEqual(warnings, []);
    assert.deepEqual(c, model);
  });

  it('writes back, keys in CSPro’s order, blanks and unset flags left out', () => {
    const text = v3CaseJson(sourceOf(model), miniDict());
    const expected = { ...v3, uuid: UUID } as Record<string, unknown>;
    delete expected.position;
    // The mapped special goes out as its code, which CSPro reads back as the special.
    (expected.QUEST as { HH_REC: Record<string, unknown>[] }).HH_REC[0]!.AGE_HEAD = { code: 99 };
    (expected.QUEST as { PERSON_REC: Record<string, unknown>[] }).PERSON_REC[1] = { NAME: { code: 'BOB' } };
    assert.equal(text, JSON.stringify(expected));
    assert.deepEqual(Object.keys(JSON.parse(text) as object), [
      'key',
      'uuid',
      'label',
      'verified',
      'partialSave',
      'caseNote',
      'notes',
      'QUEST',
      'clock',
    ]);
  });

  it('a minimal case: key, uuid, the level, clock; mode "none" is no partial save; a blank case note is none', () => {
    const minimal = {
      key: '02003',
      uuid: UUID,
      partialSave: { mode: 'none' },
      caseNote: '  ',
      QUEST: { PROV: { code: 2 }, HHNUM: { code: 3 } },
    };
    const { case: c } = normalizeV3Case(minimal, miniDict());
    assert.deepEqual(c, { id: UUID, caseids: '02003', clock: [], 'level-1': { id: { PROV: 2, HHNUM: 3 } } });
    assert.equal(
      v3CaseJson(sourceOf(c), miniDict()),
      `{"key":"02003","uuid":"${UUID}","QUEST":{"PROV":{"code":2},"HHNUM":{"code":3}},"clock":[]}`,
    );
    assert.equal(v3CasesJson([sourceOf(c), sourceOf(c)], miniDict()).startsWith(`[{"key":"02003"`), true);
  });

  it('binary items: {metadata, signature, size} ⇄ the stored descriptor', () => {
    const dict = dictionary('PHOTO_DICT', [
      level(
        'QUEST',
        [item('ID', 2, 3)],
        [
          record('PHOTO_REC', 'P', 1, [
            item('PHOTO', 5, 1, { contentType: 'image' }),
            item('SHOTS', 6, 1, { contentType: 'image', occurrences: 3 }),
          ]),
        ],
      ),
    ]);
    const metadata = { mimeType: 'image/jpeg', filename: 'door.jpg' };
    const raw = {
      key: '001',
      uuid: UUID,
      QUEST: {
        ID: { code: 1 },
        PHOTO_REC: [{ PHOTO: { metadata, signature: MD5, size: 1234 }, SHOTS: [{}, { signature: MD5, size: 1234 }] }],
      },
      clock: [],
    };
    const { case: c } = normalizeV3Case(raw, dict);
    assert.deepEqual(c['level-1'].PHOTO_REC, {
      PHOTO: { metadata, caseid: UUID, signature: MD5, length: 1234 },
      SHOTS: ['', { caseid: UUID, signature: MD5, length: 1234 }],
    });
    assert.deepEqual(v3CaseObject(sourceOf(c), dict).QUEST, raw.QUEST);
  });

  it('a case in the older form is read as before', () => {
    const older = { id: UUID, caseids: '01001', clock: [], 'level-1': JSON.stringify({ id: { PROV: 1, HHNUM: 1 } }) };
    assert.equal(isV3Case(older), false);
    assert.deepEqual(normalizeV3Case(older, miniDict()).case, {
      id: UUID,
      caseids: '01001',
      clock: [],
      'level-1': { id: { PROV: 1, HHNUM: 1 } },
    });
  });

  it('refuses what cannot be a V3 case, naming the case and the place', () => {
    const bad = (raw: Record<string, unknown>) =>
      thrown(() => normalizeV3Case({ key: '01001', uuid: UUID, ...raw }, miniDict(), { index: 2 }));
    const a = bad({ QUEST: { PROV: { code: 1 }, PERSON_REC: [{ AGE: { code: 'abc' } }] } });
    assert.equal(a.code, 'CASE_INVALID');
    assert.equal(a.details.index, 2);
    assert.equal(a.details.id, UUID);
    assert.equal(a.details.item, 'AGE');
    assert.equal(bad({ QUEST: { PROV: { code: { x: 1 } } } }).message, 'QUEST.PROV.code must be a number or a text');
    assert.equal(bad({ QUEST: { PERSON_REC: [5] } }).message, 'QUEST.PERSON_REC[0] must be an object');
    assert.equal(bad({ QUEST: [] }).message, 'QUEST must be an object');
    assert.equal(bad({ notes: {} }).message, 'notes must be an array');
    assert.equal(bad({ notes: [{ name: 'AGE' }] }).message, 'notes[0].content must be a string');
    assert.equal(bad({ partialSave: { mode: 'later' } }).message, 'partialSave.mode must be add, modify or verify');
    assert.equal(bad({ uuid: 'nope' }).message, 'id must be a GUID (8-4-4-4-12 hex digits)');
    assert.equal(bad({ caseNote: 5 }).message, 'caseNote must be a string');
  });
});
