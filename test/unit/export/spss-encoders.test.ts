// The pure encoders of the SPSS writer, checked against the system-file description
// (docs/export.md#spss): names, user-missing values, segments, compression, header, cells.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { numericValue } from '../../../src/export/formats/spss/cells.js';
import { BytecodeCompressor } from '../../../src/export/formats/spss/compressor.js';
import { encodeDictionary, SYSMIS } from '../../../src/export/formats/spss/dictionary.js';
import { missingValues } from '../../../src/export/formats/spss/missing-values.js';
import { longNames, ShortNames } from '../../../src/export/formats/spss/names.js';
import { cutUtf8, utf8 } from '../../../src/export/formats/spss/text.js';
import { planVariables, segmentWidths } from '../../../src/export/formats/spss/variables.js';
import type { ExportColumn, ExportValueSet } from '../../../src/export/model.js';

test('labels are cut on UTF-8 character boundaries', () => {
  const bytes = utf8('aé中'); // 1 + 2 + 3 bytes
  assert.deepEqual([...cutUtf8(bytes, 6)], [...bytes]);
  assert.deepEqual(Buffer.from(cutUtf8(bytes, 5)).toString(), 'aé');
  assert.deepEqual(Buffer.from(cutUtf8(bytes, 4)).toString(), 'aé');
  assert.deepEqual(Buffer.from(cutUtf8(bytes, 2)).toString(), 'a');
  assert.deepEqual(Buffer.from(cutUtf8(bytes, 0)).toString(), '');
});

test('long names begin with a letter and stay unique ignoring case', () => {
  assert.deepEqual(longNames(['age', '_x', 'v_x', 'with', 'all_2']), ['age', 'v_x', 'v_x_2', 'with_2', 'all_2']);
});

test('short names are 8 upper-case bytes, unique and the same every time', () => {
  const make = () => {
    const s = new ShortNames();
    return [
      s.next('household_member_age_in_years_01'),
      s.next('household_member_age_in_years_02'),
      s.next('househ_2'),
      s.next('age'),
      s.next('notes'),
      s.next('notes', 1),
      s.next('notes', 2),
      s.next('by'),
    ];
  };
  const names = make();
  assert.deepEqual(names, ['HOUSEHOL', 'HOUSEH_2', 'HOUSEH_3', 'AGE', 'NOTES', 'NOTES_1', 'NOTES_2', 'BY_2']);
  assert.deepEqual(make(), names);
  for (const n of names) assert.match(n, /^[A-Z][A-Z0-9_]{0,7}$/);
});

function set(values: ExportValueSet['values']): ExportValueSet {
  return { name: 'VS', label: 'vs', numeric: true, values, ranges: [] };
}

test('special values become discrete user-missing values, or a range of nothing but specials', () => {
  assert.deepEqual(missingValues(undefined, true), { kind: 'none' });
  assert.deepEqual(missingValues(set([{ value: 1, label: 'a' }]), true), { kind: 'none' });
  assert.deepEqual(
    missingValues(
      set([
        { value: 8, label: 'r', special: 'REFUSED' },
        { value: 9, label: 'm', special: 'MISSING' },
      ]),
      true,
    ),
    { kind: 'discrete', values: [9, 8] },
  );
  const four = (codes: number[]) =>
    set([
      { value: codes[0]!, label: 'm', special: 'MISSING' },
      { value: codes[1]!, label: 'r', special: 'REFUSED' },
      { value: codes[2]!, label: 'd', special: 'DEFAULT' },
      { value: codes[3]!, label: 'n', special: 'NOTAPPL' },
    ]);
  assert.deepEqual(missingValues(four([99, 98, 97, 96]), true), { kind: 'range', low: 96, high: 99 });
  assert.deepEqual(missingValues(four([99, 98, 97, -1]), true), { kind: 'range', low: 97, high: 99, value: -1 });
  assert.deepEqual(missingValues(four([-9, -8, -7, 99]), true), { kind: 'range', low: -9, high: -7, value: 99 });
  assert.deepEqual(missingValues(four([1, 5, 9, 13]), true), { kind: 'discrete', values: [1, 5, 9] });
  // A decimal column may hold values between consecutive codes: no range there.
  assert.deepEqual(missingValues(four([99, 98, 97, 96]), false), { kind: 'discrete', values: [99, 98, 97] });
});

test('blank value labels are left out (the code shows); their special codes stay user-missing', () => {
  const rel: ExportColumn = {
    name: 'rel',
    source: 'rel',
    label: 'Relationship',
    type: { kind: 'integer', digits: 1 },
    valueSet: set([
      { value: 1, label: 'Head' },
      { value: 2, label: '' },
      { value: 9, label: '  ', special: 'MISSING' },
    ]),
  };
  const code: ExportColumn = {
    name: 'code',
    source: 'code',
    label: 'Code',
    type: { kind: 'varchar', length: 2 },
    valueSet: { name: 'A', label: '', numeric: false, values: [{ value: 'AB', label: '' }], ranges: [] },
  };
  const [r, c] = planVariables({ name: 't', label: '', columns: [rel, code] }, { rows: 1, maxBytes: [0, 2] });
  assert.deepEqual(r!.valueLabels, [{ value: 1, label: 'Head' }]);
  assert.deepEqual(r!.missing, { kind: 'discrete', values: [9] });
  assert.deepEqual(c!.valueLabels, []);
});

