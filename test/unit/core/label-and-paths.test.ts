import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateLabel, tablePrefix } from '../../../src/core/dictionaries/label.js';
import { mediaPath } from '../../../src/core/files/media-path.js';
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
  ]) {
    assert.throws(() => mediaPath('/srv/media', bad), code('PATH_INVALID'), JSON.stringify(bad));
  }
});
