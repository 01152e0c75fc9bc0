import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import type { Dictionary } from '../../../src/cspro/dictionary/model.js';
import { readDatFile } from '../../../src/cspro/case/dat-reader.js';
import { caseGuid } from '../../../src/cspro/case/case-guid.js';
import { textToCase } from '../../../src/cspro/case/text-to-case.js';
import type { DatCaseResult } from '../../../src/cspro/case/case-result.js';
import type { RecordObject } from '../../../src/cspro/case/model.js';

const FIXTURES = join(import.meta.dirname, '../../../fixtures/cspro');
const POPSTAN_DAT = join(FIXTURES, 'popstan-census.dat');

function dict(file: string): Dictionary {
  return parseDictionary(readFileSync(join(FIXTURES, file)), { file });
}

async function readAll(path: string, d: Dictionary): Promise<DatCaseResult[]> {
  const out: DatCaseResult[] = [];
  for await (const r of readDatFile(path, d)) out.push(r);
  return out;
}

function ok(r: DatCaseResult | undefined) {
  assert.ok(r?.ok, r && !r.ok ? r.error.message : 'no result');
  return r;
}

/** The fixture's first lines grouped by the level-1 key (cols 2–19), BOM removed. */
function popstanCases(lineCount: number): string[][] {
  const lines = readFileSync(POPSTAN_DAT, 'utf8')
    .replace(/^\uFEFF/, '')
    .split('\n')
    .slice(0, lineCount);
  const groups: string[][] = [];
  let key: string | undefined;
  for (const line of lines) {
    if (line.slice(1, 19) !== key) groups.push([]);
    key = line.slice(1, 19);
    groups.at(-1)?.push(line);
  }
  return groups.slice(0, -1); // the last group may be cut
}

