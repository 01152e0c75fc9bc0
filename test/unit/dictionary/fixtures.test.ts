// The real CSPro dictionaries of fixtures/cspro parsed with exact expectations, and the text/JSON
// pairs of the same dictionary compared as whole models.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import type { Dictionary, DictItem, DictRecord } from '../../../src/cspro/dictionary/model.js';

const dir = fileURLToPath(new URL('../../../fixtures/cspro/', import.meta.url));
const load = (name: string): Dictionary => parseDictionary(readFileSync(dir + name), { file: name });

function record(d: Dictionary, name: string): DictRecord {
  const r = d.levels.flatMap((l) => l.records).find((x) => x.name === name);
  assert.ok(r, `record ${name}`);
  return r;
}
function item(d: Dictionary, name: string): DictItem {
  const i = d.levels.flatMap((l) => [...l.ids, ...l.records.flatMap((r) => r.items)]).find((x) => x.name === name);
  assert.ok(i, `item ${name}`);
  return i;
}
const span = (i: DictItem): [number, number] => [i.start, i.length];

describe('popstan-census (text 7.7 and JSON 8.0)', () => {
  for (const form of ['text', 'json'] as const) {
    it(`${form} form: levels, records, items, positions`, () => {
      const d = load(`popstan-census.${form}.dcf`);
      assert.equal(d.version, form === 'text' ? 'CSPro 7.7' : '8.0');
      assert.equal(d.name, 'CEN2000');
      assert.deepEqual(d.labels, ['Popstan Census']);
      assert.deepEqual(d.languages, []);
      assert.deepEqual(d.recordType, { start: 1, length: 1 });
      assert.equal(d.relativePositions, true);
      assert.deepEqual(d.defaults, { zeroFill: true, decimalMark: false });
      assert.equal(d.editable, true);
      assert.equal(d.levels.length, 1);
      const level = d.levels[0]!;
      assert.equal(level.name, 'QUEST');
      assert.deepEqual(
        level.ids.map((i) => [i.name, i.start, i.length]),
        [
          ['PROVINCE', 2, 2],
          ['DISTRICT', 4, 2],
          ['VILLAGE', 6, 3],
          ['EA', 9, 3],
          ['UR', 12, 1],
          ['BUILDING', 13, 3],
          ['HU', 16, 3],
          ['HH', 19, 1],
        ],
      );
      assert.deepEqual(
        level.records.map((r) => [r.name, r.recordType, r.required, r.maxOccurrences, r.items.length, r.length]),
        [
          ['PERSON', '1', false, 30, 23, 49],
          ['HOUSING', '2', true, 1, 13, 38],
        ],
      );
      assert.deepEqual(span(item(d, 'LINE')), [20, 2]);
      assert.deepEqual(span(item(d, 'P04_AGE')), [24, 2]);
      assert.deepEqual(span(item(d, 'P20_BORN12')), [49, 1]);
      assert.deepEqual(span(item(d, 'H13_PERSONS')), [35, 4]);
      const occ = item(d, 'P15_OCC');
      const occMajor = item(d, 'P15A_OCC');
      assert.deepEqual([occ.start, occ.length, occ.subitem], [39, 2, false]);
      assert.deepEqual([occMajor.start, occMajor.length, occMajor.subitem], [39, 1, true]);
      assert.deepEqual([item(d, 'P16A_IND').start, item(d, 'P16A_IND').subitem], [41, true]);
      const age = item(d, 'P04_AGE');
      assert.deepEqual([age.contentType, age.decimals, age.decimalMark, age.zeroFill, age.occurrences], ['numeric', 0, false, true, 1]);
      assert.deepEqual(
        age.valueSets.map((v) => [v.name, v.values.length]),
        [
          ['P04_AGE_VS1', 1],
          ['P04_AGE_VS2', 20],
          ['P04_AGE_VS3', 10],
          ['AGG_10_5', 9],
        ],
      );
      assert.deepEqual(age.valueSets[1]!.values[0], { labels: ['0 to 4 years'], pairs: [{ from: '0', to: '4' }] });
      // A value without a label keeps an empty label.
      assert.deepEqual(item(d, 'DISTRICT').valueSets[0]!.values, [{ labels: [''], pairs: [{ from: '1', to: '18' }] }]);
      // NOTAPPL is written `Value='  '` in the text form and `{value:""}` in JSON: both give a blank value.
      assert.deepEqual(item(d, 'P08_RES95').valueSets[0]!.values.at(-1), {
        labels: ['Not Applicable'],
        pairs: [{ from: '' }],
        special: 'NOTAPPL',
      });
      const specials = d.levels[0]!.records.flatMap((r) => r.items.flatMap((i) => i.valueSets.flatMap((v) => v.values))).filter(
        (v) => v.special,
      );
      assert.equal(specials.length, 27);
    });
  }

  it('text and JSON forms give the same model except the version', () => {
    const text = load('popstan-census.text.dcf');
    const json = load('popstan-census.json.dcf');
    // `version` is file metadata: CSPro 7.7 wrote the text file, CSPro 8.0 the JSON one. Nothing
    // else differs between the two commits of this dictionary (checked field by field).
    assert.deepEqual({ ...text, version: '' }, { ...json, version: '' });
  });
});

