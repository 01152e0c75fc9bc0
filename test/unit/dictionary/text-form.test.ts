// Text-form (CSPro ≤ 7.7) features that the fixtures do not exercise, on a small composed
// dictionary (docs/cspro-formats.md#text-dictionaries), and the CSWeb quirks we must not copy.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { lexSpecText } from '../../../src/cspro/dictionary/text-lexer.js';
import { MINI_TEXT } from './mini-dictionaries.js';

describe('text lexer', () => {
  it('trims, skips blanks and comments, joins & continuations, splits at the first =', () => {
    const cmds = lexSpecText('\n  [Item]  \n. a comment\nLabel = a=b &\n  c\nName=X\r\nLen=\n');
    assert.deepEqual(cmds, [
      { command: '[Item]', argument: '', line: 2 },
      { command: 'Label', argument: 'a=b c', line: 4 },
      { command: 'Name', argument: 'X', line: 6 },
      { command: 'Len', argument: '', line: 7 },
    ]);
  });
});

describe('mini text dictionary', () => {
  const d = parseDictionary(MINI_TEXT);

  it('reads languages and splits labels by language, filling empty slots from the first', () => {
    assert.deepEqual(d.languages, [
      { name: 'EN', label: 'English' },
      { name: 'FR', label: 'Français' },
    ]);
    assert.deepEqual(d.labels, ['Mini survey', 'Mini enquête']);
    assert.deepEqual(d.levels[0]!.labels, ['Household', 'Household']);
  });

  it('applies CSPro defaults: Required Yes, MaxRecords 1, Len 1, numeric', () => {
    const [hh, person] = d.levels[0]!.records;
    assert.deepEqual([hh!.name, hh!.required, hh!.maxOccurrences, hh!.recordType, hh!.length], ['HH_REC', true, 1, 'H', 25]);
    assert.deepEqual(
      [person!.name, person!.required, person!.maxOccurrences, person!.recordType, person!.length],
      ['PERSON_REC', false, 30, 'P', 43],
    );
    const roof = hh!.items[0]!;
    assert.deepEqual([roof.name, roof.start, roof.length, roof.contentType, roof.zeroFill], ['ROOF', 7, 1, 'numeric', false]);
  });

  it('reads decimals, decimal mark, subitems, occurrences and occurrence labels with , or :', () => {
    const items = d.levels[0]!.records.flatMap((r) => r.items);
    const get = (n: string) => items.find((i) => i.name === n)!;
    assert.deepEqual([get('INCOME').decimals, get('INCOME').decimalMark, get('INCOME').zeroFill], [2, false, true]);
    assert.deepEqual([get('GPS_LAT').decimals, get('GPS_LAT').decimalMark], [6, true]);
    assert.deepEqual([get('DOB_YEAR').start, get('DOB_YEAR').subitem, get('DOB_MONTH').start], [30, true, 34]);
    const children = get('CHILDREN');
    assert.equal(children.occurrences, 3);
    assert.deepEqual(children.occurrenceLabels, [
      { occurrence: 1, labels: ['First union', 'Première union'] },
      { occurrence: 2, labels: ['Second union', 'Second union'] },
    ]);
    assert.deepEqual(get('NAME').contentType, 'alpha');
    assert.deepEqual(get('PHOTO').contentType, 'image');
    assert.equal(get('PHOTO').length, 1);
  });

  it('reads value sets: ranges, multi-pair values, alpha quotes, case-insensitive specials, notes', () => {
    const roof = d.levels[0]!.records[0]!.items[0]!.valueSets[0]!;
    assert.equal(roof.name, 'ROOF_VS1');
    assert.deepEqual(roof.values, [
      { labels: ['Metal', 'Tôle'], pairs: [{ from: '1' }] },
      { labels: ['Tile or stone', 'Tuile ou pierre'], pairs: [{ from: '2', to: '3' }, { from: '5' }], note: 'tiles and stones' },
      { labels: ['Not reported', 'Non déclaré'], pairs: [{ from: '9' }], special: 'MISSING' },
    ]);
    const name = d.levels[0]!.records[1]!.items[0]!.valueSets[0]!;
    assert.deepEqual(name.values[0]!.pairs, [{ from: 'A' }, { from: 'B C' }]);
  });

  it('keeps [NoEdit] before [Dictionary], notes, aliases and multi-part relations', () => {
    assert.equal(d.editable, false);
    assert.equal(d.note, 'first line\nsecond line');
    assert.deepEqual(d.aliases, ['MINI', 'SURVEY']);
    assert.deepEqual(d.relations, [
      {
        name: 'HH_PERSONS',
        primary: 'HH_REC',
        links: [{ secondary: 'PERSON_REC' }, { primaryLink: 'ROOF', secondary: 'PERSON_REC2', secondaryLink: 'AGE2' }],
      },
    ]);
  });

  it('gives every set of a link group the same values', () => {
    const age = d.levels[0]!.records[1]!.items.find((i) => i.name === 'AGE')!;
    const age2 = d.levels[0]!.records[2]!.items.find((i) => i.name === 'AGE2')!;
    assert.equal(age.valueSets[0]!.link, 'L1');
    assert.deepEqual(age2.valueSets[0]!.values, age.valueSets[0]!.values);
    assert.deepEqual(age2.valueSets[0]!.values, [{ labels: ['years', 'years'], pairs: [{ from: '0', to: '120' }] }]);
  });
});