describe('readDatFile on popstan-census.dat', () => {
  let popstan: Dictionary;
  let results: DatCaseResult[];
  before(async () => {
    popstan = dict('popstan-census.json.dcf');
    results = await readAll(POPSTAN_DAT, popstan);
  });

  it('reads exactly 4,872 cases, with no error and no warning', () => {
    assert.equal(results.length, 4872);
    assert.deepEqual(
      results.filter((r) => !r.ok),
      [],
    );
    assert.equal(
      results.reduce((n, r) => n + (r.ok ? r.warnings.length : 0), 0),
      0,
    );
  });

  it('keeps every record line: 24,271 persons and 4,872 housing records', () => {
    let persons = 0;
    let housing = 0;
    for (const r of results) {
      if (!r.ok) continue;
      persons += (r.case['level-1'].PERSON as RecordObject[] | undefined)?.length ?? 0;
      if (r.case['level-1'].HOUSING) housing++;
    }
    // 24,271 lines start with '1': with the 4,872 housing lines they make the file's 29,143 lines.
    assert.deepEqual([persons, housing], [24271, 4872]);
  });

  it('reads the first case as its raw lines say (BOM stripped)', () => {
    // 101010300011021024101121951010121111  93292100000
    // 10101030001102102410252075101011049
    // 10101030001102102410351045101
    // 20101030001102102411123021000522150003
    const first = ok(results[0]);
    assert.equal(first.firstLine, 1);
    assert.equal(first.case.caseids, '010103000110210241');
    assert.equal(first.case.id, caseGuid('CEN2000', '010103000110210241'));
    assert.deepEqual(first.case.clock, []);
    assert.equal(first.case.label, undefined);
    assert.deepEqual(first.case['level-1'], {
      id: { PROVINCE: 1, DISTRICT: 1, VILLAGE: 30, EA: 1, UR: 1, BUILDING: 21, HU: 24, HH: 1 },
      PERSON: [
        {
          LINE: 1,
          P02_REL: 1,
          P03_SEX: 2,
          P04_AGE: 19,
          P05_MS: 5,
          P06_MOTHER: 1,
          P07_BIRTH: 1,
          P08_RES95: 1,
          P09_ATTEND: 2,
          P10_HIGH_GR: 11,
          P11_LITERACY: 1,
          P12_WORKING: 1,
          // P13_LOOKING and P14_WHY_NOT (cols 37–38) are blank → omitted.
          P15_OCC: 93,
          P15A_OCC: 9,
          P16_IND: 29,
          P16A_IND: 2,
          P17_WK_STATUS: 2,
          ECON_ACTIVE: 1,
          P18_BORN: 0,
          P19_LIVING: 0,
          P20_BORN12: 0,
        },
        // The line ends at col 35: everything after P11_LITERACY is blank.
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
        // Ends at col 29: P08_RES95 (NOTAPPL mapped to a blank pair) is blank → omitted.
        { LINE: 3, P02_REL: 5, P03_SEX: 1, P04_AGE: 4, P05_MS: 5, P06_MOTHER: 1, P07_BIRTH: 1 },
      ],
      HOUSING: {
        H01_TYPE: 1,
        H02_WALL: 1,
        H03_ROOF: 2,
        H04_FLOOR: 3,
        H05_ROOMS: 2,
        H06_TENURE: 1,
        H07_RENT: 0,
        H08_TOILET: 5,
        H09_BATH: 2,
        H10_WATER: 2,
        H11_LIGHT: 1,
        H12_FUEL: 5,
        H13_PERSONS: 3,
      },
    });
  });

  it('reads a 12-person roster with subitems (case 2, lines 5–17)', () => {
    const second = ok(results[1]);
    assert.equal(second.firstLine, 5);
    const persons = second.case['level-1'].PERSON as RecordObject[];
    assert.equal(persons.length, 12);
    assert.deepEqual(
      persons.map((p) => p.LINE),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
    );
    // 101011710011087003101114011010320911  919521: P15_OCC 91 → P15A_OCC 9, P16_IND 95 → P16A_IND 9.
    assert.deepEqual(persons[0], {
      LINE: 1,
      P02_REL: 1,
      P03_SEX: 1,
      P04_AGE: 40,
      P05_MS: 1,
      P06_MOTHER: 1,
      P07_BIRTH: 1,
      P08_RES95: 3,
      P09_ATTEND: 2,
      P10_HIGH_GR: 9,
      P11_LITERACY: 1,
      P12_WORKING: 1,
      P15_OCC: 91,
      P15A_OCC: 9,
      P16_IND: 95,
      P16A_IND: 9,
      P17_WK_STATUS: 2,
      ECON_ACTIVE: 1,
    });
    // 10101171001108700310832065101012009 → P04_AGE 6, P10_HIGH_GR 0.
    assert.deepEqual(persons[7], {
      LINE: 8,
      P02_REL: 3,
      P03_SEX: 2,
      P04_AGE: 6,
      P05_MS: 5,
      P06_MOTHER: 1,
      P07_BIRTH: 1,
      P08_RES95: 1,
      P09_ATTEND: 2,
      P10_HIGH_GR: 0,
      P11_LITERACY: 9,
    });
    assert.deepEqual(second.case['level-1'].HOUSING, { H01_TYPE: 6, H13_PERSONS: 12 });
  });

  it('holds only numbers: popstan has no invalid or unmapped special value', () => {
    let strings = 0;
    for (const r of results) {
      if (!r.ok) continue;
      const records = [...((r.case['level-1'].PERSON as RecordObject[] | undefined) ?? []), r.case['level-1'].HOUSING as RecordObject];
      for (const rec of records) for (const v of Object.values(rec ?? {})) if (typeof v !== 'number') strings++;
    }
    assert.equal(strings, 0);
  });

  it('gives the same GUIDs on a second read', async () => {
    const again: string[] = [];
    for await (const r of readDatFile(POPSTAN_DAT, popstan)) {
      if (r.ok) again.push(r.case.id);
      if (again.length === 3) break;
    }
    assert.deepEqual(
      again,
      results.slice(0, 3).map((r) => (r.ok ? r.case.id : '')),
    );
    assert.equal(new Set(results.map((r) => (r.ok ? r.case.id : ''))).size, 4872);
  });
});

