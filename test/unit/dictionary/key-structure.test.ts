import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dictionaryKeyStructure } from '../../../src/cspro/dictionary/key-structure.js';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import type { DictItem } from '../../../src/cspro/dictionary/model.js';
import { fixture } from '../../helpers/temp-home.js';

const id = (contentType: DictItem['contentType'], length: number, zeroFill = false) => ({ contentType, length, zeroFill }) as DictItem;
const dict = (...ids: DictItem[]) => ({ levels: [{ ids }] }) as unknown as Parameters<typeof dictionaryKeyStructure>[0];

test('the key structure is length, content type and (numeric only) zero fill per first-level id, as the 8.1 client builds it', () => {
  assert.equal(dictionaryKeyStructure(dict(id('numeric', 2, true), id('alpha', 5))), '2numeric15alpha');
  assert.equal(dictionaryKeyStructure(dict(id('alpha', 5, true), id('numeric', 12, false))), '5alpha12numeric0');
  assert.equal(dictionaryKeyStructure(dict()), '');
  assert.equal(dictionaryKeyStructure({ levels: [] }), '');
});

test('the key structure of real dictionaries, from both .dcf forms', () => {
  // simple-capi: CLUSTER and HHNO, numeric, 3 wide, zero-filled.
  assert.equal(dictionaryKeyStructure(parseDictionary(readFileSync(fixture('simple-capi.dcf')))), '3numeric13numeric1');
  const json = dictionaryKeyStructure(parseDictionary(readFileSync(fixture('popstan-census.json.dcf'))));
  const text = dictionaryKeyStructure(parseDictionary(readFileSync(fixture('popstan-census.text.dcf'))));
  assert.equal(json, text);
  assert.match(json, /^(\d+(numeric[01]|alpha))+$/);
  // Only the first level's ids count: two-level has ids on both levels.
  const two = parseDictionary(readFileSync(fixture('two-level.json.dcf')));
  assert.ok(two.levels.length > 1);
  assert.equal(dictionaryKeyStructure(two), dictionaryKeyStructure({ levels: [two.levels[0]!] }));
});
