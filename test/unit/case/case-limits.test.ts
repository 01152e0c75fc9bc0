import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkCaseFields, DEFAULT_CASE_LIMITS, type CaseFields } from '../../../src/cspro/case/case-limits.js';
import { AppError } from '../../../src/shared/errors.js';
import { limitsSettings, DEFAULT_LIMITS } from '../../../src/core/home/limits.js';

const base: CaseFields = {
  guid: '0f8fad5b-d9cb-469f-a165-70867728950e',
  caseKey: '001002',
  label: 'Household 1',
  data: '{"id":{"A":1}}',
  clock: [{ deviceId: 'tablet', revision: 1 }],
  notes: [
    {
      content: 'note',
      field: { name: 'A', levelKey: '', recordOccurrence: 0, itemOccurrence: 0, subitemOccurrence: 0 },
      operatorId: 'op',
      modifiedTime: '2024-01-01T00:00:00Z',
    },
  ],
  partialSave: null,
};

function refusal(c: CaseFields, limits = DEFAULT_CASE_LIMITS): AppError {
  try {
    checkCaseFields(c, limits);
  } catch (err) {
    assert.ok(err instanceof AppError);
    return err;
  }
  assert.fail('not refused');
}

test('case limits: a case within every limit passes; each field over its limit is CASE_TOO_LARGE naming case, field and limit', () => {
  checkCaseFields(base, DEFAULT_CASE_LIMITS);
  const L = DEFAULT_CASE_LIMITS;
  const note = base.notes[0]!;
  const cases: [Partial<CaseFields>, string, number][] = [
    [{ label: 'x'.repeat(L.labelChars + 1) }, 'label', L.labelChars],
    [{ caseKey: '9'.repeat(L.caseidsChars + 1) }, 'caseids', L.caseidsChars],
    [{ data: ' '.repeat(L.dataChars + 1) }, 'level-1', L.dataChars],
    [{ notes: Array(L.notes + 1).fill(note) }, 'notes', L.notes],
    [{ notes: [note, { ...note, content: 'n'.repeat(L.noteChars + 1) }] }, 'notes[1].content', L.noteChars],
    [{ notes: [{ ...note, operatorId: 'o'.repeat(L.textChars + 1) }] }, 'notes[0].operatorId', L.textChars],
    [{ notes: [{ ...note, field: { ...note.field, name: 'f'.repeat(L.textChars + 1) } }] }, 'notes[0].field.name', L.textChars],
    [{ clock: Array(L.clockEntries + 1).fill(base.clock[0]) }, 'clock', L.clockEntries],
    [{ clock: [{ deviceId: 'd'.repeat(L.textChars + 1), revision: 1 }] }, 'clock[0].deviceId', L.textChars],
    [
      { partialSave: { mode: 'add', field: { ...note.field, levelKey: 'k'.repeat(L.textChars + 1) } } },
      'partialSave.field.levelKey',
      L.textChars,
    ],
  ];
  for (const [change, field, limit] of cases) {
    const e = refusal({ ...base, ...change });
    assert.equal(e.code, 'CASE_TOO_LARGE', field);
    assert.equal(e.details.field, field);
    assert.equal(e.details.limit, limit);
    assert.equal(e.details.id, base.guid);
    assert.match(e.message, new RegExp(`${field.replace(/[[\].]/g, '\\$&')} has \\d+ \\w+, more than the limit of ${limit}`));
  }
  // A key over its limit is named cut, so the error stays small.
  const long = refusal({ ...base, caseKey: '7'.repeat(100_000) });
  assert.equal(long.details.case, '7'.repeat(40) + '…');
  assert.ok(long.message.length < 300);
  // Exactly at the limit is accepted.
  checkCaseFields({ ...base, label: 'x'.repeat(L.labelChars) }, L);
});

test('limits settings: environment over config.json over defaults; unknown keys and bad values are CONFIG_INVALID', () => {
  assert.deepEqual(limitsSettings({}, {}), DEFAULT_LIMITS);
  const l = limitsSettings(
    { limits: { label_chars: 100, page_bytes: 4096 } },
    { SDS_LIMIT_LABEL_CHARS: '200', SDS_LIMIT_REQUEST_BYTES: '2048' },
  );
  assert.equal(l.labelChars, 200);
  assert.equal(l.pageBytes, 4096);
  assert.equal(l.requestBytes, 2048);
  assert.equal(l.dataChars, DEFAULT_LIMITS.dataChars);
  const bad = (file: Record<string, unknown>, env: NodeJS.ProcessEnv, field: RegExp) =>
    assert.throws(
      () => limitsSettings(file, env),
      (e: unknown) => e instanceof AppError && e.code === 'CONFIG_INVALID' && field.test(e.message),
    );
  bad({ limits: { label_chars: 0 } }, {}, /limits\.label_chars/);
  bad({ limits: { labels: 1 } }, {}, /limits\.labels .*not a setting/);
  bad({ limits: [] }, {}, /limits .*must be an object/);
  bad({}, { SDS_LIMIT_JSON_DEPTH: '3' }, /SDS_LIMIT_JSON_DEPTH/);
  bad({}, { SDS_LIMIT_PAGE_BYTES: 'lots' }, /SDS_LIMIT_PAGE_BYTES/);
});