describe('readDatFile with broken cases', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sds-dat-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reports the broken cases with line, key and reason, and reads the rest', async () => {
    const popstan = dict('popstan-census.json.dcf');
    const [a, b, c, d] = popstanCases(40) as [string[], string[], string[], string[]];
    const keyB = (b[0] as string).slice(1, 19);
    const lines = [
      ...a, // lines 1–4
      b[0],
      '3' + keyB + '12345',
      ...b.slice(1), // 5: first line of B, 6: unknown record type '3'
      '~' + (c[0] as string).slice(1), // erased line
      '',
      ...c,
      '1010107', // cut inside the numeric id VILLAGE ("07 ")
      ...d,
    ];
    const path = join(dir, 'broken.dat');
    // CRLF endings and a BOM, as CSPro writes them.
    writeFileSync(path, '\uFEFF' + lines.join('\r\n') + '\r\n');
    const results = await readAll(path, popstan);
    assert.deepEqual(
      results.map((r) => r.ok),
      [true, false, true, false, true],
    );

    const errB = results[1];
    assert.ok(errB && !errB.ok);
    assert.equal(errB.error.code, 'CASE_INVALID');
    assert.equal(errB.error.message, 'unknown record type "3"');
    assert.deepEqual(errB.error.details, { file: path, line: 6, case: keyB, record: '3' });

    const shortLine = 4 + 1 + b.length + 2 + c.length + 1;
    const errShort = results[3];
    assert.ok(errShort && !errShort.ok);
    assert.equal(errShort.error.message, 'id item VILLAGE is not a number: "07 "');
    assert.deepEqual(errShort.error.details, { file: path, line: shortLine, case: '010107            ', item: 'VILLAGE' });

    assert.deepEqual(
      results.filter((r) => r.ok).map((r) => (r.ok ? [r.case.caseids, r.firstLine] : [])),
      [
        [(a[0] as string).slice(1, 19), 1],
        [(c[0] as string).slice(1, 19), 4 + 1 + b.length + 3],
        [(d[0] as string).slice(1, 19), shortLine + 1],
      ],
    );
    const third = results[2];
    assert.ok(third?.ok);
    assert.deepEqual(third.warnings, []);
  });

  it('warns about an invalid numeric and a repeated key, and throws IO_ERROR for a missing file', async () => {
    const popstan = dict('popstan-census.json.dcf');
    const [a, b] = popstanCases(20) as [string[], string[]];
    const bad = (a[0] as string).slice(0, 23) + 'x9' + (a[0] as string).slice(25); // P04_AGE = "x9"
    const path = join(dir, 'warn.dat');
    writeFileSync(path, [bad, ...a.slice(1), ...b, ...a].join('\n'));
    const results = await readAll(path, popstan);
    assert.equal(results.length, 3);
    const first = ok(results[0]);
    assert.equal((first.case['level-1'].PERSON as RecordObject[])[0]?.P04_AGE, 'DEFAULT');
    assert.deepEqual(first.warnings, [
      {
        kind: 'invalid-value',
        message: 'item P04_AGE holds "x9", not a number; read as DEFAULT',
        record: 'PERSON',
        item: 'P04_AGE',
        occurrence: 1,
        value: 'x9',
        line: 1,
      },
    ]);
    const last = ok(results[2]);
    assert.equal(last.case.id, first.case.id);
    assert.deepEqual(
      last.warnings.map((w) => [w.kind, w.line]),
      [['duplicate-key', 4 + b.length + 1]],
    );

    await assert.rejects(readAll(join(dir, 'missing.dat'), popstan), (err: Error & { code?: string }) => err.code === 'IO_ERROR');
  });
});

