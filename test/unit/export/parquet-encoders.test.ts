// The pure parts of the Parquet writer (docs/export.md#parquet): exact decimal scaling, the type
// of each column, cell checks and the key-value metadata.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decimalByteLength, formatUnscaled, toUnscaled } from '../../../src/export/formats/parquet/decimal.js';
import { columnEncoding, schemaElement } from '../../../src/export/formats/parquet/schema.js';
import { cellEncoder } from '../../../src/export/formats/parquet/cells.js';
import { keyValueMetadata } from '../../../src/export/formats/parquet/metadata.js';
import type { ExportColumn } from '../../../src/export/model.js';
import { AppError } from '../../../src/shared/errors.js';

test('decimals scale exactly, from numbers and numeric strings, rounding half away from zero', () => {
  const cases: [number | string, number, bigint | undefined][] = [
    [1.005, 2, 101n], // 1.005 * 100 is 100.49999999999999 in floating point
    [-1.005, 2, -101n],
    [0.1, 2, 10n],
    [12345.67, 2, 1234567n],
    ['99999999999999999.99', 2, 9999999999999999999n],
    ['-0.001', 3, -1n],
    [1e-4, 4, 1n],
    [1e21, 0, 1000000000000000000000n],
    ['1.5e3', 1, 15000n],
    [0.004, 2, 0n],
    [0.005, 2, 1n],
    ['.5', 0, 1n],
    [7, 0, 7n],
    ['abc', 2, undefined],
    ['', 2, undefined],
    ['.', 2, undefined],
    [Number.NaN, 2, undefined],
    [Number.POSITIVE_INFINITY, 2, undefined],
  ];
  for (const [value, scale, expected] of cases) assert.equal(toUnscaled(value, scale), expected, `${value} at ${scale}`);
  assert.equal(formatUnscaled(-1234n, 2), '-12.34');
  assert.equal(formatUnscaled(5n, 3), '0.005');
  assert.equal(formatUnscaled(42n, 0), '42');
  // The FIXED_LEN_BYTE_ARRAY sizes of the Parquet spec's table: 9 digits in 4 bytes, 18 in 8, 38 in 16.
  assert.deepEqual([9, 18, 19, 38].map(decimalByteLength), [4, 8, 9, 16]);
});

const col = (type: ExportColumn['type'], extra: Partial<ExportColumn> = {}): ExportColumn => ({
  name: 'x',
  source: 'X',
  label: 'X',
  type,
  ...extra,
});