describe('two-level (multi-level relative layout)', () => {
  for (const form of ['text', 'json'] as const) {
    it(`${form} form: level-1 record items start after the level-2 ids`, () => {
      const d = load(`two-level.${form}.dcf`);
      assert.equal(d.name, 'TWO_LEVEL_DICT');
      assert.deepEqual(d.defaults, { zeroFill: true, decimalMark: true });
      assert.deepEqual(
        d.levels.map((l) => [l.name, l.ids.length, l.records.length]),
        [
          ['TWO_LEVEL_QUEST', 5, 1],
          ['HOUSEHOLD', 1, 2],
        ],
      );
      assert.deepEqual(d.levels[0]!.ids.map(span), [
        [2, 2],
        [4, 2],
        [6, 2],
        [8, 3],
        [11, 3],
      ]);
      assert.deepEqual(span(item(d, 'HOUSE_NUMBER')), [14, 3]);
      assert.deepEqual(
        record(d, 'BUILD_REC').items.map((i) => [i.name, i.start, i.length]),
        [
          ['ROOF', 17, 1],
          ['WATER', 18, 1],
          ['NUMBER_OF_HUS', 19, 3],
        ],
      );
      assert.deepEqual(record(d, 'POP_RECC').items.map(span), [
        [17, 2],
        [19, 1],
        [20, 3],
        [23, 1],
      ]);
      assert.deepEqual(
        d.levels.flatMap((l) => l.records).map((r) => [r.name, r.recordType, r.required, r.maxOccurrences, r.length]),
        [
          ['BUILD_REC', '1', true, 1, 21],
          ['HOUSE_REC', '2', false, 1, 19],
          ['POP_RECC', '3', false, 35, 23],
        ],
      );
    });
  }

  it('text and JSON forms give the same model except the version', () => {
    const text = load('two-level.text.dcf');
    const json = load('two-level.json.dcf');
    assert.equal(text.version, 'CSPro 7.7');
    assert.equal(json.version, '8.0');
    assert.deepEqual({ ...text, version: '' }, { ...json, version: '' });
  });
});

