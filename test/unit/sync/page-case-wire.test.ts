/**
 * A download page built from stored text (docs/sync.md#how-a-page-is-built) sends the bytes the
 * older path sent, which parsed each row (as toStored does) and re-encoded it (wireCaseJson):
 * for rows as the case writers store them, and for rows stored in any other form (older
 * versions, imports), which take the re-encode. The canonical-text tests accept only text that
 * `JSON.stringify` of its own parse gives back unchanged.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { caseWriteValues, toStored, type CaseWrite, type StoredCase } from '../../../src/store/cases-repo.js';
import { toPageRow, type RawPageValues } from '../../../src/store/sync-repo.js';
import { wireCaseJson } from '../../../src/sync/case-wire.js';
import { pageCaseJson, pageCasesJson, parsedPageCase } from '../../../src/sync/page-case-wire.js';
import { isCanonicalClock, isCanonicalNotes, isCanonicalPartialSave } from '../../../src/sync/canonical-stored-json.js';

const REVISION = 7;
const T = '2026-01-01T00:00:00Z';

/** Text with every kind of character a string can hold: escapes, controls, non-ASCII, a surrogate pair. */
const ODD = 'q"b\\s/\b\f\n\r\t\u0000\u0001\u000b\u001f\u007f\u2028é✓😀';

const field = (name: string, r = 0) => ({ name, levelKey: '', recordOccurrence: r, itemOccurrence: 0, subitemOccurrence: 0 });

function write(guid: string, extra: Partial<CaseWrite> = {}): CaseWrite {
  return {
    guid,
    caseKey: '001002',
    label: '',
    data: '{"id":{"CLUSTER":1,"HHNO":2},"REC":[{"NAME":"A \\"B\\"","AGE":4}]}',
    verified: false,
    deleted: false,
    clock: [{ deviceId: 'tablet-1', revision: 3 }],
    partialSave: null,
    notes: [],
    ...extra,
  };
}

/** The page columns of a case as the writers store it (caseWriteValues). */
const storedRow = (c: CaseWrite): RawPageValues => caseWriteValues(c, REVISION) as RawPageValues;

const pageRow = (row: RawPageValues) => toPageRow(row);

/** A row as the older path read it: every JSON column parsed. */
function olderCase(v: RawPageValues): StoredCase {
  const [guid, case_key, label, data, verified, deleted, revision, clock, partial_save, notes, case_note] = v;
  return toStored({
    guid,
    case_key,
    label,
    data,
    verified,
    deleted,
    revision,
    clock,
    partial_save,
    notes,
    case_note,
    created_at: T,
    modified_at: T,
  });
}

/** What the older path sent for a row. */
const olderWire = (row: RawPageValues) => wireCaseJson(olderCase(row));

const WRITTEN: CaseWrite[] = [
  write('a1'),
  write('a2', { label: ODD, caseKey: `00 ${ODD}`, verified: true }),
  write('a3', { deleted: true, clock: [] }),
  write('a4', {
    clock: [
      { deviceId: 'tablet-1', revision: 3 },
      { deviceId: ODD, revision: 0 },
      { deviceId: 'server', revision: 999_999_999_999_999 },
    ],
  }),
  write('a5', { partialSave: { mode: 'add' } }),
  write('a6', { partialSave: { mode: 'verify', field: { ...field('AGE', 2), levelKey: '001' } } }),
  write('a7', {
    notes: [
      { content: ODD, field: field('NAME', 1), operatorId: 'op', modifiedTime: '2024-03-01T10:00:00Z' },
      { content: '', field: { ...field('AGE'), levelKey: 'k', subitemOccurrence: 12 }, operatorId: '', modifiedTime: '' },
    ],
  }),
  write('a8', { data: `{"id":{"X":"${'\\\\'}"},"IMG":{"signature":"0123456789abcdef0123456789abcdef","length":3,"metadata":{"a":1}}}` }),
  write('a9', { caseNote: 'a case note', label: 'with a case note' }),
];

