import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { binaryRefsOf, normalizeBinaryValue } from '../../../src/cspro/case/binary-descriptor.js';
import { normalizeSyncCase } from '../../../src/cspro/case/sync-json.js';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { AppError } from '../../../src/shared/errors.js';
import { fixture } from '../../helpers/temp-home.js';

const SIG = '0123456789abcdef0123456789abcdef';
const descriptor = { metadata: { filename: 'a.jpg' }, caseid: 'x', signature: SIG, length: 12 };

function withPhoto() {
  const d = JSON.parse(readFileSync(fixture('simple-capi.dcf'), 'utf8')) as { levels: { records: { name: string; items: unknown[] }[] }[] };
  d.levels[0]!.records.find((r) => r.name === 'HOUSING_REC')!.items.push({
    name: 'PHOTO',
    labels: [{ text: 'Photo' }],
    contentType: 'image',
  });
  return parseDictionary(Buffer.from(JSON.stringify(d)));
}

const upload = (photo: unknown) => ({
  id: '00000000-0000-4000-8000-000000000001',
  clock: [],
  'level-1': JSON.stringify({ id: { CLUSTER: 1, HHNO: 1 }, HOUSING_REC: { H3: 1, PHOTO: photo } }),
});

test('a binary item keeps its descriptor through the upload normaliser; others are CASE_INVALID', () => {
  const model = withPhoto();
  const c = normalizeSyncCase(upload(descriptor), model).case;
  assert.deepEqual((c['level-1'].HOUSING_REC as Record<string, unknown>).PHOTO, descriptor);
  // The JSON text of a descriptor is read as the descriptor.
  const fromText = normalizeSyncCase(upload(JSON.stringify(descriptor)), model).case;
  assert.deepEqual((fromText['level-1'].HOUSING_REC as Record<string, unknown>).PHOTO, descriptor);
  // A blank value is no value.
  assert.equal((normalizeSyncCase(upload(''), model).case['level-1'].HOUSING_REC as Record<string, unknown>).PHOTO, undefined);
  for (const bad of [42, 'not json', { signature: 'short' }, { signature: SIG, length: -1 }, [descriptor]]) {
    assert.throws(
      () => normalizeSyncCase(upload(bad), model),
      (e: unknown) => e instanceof AppError && e.code === 'CASE_INVALID' && /PHOTO/.test(e.message),
      JSON.stringify(bad),
    );
  }
});

test('repeating binary items keep one descriptor per occurrence, blanks inside, none at the end', () => {
  assert.deepEqual(normalizeBinaryValue([descriptor, '', descriptor, ''], 5), { ok: true, value: [descriptor, '', descriptor] });
  assert.deepEqual(normalizeBinaryValue(['', ''], 3), { ok: true, value: undefined });
  assert.deepEqual(normalizeBinaryValue(descriptor, 3), { ok: true, value: [descriptor] });
});

test('the binary refs of a stored case: each signature once, lower case, with its length', () => {
  const upper = { ...descriptor, signature: SIG.toUpperCase() };
  const data = JSON.stringify({
    id: { A: 1 },
    R: [{ PHOTO: descriptor }, { PHOTO: upper, AUDIO: { signature: 'f'.repeat(32) } }],
    'level-2': [{ id: {}, S: { DOC: { signature: 'e'.repeat(32), length: 3 } } }],
  });
  assert.deepEqual(binaryRefsOf(data), [
    { signature: SIG, length: 12 },
    { signature: 'f'.repeat(32), length: undefined },
    { signature: 'e'.repeat(32), length: 3 },
  ]);
  assert.deepEqual(binaryRefsOf('{"id":{"A":1},"R":{"NAME":"signature"}}'), []);
});
