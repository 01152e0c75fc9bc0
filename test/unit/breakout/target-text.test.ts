import { test } from 'node:test';
import assert from 'node:assert/strict';
import { targetText, targetTextChange } from '../../../src/breakout/target-text.js';

test('targetText keeps well-formed text without NUL as it is (the same string)', () => {
  for (const s of ['', 'plain', 'é ñ ü ß', '日本語', '😀 emoji 🇫🇷', 'tab\there\n', '\uFFFD']) {
    assert.equal(targetText(s), s);
    assert.equal(targetTextChange(s), undefined);
  }
});

test('targetText replaces each lone surrogate by U+FFFD and keeps pairs', () => {
  assert.equal(targetText('a\uD800b'), 'a\uFFFDb');
  assert.equal(targetText('\uDC00'), '\uFFFD');
  assert.equal(targetText('\uD83D'), '\uFFFD', 'a high surrogate at the end');
  assert.equal(targetText('\uDE00\uD83D'), '\uFFFD\uFFFD', 'low then high: not a pair');
  assert.equal(targetText('x\uD83D\uDE00\uD800'), 'x😀\uFFFD');
  assert.equal(targetTextChange('a\uD800'), 'a lone UTF-16 surrogate became U+FFFD, as in every target');
});

test('targetText drops NUL, alone or with lone surrogates', () => {
  assert.equal(targetText('\0'), '');
  assert.equal(targetText('a\0b\0'), 'ab');
  assert.equal(targetText('\0\uD800\0'), '\uFFFD');
  assert.equal(targetTextChange('a\0'), 'NUL characters were dropped, as in every target');
  assert.equal(targetTextChange('\uD800\0'), 'a lone UTF-16 surrogate became U+FFFD; NUL characters were dropped, as in every target');
});

test('the result always encodes to UTF-8 and back unchanged', () => {
  for (const s of ['a\uD800b\0', '\uDFFF\uD800', 'ok😀', '\0\0\0']) {
    const t = targetText(s);
    assert.equal(Buffer.from(t, 'utf8').toString('utf8'), t);
    assert.equal(t.includes('\0'), false);
  }
});