test('each column type has its physical and logical Parquet type', () => {
  const el = (type: ExportColumn['type']) => schemaElement('x', columnEncoding(col(type), 'codes'));
  assert.equal(el({ kind: 'integer', digits: 9 }).type, 'INT32');
  assert.equal(el({ kind: 'integer', digits: 10 }).type, 'INT64');
  assert.equal(el({ kind: 'integer', digits: 18 }).type, 'INT64');
  assert.deepEqual(el({ kind: 'integer', digits: 19 }).logical_type, { type: 'DECIMAL', precision: 19, scale: 0 });
  assert.equal(el({ kind: 'decimal', precision: 9, scale: 2 }).type, 'INT32');
  assert.equal(el({ kind: 'decimal', precision: 18, scale: 2 }).type, 'INT64');
  assert.equal(el({ kind: 'decimal', precision: 20, scale: 2 }).type_length, 9);
  assert.deepEqual(el({ kind: 'timestamp' }).logical_type, { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' });
  for (const kind of ['text', 'guid'] as const) assert.equal(el({ kind }).converted_type, 'UTF8');
  assert.equal(el({ kind: 'boolean' }).type, 'BOOLEAN');
  assert.throws(
    () => columnEncoding(col({ kind: 'decimal', precision: 40, scale: 2 }), 'codes'),
    (e: unknown) => e instanceof AppError && e.code === 'PARQUET_VALUE_INVALID',
  );
  const vs = { name: 'VS', label: '', numeric: true, values: [{ value: 1, label: 'One' }], ranges: [] };
  assert.equal(columnEncoding(col({ kind: 'integer', digits: 2 }, { valueSet: vs }), 'labels').kind, 'label');
  assert.equal(columnEncoding(col({ kind: 'integer', digits: 2 }, { valueSet: vs }), 'codes').kind, 'int32');
  // Popstan's `0:98` of ages has no label: nothing to write in place of the codes, so they stay numbers.
  const blank = { name: 'AGE', label: 'Age', numeric: true, values: [{ value: 99, label: ' ' }], ranges: [{ from: 0, to: 98, label: '' }] };
  assert.equal(columnEncoding(col({ kind: 'integer', digits: 2 }, { valueSet: blank }), 'labels').kind, 'int32');
});

test('labels: exact codes, then ranges, then the code as text; alpha codes compare right-trimmed', () => {
  const numeric = col(
    { kind: 'decimal', precision: 5, scale: 1 },
    {
      valueSet: {
        name: 'VS',
        label: '',
        numeric: true,
        values: [
          { value: 9.5, label: 'Nine and a half' },
          { value: 4, label: '' },
          { value: 8, label: '  ' },
        ],
        ranges: [
          { from: 1, to: 5, label: 'Low' },
          { from: 6, to: 9, label: '' },
        ],
      },
    },
  );
  const enc = cellEncoder(numeric, columnEncoding(numeric, 'labels'));
  // A blank label names nothing: 4 takes its range's label, 7 and 8 stay codes.
  assert.deepEqual(
    [9.5, '9.50', 3, 4, 5, 7, 8, null].map((c) => enc(c, 1)),
    ['Nine and a half', 'Nine and a half', 'Low', 'Low', 'Low', '7.0', '8.0', null],
  );
  const alpha = col(
    { kind: 'varchar', length: 3 },
    { valueSet: { name: 'A', label: '', numeric: false, values: [{ value: 'AB', label: 'Ab' }], ranges: [] } },
  );
  const a = cellEncoder(alpha, columnEncoding(alpha, 'labels'));
  assert.deepEqual(
    ['AB', 'AB ', 'ZZ'].map((c) => a(c, 1)),
    ['Ab', 'Ab', 'ZZ'],
  );
});

test('cells: integers from strings beyond 2^53, booleans from 0/1, timestamps as epoch milliseconds', () => {
  const i64 = cellEncoder(col({ kind: 'integer', digits: 18 }), { kind: 'int64' });
  assert.equal(i64('123456789012345678', 1), 123456789012345678n);
  assert.equal(i64(-5, 1), -5n);
  const b = cellEncoder(col({ kind: 'boolean' }), { kind: 'boolean' });
  assert.deepEqual(
    [true, 0, 1, null].map((c) => b(c, 1)),
    [true, false, true, null],
  );
  const t = cellEncoder(col({ kind: 'timestamp' }), { kind: 'timestamp' });
  assert.equal(t('2024-03-01T10:00:00.000Z', 1), 1709287200000n);
  assert.equal(t('2024-03-01T12:00:00.5+02:00', 1), 1709287200500n);
  // A time without a zone would be read as local time: refused, like anything not ISO 8601.
  for (const bad of ['2024-13-45', '2024-03-01T10:00:00', 'March 1, 2024', 5]) {
    assert.throws(
      () => t(bad, 7),
      (e: unknown) => e instanceof AppError && e.details.row === 7,
      String(bad),
    );
  }
});

test('key-value metadata: table, columns with value sets and specials, and what each column holds', () => {
  const vs = {
    name: 'SEX',
    label: 'Sex',
    numeric: true,
    values: [{ value: 9, label: 'Missing', special: 'MISSING' as const }],
    ranges: [],
  };
  const columns = [
    col({ kind: 'integer', digits: 1 }, { name: 'sex', item: 'SEX', occurrence: 2, valueSet: vs }),
    col({ kind: 'text' }, { name: 'n' }),
  ];
  const kv = keyValueMetadata({ name: 't', label: 'T', columns }, [{ kind: 'label' }, { kind: 'string' }], 'labels');
  assert.deepEqual(
    kv.map((k) => k.key),
    ['sds.version', 'sds.table', 'sds.columns'],
  );
  assert.deepEqual(JSON.parse(kv[2]!.value), [
    {
      name: 'sex',
      source: 'X',
      item: 'SEX',
      occurrence: 2,
      label: 'X',
      type: { kind: 'integer', digits: 1 },
      values: 'labels',
      valueSet: vs,
    },
    { name: 'n', source: 'X', label: 'X', type: { kind: 'text' }, values: 'codes' },
  ]);
});
