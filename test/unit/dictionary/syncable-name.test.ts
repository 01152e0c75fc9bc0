// The syncable name of a CSPro 8.1 JSON dictionary (`"sync": {"name": …}`), read as CSPro's
// SetSyncableName keeps it (docs/sync.md#syncable-names); the text form has none.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../src/shared/errors.js';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { MINI_JSON, MINI_TEXT } from './mini-dictionaries.js';

function withSync(sync: unknown): string {
  const o = JSON.parse(MINI_JSON) as Record<string, unknown>;
  o.sync = sync;
  return JSON.stringify(o);
}

function refused(sync: unknown, message: string): void {
  assert.throws(
    () => parseDictionary(withSync(sync), { file: 'sync.dcf' }),
    (err: unknown) => {
      assert.ok(err instanceof AppError, String(err));
      assert.equal(err.code, 'DICT_INVALID');
      assert.equal(err.message, message);
      assert.equal(err.details.path, err.message.split(':')[0]);
      assert.equal(err.details.file, 'sync.dcf');
      return true;
    },
  );
}

describe('syncable name', () => {
  it('is read from sync.name, trimmed, in the case it was written', () => {
    assert.equal(parseDictionary(withSync({ name: 'HOUSEHOLDS_2025' })).syncableName, 'HOUSEHOLDS_2025');
    assert.equal(parseDictionary(withSync({ name: '  Households_2025 ' })).syncableName, 'Households_2025');
  });

  it('is absent without sync, with a blank name, or with the dictionary’s own name, as CSPro keeps it', () => {
    assert.equal('syncableName' in parseDictionary(MINI_JSON), false);
    for (const sync of [{}, { name: '' }, { name: '   ' }, { name: 'MINI_DICT' }]) {
      assert.equal('syncableName' in parseDictionary(withSync(sync)), false, JSON.stringify(sync));
    }
  });

  it('is absent from the text form, which cannot carry one', () => {
    assert.equal('syncableName' in parseDictionary(MINI_TEXT), false);
  });

  it('must be a CSPro name, since it goes into URLs', () => {
    refused(
      { name: 'households 2025' },
      'sync.name: "households 2025" is not a valid syncable name: it must start with a letter and contain only letters, digits and _',
    );
    const invalid = 'is not a valid syncable name: it must start with a letter and contain only letters, digits and _';
    refused({ name: '2025_HH' }, `sync.name: "2025_HH" ${invalid}`);
    refused({ name: 'HH/../X' }, `sync.name: "HH/../X" ${invalid}`);
    refused({ name: 7 }, 'sync.name: must be a string, got 7');
    refused('HH', 'sync: the sync settings must be a JSON object, got "HH"');
  });
});
