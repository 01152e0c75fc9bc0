import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ExportNames, exportBaseName, isReservedName, MAX_EXPORT_NAME } from '../../../src/export/export-names.js';

const VALID = /^[a-z_][a-z0-9_]*$/;

describe('export names', () => {
  it('keeps a valid breakout name as it is', () => {
    assert.equal(exportBaseName('p03_sex'), 'p03_sex');
    assert.equal(exportBaseName('case_id'), 'case_id');
  });

  it('lower-cases, replaces other characters and puts a leading digit behind _', () => {
    assert.equal(exportBaseName('Größe-A'), 'gr__e_a');
    assert.equal(exportBaseName('1st_visit'), '_1st_visit');
    assert.equal(exportBaseName(''), '_');
  });

  it('shortens names longer than 32 characters to 32, deterministically, with a hash of the whole name', () => {
    const long = 'a_very_long_item_name_that_goes_on_and_on_1';
    const other = 'a_very_long_item_name_that_goes_on_and_on_2';
    const a = exportBaseName(long);
    assert.equal(a.length, MAX_EXPORT_NAME);
    assert.match(a, VALID);
    assert.ok(a.startsWith('a_very_long_item_name_t_'), a);
    assert.equal(exportBaseName(long), a, 'the same on every call');
    assert.notEqual(exportBaseName(other), a, 'names sharing a long head still differ');
  });

  it('never gives a Stata or SPSS reserved word', () => {
    for (const w of [
      '_all',
      '_b',
      'byte',
      '_coef',
      '_cons',
      'double',
      'float',
      'if',
      'in',
      'int',
      'long',
      '_n',
      '_N',
      '_pi',
      '_pred',
      '_rc',
      '_skip',
      'strL',
      'using',
      'with',
    ]) {
      assert.ok(isReservedName(w), w);
      const n = exportBaseName(w);
      assert.ok(!isReservedName(n), `${w} → ${n}`);
      assert.match(n, VALID);
    }
    for (const w of ['ALL', 'AND', 'BY', 'EQ', 'GE', 'GT', 'LE', 'LT', 'NE', 'NOT', 'OR', 'TO', 'WITH']) {
      assert.ok(isReservedName(w), w);
      assert.equal(exportBaseName(w), `${w.toLowerCase()}_`);
    }
    assert.ok(isReservedName('str1') && isReservedName('str2045') && isReservedName('STR80'));
    assert.equal(exportBaseName('str244'), 'str244_');
    assert.ok(!isReservedName('str2046') && !isReservedName('str0') && !isReservedName('str01') && !isReservedName('strength'));
  });

  it('makes names unique in a table ignoring case, in column order, within 32 characters', () => {
    const names = new ExportNames();
    assert.equal(names.claim('Sex'), 'sex');
    assert.equal(names.claim('SEX'), 'sex_2');
    assert.equal(names.claim('sex'), 'sex_3');
    assert.equal(names.claim('sex_2'), 'sex_2_2', 'a literal name equal to a made one gets its own suffix');
    const long = 'x'.repeat(40);
    const first = names.claim(long);
    const second = names.claim(long.toUpperCase());
    assert.equal(first.length, 32);
    assert.equal(second.length, 32);
    assert.notEqual(first, second);
    assert.ok(second.endsWith('_2'), second);
  });

  it('gives every table the same names on every run', () => {
    const sources = ['case_id', 'IF', 'if_', 'Name', 'NAME', 'n'.repeat(50), 'N'.repeat(50)];
    const run = () => {
      const n = new ExportNames();
      return sources.map((s) => n.claim(s));
    };
    const a = run();
    assert.deepEqual(run(), a);
    assert.equal(new Set(a.map((x) => x.toLowerCase())).size, a.length);
    for (const x of a) {
      assert.match(x, VALID);
      assert.ok(x.length <= 32);
      assert.ok(!isReservedName(x));
    }
  });
});