describe('a page from stored text', () => {
  it('sends every case as the older path did, its JSON columns as stored', () => {
    for (const c of WRITTEN) {
      const row = storedRow(c);
      assert.equal(pageCaseJson(pageRow(row)), olderWire(row), c.guid);
      assert.ok(isCanonicalClock(row[7]), `${c.guid}: clock sent as stored`);
      assert.ok(isCanonicalNotes(row[9]), `${c.guid}: notes sent as stored`);
      if (row[8] !== null) assert.ok(isCanonicalPartialSave(row[8]), `${c.guid}: partial save sent as stored`);
    }
    const rows = WRITTEN.map(storedRow);
    assert.equal(pageCasesJson(rows.map(pageRow)), `[${rows.map(olderWire).join(',')}]`);
    assert.equal(pageCasesJson([]), '[]');
  });

  it('re-encodes a row stored in another form, as the older path did', () => {
    const base = storedRow(write('b1'));
    const variants: [column: 7 | 8 | 9, text: string | null][] = [
      // Clocks: a device id that is not a string, a key more, keys in another order, spaces, escapes
      // JSON.stringify does not write, numbers written otherwise, a key twice.
      [7, '[{"deviceId":12,"revision":3}]'],
      [7, '[{"deviceId":"a","revision":3,"extra":true}]'],
      [7, '[{"revision":3,"deviceId":"a"}]'],
      [7, '[ {"deviceId": "a", "revision": 3} ]'],
      [7, '[{"deviceId":"a\\/b\\u00e9\\u001F","revision":3}]'],
      [7, '[{"deviceId":"a","revision":3.0}]'],
      [7, '[{"deviceId":"a","revision":1e3}]'],
      [7, '[{"deviceId":"a","revision":12345678901234567890}]'],
      [7, '[{"deviceId":"a","revision":-0}]'],
      [7, '[{"deviceId":"a","deviceId":"b","revision":3}]'],
      [7, '[{"deviceId":"\\ud800","revision":3}]'],
      [7, '[]'],
      // Notes: the older flat field reference, spaces, keys in another order, an escaped slash.
      [
        9,
        '[{"content":"n","name":"X","levelKey":"","recordOccurrence":0,"itemOccurrence":0,"subitemOccurrence":0,"operatorId":"","modifiedTime":""}]',
      ],
      [9, '[ ]'],
      [
        9,
        '[{"field":{"name":"X","levelKey":"","recordOccurrence":0,"itemOccurrence":0,"subitemOccurrence":0},"content":"n","operatorId":"","modifiedTime":""}]',
      ],
      [
        9,
        '[{"content":"a\\/b","field":{"name":"X","levelKey":"","recordOccurrence":1.5,"itemOccurrence":0,"subitemOccurrence":0},"operatorId":"","modifiedTime":""}]',
      ],
      // Partial saves: a JSON null (none), spaces, a field reference of the older flat shape.
      [8, 'null'],
      [8, '{ "mode": "add" }'],
      [8, '{"mode":"modify","name":"AGE"}'],
      [8, '{"mode":"add","field":{"name":"AGE","levelKey":"","recordOccurrence":0,"itemOccurrence":0,"subitemOccurrence":0},"x":1}'],
    ];
    for (const [column, text] of variants) {
      const row = [...base] as RawPageValues;
      row[column] = text as never;
      assert.equal(pageCaseJson(pageRow(row)), olderWire(row), `${column}: ${text}`);
    }
  });

  it('accepts as canonical only text that JSON.stringify of its parse gives back unchanged', () => {
    const tests = [isCanonicalClock, isCanonicalNotes, isCanonicalPartialSave];
    // Every stored form of WRITTEN, with one spot changed in every way a byte can change.
    const texts = WRITTEN.flatMap((c) => {
      const row = storedRow(c);
      return [row[7], row[8], row[9]].filter((t): t is string => t !== null);
    });
    const escapes = Array.from({ length: 0x21 }, (_, k) => `\\u00${k.toString(16).padStart(2, '0')}`);
    const swaps = [
      ...escapes,
      ...escapes.map((e) => e.toUpperCase().replace('\\U', '\\u')),
      ...['\\/', '\\u0041', '\\u00e9', '\\ud83d', '\\ud83d\\ude00', '😀'.slice(0, 1), '\u0001', '"', '\\'],
      ...[' ', '0', '-', '.5', 'e1', '"x":1,', '}', '{', ',', ''],
    ];
    let accepted = 0;
    for (const text of texts) {
      for (let at = 0; at <= text.length; at++) {
        for (const swap of swaps) {
          for (const cut of [0, 1]) {
            const t = text.slice(0, at) + swap + text.slice(at + cut);
            if (!tests.some((f) => f(t))) continue;
            accepted += 1;
            assert.equal(JSON.stringify(JSON.parse(t)), t, t);
          }
        }
      }
    }
    assert.ok(accepted > 100, `some changed texts are still canonical (${accepted})`);
  });

  it('parses the JSON columns for CSPro 8.1’s case JSON as the older row read did', () => {
    for (const c of WRITTEN) {
      const row = storedRow(c);
      const { createdAt: _c, modifiedAt: _m, revision: _r, ...older } = olderCase(row);
      assert.deepEqual(parsedPageCase(pageRow(row)), older, c.guid);
    }
  });
});