test('very long strings are cut into segments of 255 with 252 bytes of width each', () => {
  assert.deepEqual(segmentWidths(255), [255]);
  assert.deepEqual(segmentWidths(256), [255, 4]);
  assert.deepEqual(segmentWidths(504), [255, 252]);
  assert.deepEqual(segmentWidths(505), [255, 255, 1]);
  // The description's own example: width 20,000 is 80 segments, the last 92 wide.
  const w = segmentWidths(20_000);
  assert.equal(w.length, 80);
  assert.equal(w.at(-1), 92);
});

test('bytecode compression follows the description: bias 100, 253 raw, 254 spaces, 255 SYSMIS, 252 end', () => {
  const c = new BytecodeCompressor(16);
  c.number(5);
  c.number(-99);
  c.number(151);
  c.number(152);
  c.number(SYSMIS);
  c.stringUnit(utf8('        '));
  c.stringUnit(utf8('abc     '));
  c.number(0);
  c.number(1.5);
  c.finish();
  const raw = (n: number) => {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(n);
    return [...b];
  };
  assert.deepEqual(
    [...c.take()],
    [105, 1, 251, 253, 255, 254, 253, 100, ...raw(152), ...utf8('abc     '), 253, 252, 0, 0, 0, 0, 0, 0, ...raw(1.5)],
  );
  assert.equal(c.pending, 0);
});

test('the file header has the layout of the description', () => {
  const table = {
    name: 't',
    label: `Ménage ${'x'.repeat(70)}`,
    columns: [
      { name: 'a', source: 'a', label: 'A', type: { kind: 'integer', digits: 3 } },
      { name: 'b', source: 'b', label: '', type: { kind: 'varchar', length: 20 } },
    ],
  } as const;
  const variables = planVariables({ ...table, columns: [...table.columns] }, { rows: 42, maxBytes: [0, 17] });
  const bytes = Buffer.from(
    encodeDictionary({ variables, label: table.label, table: 't', cases: 42, now: new Date(Date.UTC(2024, 2, 1, 9, 5, 7)) }),
  );
  assert.equal(bytes.subarray(0, 4).toString('latin1'), '$FL2');
  assert.match(bytes.subarray(4, 64).toString('latin1'), /^@\(#\) SPSS DATA FILE/);
  assert.equal(bytes.readInt32LE(64), 2); // layout code
  assert.equal(bytes.readInt32LE(68), 1 + 3); // a numeric and a 17-byte string (3 units)
  assert.equal(bytes.readInt32LE(72), 1); // bytecode compression
  assert.equal(bytes.readInt32LE(76), 0); // no weight
  assert.equal(bytes.readInt32LE(80), 42);
  assert.equal(bytes.readDoubleLE(84), 100);
  assert.equal(bytes.subarray(92, 101).toString('latin1'), '01 Mar 24');
  assert.equal(bytes.subarray(101, 109).toString('latin1'), '09:05:07');
  const label = bytes.subarray(109, 173).toString('utf8');
  assert.equal(label, `Ménage ${'x'.repeat(56)}`); // 64 bytes: é takes two
  // The first variable record follows the 176-byte header: type 2, numeric, labelled, F3.0.
  assert.equal(bytes.readInt32LE(176), 2);
  assert.equal(bytes.readInt32LE(180), 0);
  assert.equal(bytes.readInt32LE(184), 1);
  assert.equal(bytes.readInt32LE(192), (5 << 16) | (3 << 8) | 0);
  assert.equal(bytes.subarray(200, 208).toString('latin1'), 'A       ');
  // The dictionary ends with the termination record.
  assert.equal(bytes.readInt32LE(bytes.length - 8), 999);
});

test('timestamps count seconds from 14 October 1582; blanks are SYSMIS', () => {
  const [ts] = planVariables(
    { name: 't', label: '', columns: [{ name: 't', source: 't', label: '', type: { kind: 'timestamp' } }] },
    { rows: 0, maxBytes: [0] },
  );
  assert.equal(numericValue(ts!, '1582-10-14T00:00:00.000Z', 0), 0);
  assert.equal(numericValue(ts!, '1970-01-01T00:00:00.000Z', 0), 12_219_379_200);
  assert.equal(numericValue(ts!, '1970-01-01T00:00:01.500Z', 0), 12_219_379_201.5);
  assert.equal(numericValue(ts!, null, 0), SYSMIS);
});
