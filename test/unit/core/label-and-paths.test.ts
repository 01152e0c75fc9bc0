import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateLabel, tablePrefix } from '../../../src/core/dictionaries/label.js';
import { MAX_NAME_BYTES, MAX_SEGMENT_BYTES, mediaName, mediaPath } from '../../../src/core/files/media-path.js';
import { AppError } from '../../../src/shared/errors.js';

const code = (c: string) => (e: unknown) => e instanceof AppError && e.code === c;

test('labels are a letter then letters, digits or _; at most 30 characters', () => {
  assert.equal(validateLabel('Popstan_2020'), 'Popstan_2020');
  assert.equal(tablePrefix('Popstan_2020'), 'popstan_2020');
  for (const bad of ['', '1abc', '_abc', 'pop-stan', 'pop stan', 'été', 'a'.repeat(31), 'a;drop']) {
    assert.throws(() => validateLabel(bad), code('LABEL_INVALID'), bad);
  }
  assert.throws(() => validateLabel(undefined), code('LABEL_INVALID'));
});

test('media names stay inside the media area', () => {
  assert.equal(mediaPath('/srv/media', 'photo.jpg'), '/srv/media/photo.jpg');
  assert.equal(mediaPath('/srv/media', 'apps/census v2.pen'), '/srv/media/apps/census v2.pen');
  for (const bad of [
    '../etc/passwd',
    '/etc/passwd',
    'a/../../b',
    'a/./b',
    '.hidden',
    'a\\b',
    'a//b',
    '',
    'x/..',
    'nul\u0000',
    'dir/',
    'trailing.',
    'trailing ',
    'rtl\u202Etxt.exe',
    'zero\u200Bwidth',
    'tab\tname',
    'line\nbreak',
    'a\u2044b',
    '\u0301accent-first',
    'é'.repeat(MAX_SEGMENT_BYTES / 2 + 1),
    ('a'.repeat(MAX_SEGMENT_BYTES) + '/').repeat(Math.ceil(MAX_NAME_BYTES / MAX_SEGMENT_BYTES)) + 'x',
  ]) {
    assert.throws(() => mediaPath('/srv/media', bad), code('PATH_INVALID'), JSON.stringify(bad));
  }
});

test('media names may use letters and digits of any script, stored in NFC', () => {
  for (const good of [
    'données/énumération_1.csv',
    'بيانات.txt',
    'энкета/анкета 1.pdf',
    '調査/票_１.json',
    'हिन्दी/सूची.csv',
    'Ñandú-2.jpg',
  ]) {
    assert.equal(mediaName(good), good.normalize('NFC'), good);
    assert.equal(mediaPath('/srv/media', good), `/srv/media/${good.normalize('NFC')}`, good);
  }
  // e + combining acute (macOS) and é (one code point) are the same name.
  assert.equal(mediaName('cafe\u0301/notes.txt'), 'caf\u00e9/notes.txt');
  assert.equal(mediaPath('/srv/media', 'cafe\u0301'), '/srv/media/caf\u00e9');
  // The limit is in bytes: 100 two-byte letters fit, 101 do not.
  assert.equal(mediaName('é'.repeat(MAX_SEGMENT_BYTES / 2)).length, MAX_SEGMENT_BYTES / 2);
  assert.throws(() => mediaName('é'.repeat(MAX_SEGMENT_BYTES / 2 + 1)), code('PATH_INVALID'));
  assert.equal(mediaName('a'.repeat(MAX_SEGMENT_BYTES)).length, MAX_SEGMENT_BYTES);
});