describe('readDatFile on a two-level dictionary', () => {
  it('builds level-2 arrays by the level-2 key', async () => {
    const twoLevel = dict('two-level.text.dcf');
    const k1 = '010203004005';
    const lines = [
      '1' + k1 + '   ' + '12002',
      '2' + k1 + '001' + '101',
      '3' + k1 + '001' + '01' + '1' + '034' + '1',
      '3' + k1 + '001' + '02' + '2' + '030' + '1',
      '2' + k1 + '002' + '210',
      '3' + k1 + '002' + '01' + '2' + '067' + '3',
      '1' + '010203004006' + '   ' + '31001',
    ];
    const dir = mkdtempSync(join(tmpdir(), 'sds-dat2-'));
    try {
      const path = join(dir, 'two.dat');
      writeFileSync(path, lines.join('\n') + '\n');
      const results = await readAll(path, twoLevel);
      assert.equal(results.length, 2);
      const first = ok(results[0]);
      assert.equal(first.case.caseids, k1);
      assert.deepEqual(first.case['level-1'], {
        id: { PROV: 1, DIST: 2, VILLAGE: 3, EA: 4, BUILD: 5 },
        BUILD_REC: { ROOF: 1, WATER: 2, NUMBER_OF_HUS: 2 },
        'level-2': [
          {
            id: { HOUSE_NUMBER: 1 },
            HOUSE_REC: { TELEPHONE: 1, HEAT: 0, PC: 1 },
            POP_RECC: [
              { LINE: 1, SEX: 1, AGE: 34, M_STATUS: 1 },
              { LINE: 2, SEX: 2, AGE: 30, M_STATUS: 1 },
            ],
          },
          { id: { HOUSE_NUMBER: 2 }, HOUSE_REC: { TELEPHONE: 2, HEAT: 1, PC: 0 }, POP_RECC: [{ LINE: 1, SEX: 2, AGE: 67, M_STATUS: 3 }] },
        ],
      });
      assert.deepEqual(ok(results[1]).case['level-1'], {
        id: { PROV: 1, DIST: 2, VILLAGE: 3, EA: 4, BUILD: 6 },
        BUILD_REC: { ROOF: 3, WATER: 1, NUMBER_OF_HUS: 1 },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('text-to-case with the CAPI household dictionary', () => {
  it('maps MISSING=999, leaves *** as DEFAULT, reads implied and explicit GPS decimals', () => {
    const capi = dict('capi-household.dcf');
    const key = '1109037A0001';
    const person = (age: string) => 'P' + key + '1' + 'ANA'.padEnd(50) + '01' + '2' + '041965' + age;
    const metadata = 'X' + key + ''.padEnd(72) + ''.padEnd(34) + '2' + '  38922705' + ' -77.036166';
    const { level1, warnings } = textToCase(capi, [person('999'), person('***'), metadata]);
    const persons = level1.POPULATION_RECORD as RecordObject[];
    assert.deepEqual(persons[0], {
      HH_KEEP_ROW: 1,
      HH_NAME: 'ANA',
      HH_RELATIONSHIP: 1,
      HH_SEX: 2,
      HH_DATE_OF_BIRTH: '041965',
      HH_MONTH_BORN: 4,
      HH_YEAR_BORN: 1965,
      HH_AGE: 999,
    });
    assert.equal(persons[1]?.HH_AGE, 'DEFAULT');
    assert.deepEqual(level1.METADATA_RECORD, { HH_GPS_READING: 2, HH_GPS_LATITUDE: 38.922705, HH_GPS_LONGITUDE: -77.036166 });
    assert.deepEqual(warnings, []);
  });
});

describe('readDatFile on a line trimmed inside the id area (fixtures/synthetic/trimmed-ids.dat)', () => {
  const SYNTHETIC = join(import.meta.dirname, '../../../fixtures/synthetic');

  it('keeps the 7-line case whose blank person line is cut to "1215957", and a one-line trimmed case', async () => {
    const trimmed = parseDictionary(readFileSync(join(SYNTHETIC, 'trimmed-ids.dcf')), { file: 'trimmed-ids.dcf' });
    const path = join(SYNTHETIC, 'trimmed-ids.dat');
    const raw = readFileSync(path, 'utf8');
    assert.ok(raw.startsWith('\uFEFF') && raw.includes('\r\n1215957\r\n'), 'the fixture has a BOM, CRLF and the trimmed line');
    const results = await readAll(path, trimmed);
    assert.deepEqual(
      results.map((r) => (r.ok ? r.case.caseids : r.error.message)),
      ['215957  ', '215958 1', '310001  '],
    );
    const first = ok(results[0]);
    const persons = first.case['level-1'].PERSON as RecordObject[];
    assert.equal(persons.length, 6, 'the trimmed line is the sixth, blank person');
    assert.deepEqual(persons[5], {});
    assert.deepEqual(first.case['level-1'].id, { CLUSTER: 215, HHNUM: 957 });
    assert.deepEqual(first.case['level-1'].HOUSING, { ROOF: 1, ROOMS: 4 });
    assert.deepEqual(first.warnings, [{ kind: 'blank-id', message: 'id item VISIT is blank', item: 'VISIT', line: 1 }]);
    assert.deepEqual(ok(results[1]).warnings, []);
    const third = ok(results[2]);
    assert.deepEqual(third.case['level-1'], { id: { CLUSTER: 310, HHNUM: 1 }, HOUSING: {} });
    assert.deepEqual(third.warnings, [{ kind: 'blank-id', message: 'id item VISIT is blank', item: 'VISIT', line: 11 }]);
  });
});