describe('capi-household (CSPro 8 JSON)', () => {
  const d = load('capi-household.dcf');

  it('records, ids and computed positions', () => {
    assert.equal(d.name, 'PSC_HOUSEHOLD_DICT');
    assert.deepEqual(
      d.levels[0]!.ids.map((i) => [i.name, i.start, i.length, i.contentType]),
      [
        ['HH_PROVINCE', 2, 2, 'numeric'],
        ['HH_DISTRICT', 4, 2, 'numeric'],
        ['HH_EA', 6, 3, 'numeric'],
        ['HH_SEGMENT', 9, 1, 'alpha'],
        ['HH_NUMBER', 10, 4, 'numeric'],
      ],
    );
    assert.deepEqual(
      d.levels[0]!.records.map((r) => [r.name, r.recordType, r.required, r.maxOccurrences, r.items.length, r.length]),
      [
        ['POPULATION_RECORD', 'P', true, 35, 21, 96],
        ['DWELLING_UNIT_RECORD', 'D', false, 1, 9, 22],
        ['METADATA_RECORD', 'X', true, 1, 16, 167],
      ],
    );
    assert.deepEqual(span(item(d, 'HH_KEEP_ROW')), [14, 1]);
    assert.deepEqual(span(item(d, 'HH_NAME')), [15, 50]);
    assert.deepEqual(span(item(d, 'HH_AGE')), [74, 3]);
    assert.deepEqual(span(item(d, 'HH_INTERVIEWER_CODE')), [14, 36]);
    assert.equal(item(d, 'HH_NAME').note, "While person's name will not be used for analysis it will be used in CAPI questions.");
  });

  it('alpha parent with numeric subitems at their offsets', () => {
    const dob = item(d, 'HH_DATE_OF_BIRTH');
    assert.deepEqual([dob.start, dob.length, dob.contentType, dob.subitem, dob.zeroFill], [68, 6, 'alpha', false, false]);
    const month = item(d, 'HH_MONTH_BORN');
    const year = item(d, 'HH_YEAR_BORN');
    assert.deepEqual([month.start, month.length, month.contentType, month.subitem], [68, 2, 'numeric', true]);
    assert.deepEqual([year.start, year.length, year.contentType, year.subitem], [70, 4, 'numeric', true]);
  });

  it('GPS decimals with a decimal mark', () => {
    const lat = item(d, 'HH_GPS_LATITUDE');
    assert.deepEqual([lat.start, lat.length, lat.decimals, lat.decimalMark, lat.zeroFill], [121, 10, 6, true, true]);
    const alt = item(d, 'HH_GPS_ALTITUDE');
    assert.deepEqual([alt.start, alt.length, alt.decimals, alt.decimalMark], [142, 7, 1, true]);
  });

  it('MISSING mapped to 999', () => {
    assert.deepEqual(
      item(d, 'HH_AGE').valueSets[0]!.values.find((v) => v.special),
      {
        labels: ["Don't know"],
        pairs: [{ from: '999' }],
        special: 'MISSING',
      },
    );
  });

  it('linked value sets get the values of the set that carries them', () => {
    // CSPro 8 writes the values of link 153437400 only on HH_CITIZENSHIP_VS1.
    for (const name of ['HH_CITIZENSHIP', 'HH_LITERACY', 'HH_WORK_STATUS', 'HH_INTERNET']) {
      const vs = item(d, name).valueSets[0]!;
      assert.equal(vs.link, '153437400');
      assert.deepEqual(vs.values, [
        { labels: ['Yes'], pairs: [{ from: '1' }] },
        { labels: ['No'], pairs: [{ from: '2' }] },
      ]);
    }
    assert.deepEqual(item(d, 'HH_DWELLING_SECTION').valueSets[0]!.values, [{ labels: ['Continue'], pairs: [{ from: '1' }] }]);
  });
});

describe('simple-capi (CSPro 7.7 JSON, not editable)', () => {
  it('parses with editable false and packed record items', () => {
    const d = load('simple-capi.dcf');
    assert.equal(d.version, '7.7');
    assert.equal(d.editable, false);
    assert.deepEqual(d.levels[0]!.ids.map(span), [
      [2, 3],
      [5, 3],
    ]);
    assert.deepEqual(
      d.levels[0]!.records.map((r) => [r.name, r.recordType, r.maxOccurrences, r.length]),
      [
        ['POPULATION_REC', '1', 10, 43],
        ['HOUSING_REC', '2', 1, 20],
      ],
    );
    assert.deepEqual(span(item(d, 'P1')), [8, 30]);
    assert.deepEqual(span(item(d, 'P5')), [42, 2]);
    const checkbox = item(d, 'CHECKBOX');
    assert.deepEqual([checkbox.start, checkbox.length, checkbox.contentType, checkbox.zeroFill], [18, 3, 'alpha', false]);
    assert.deepEqual(
      item(d, 'P4').valueSets.map((v) => [v.name, v.values.length]),
      [
        ['AGE_ELSE_VS', 10],
        ['AGE_HEAD_VS', 1],
      ],
    );
  });
});

describe('idb-population (repeating item)', () => {
  it('three records, rosters and a 101-occurrence item', () => {
    const d = load('idb-population.dcf');
    const fips = d.levels[0]!.ids[0]!;
    assert.deepEqual([fips.name, fips.start, fips.length, fips.contentType], ['FIPS_CODE', 2, 2, 'alpha']);
    assert.deepEqual(
      d.levels[0]!.records.map((r) => [r.name, r.recordType, r.maxOccurrences, r.items.length, r.length]),
      [
        ['COUNTRY_METADATA_REC', '1', 1, 2, 46],
        ['MIDYEAR_POPULATION_REC', '2', 150, 2, 17],
        ['AGESEX_POPULATION_REC', '3', 300, 3, 816],
      ],
    );
    const pop = item(d, 'AGESEX_POPULATION');
    assert.deepEqual([pop.start, pop.length, pop.occurrences, pop.occurrenceLabels], [9, 8, 101, []]);
    assert.deepEqual(span(item(d, 'COUNTRY_NAME')), [4, 35]);
    assert.deepEqual(span(item(d, 'AREA')), [39, 8]);
  });
});
