// Parquet export files read back with DuckDB (test/helpers/read-parquet.ts): every value, the
// column types, the row groups and the labels in the key-value metadata (docs/export.md#parquet).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { parquetFormat } from '../../../src/export/formats/parquet/index.js';
import type { ByteSink, ExportCell, ExportColumn, ExportTable, WriterOptions } from '../../../src/export/model.js';
import { AppError } from '../../../src/shared/errors.js';
import { readParquet } from '../../helpers/read-parquet.js';

const dir = mkdtempSync(join(tmpdir(), 'sds-parquet-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

/** Writes `rows` of `table` to a file through a sink on a write stream, as the pipeline does. */
async function writeFile(name: string, table: ExportTable, rows: ExportCell[][], options: Partial<WriterOptions> = {}): Promise<string> {
  const path = join(dir, `${name}.parquet`);
  const out = createWriteStream(path);
  const sink: ByteSink = {
    write: (chunk) => new Promise((resolve, reject) => out.write(chunk, (err) => (err ? reject(err) : resolve()))),
  };
  const writer = parquetFormat.open(table, sink, { labels: 'codes', rowGroupRows: 1000, ...options });
  for (const row of rows) await writer.writeRow(row);
  await writer.close();
  out.end();
  await once(out, 'close');
  return path;
}

const NAME_32 = 'sex_of_the_person_in_household_x';
const LONG = 'é中文مرحبا'.repeat(20_000); // 200,000 characters, well past any Stata/SPSS string
const sexLabels = {
  name: 'SEX_VS1',
  label: 'Sex "of" person',
  numeric: true,
  values: [
    { value: 1, label: 'Male' },
    { value: 2, label: 'Female, "quoted" and l\'apostrophe' },
    { value: 9, label: 'Missing\nnot known — é 中文 عربي', special: 'MISSING' as const },
    { value: 8, label: 'Refused', special: 'REFUSED' as const },
  ],
  ranges: [],
};
const ageLabels = {
  name: 'AGE_VS1',
  label: 'Age',
  numeric: true,
  values: [{ value: 999, label: 'Not applicable', special: 'NOTAPPL' as const }],
  ranges: [
    { from: 0, to: 14, label: 'Child' },
    { from: 15, to: 120, label: 'Adult' },
  ],
};
const regionLabels = {
  name: 'REGION_VS1',
  label: 'Region',
  numeric: false,
  values: [
    { value: 'N', label: 'North' },
    { value: 'SE', label: 'South-east é' },
  ],
  ranges: [],
};
const incomeLabels = {
  name: 'INCOME_VS1',
  label: 'Income',
  numeric: true,
  values: [{ value: 99999.99, label: 'Default', special: 'DEFAULT' as const }],
  ranges: [],
};

const col = (name: string, type: ExportColumn['type'], extra: Partial<ExportColumn> = {}): ExportColumn => ({
  name,
  source: name.toUpperCase(),
  label: `Label of ${name}`,
  type,
  ...extra,
});

const table: ExportTable = {
  name: 'popstan_person',
  label: 'Person record, "quoted" é',
  columns: [
    col('case_id', { kind: 'guid' }),
    col('verified', { kind: 'boolean' }),
    col('modified', { kind: 'timestamp' }),
    col(NAME_32, { kind: 'integer', digits: 1 }, { item: 'P03_SEX', label: 'Sex, "the" person\'s é 中文', valueSet: sexLabels }),
    col('age', { kind: 'integer', digits: 3 }, { item: 'P04_AGE', valueSet: ageLabels }),
    col('i2', { kind: 'integer', digits: 2 }),
    col('i4', { kind: 'integer', digits: 4 }),
    col('i9', { kind: 'integer', digits: 9 }),
    col('i15', { kind: 'integer', digits: 15 }),
    col('i18', { kind: 'integer', digits: 18 }),
    col('i20', { kind: 'integer', digits: 20 }),
    col('d5_2', { kind: 'decimal', precision: 5, scale: 2 }),
    col('income', { kind: 'decimal', precision: 7, scale: 2 }, { valueSet: incomeLabels }),
    col('d15_4', { kind: 'decimal', precision: 15, scale: 4 }),
    col('d20_3', { kind: 'decimal', precision: 20, scale: 3 }),
    col('region', { kind: 'varchar', length: 2 }, { valueSet: regionLabels }),
    col('name', { kind: 'varchar', length: 40 }),
    col('notes', { kind: 'text' }),
  ],
};

const GUID = '0b5c1e4a-8a43-4d3c-9a1f-6a0f6f9e2d11';
const rows: ExportCell[][] = [
  [
    GUID,
    true,
    '2024-03-01T10:00:00.000Z',
    1,
    0,
    99,
    9999,
    999999999,
    10 ** 15,
    '999999999999999999',
    '99999999999999999999',
    999.99,
    12345.67,
    '99999999999.9999',
    '12345678901234567.891',
    'N',
    'Ana',
    '',
  ],
  [
    GUID,
    false,
    '1999-12-31T23:59:59.999Z',
    2,
    14,
    -9,
    -999,
    -99999999,
    -(10 ** 14),
    '-99999999999999999',
    '-9999999999999999999',
    -99.99,
    99999.99,
    -0.0001,
    '-0.001',
    'SE',
    'O\'Brien, "Jr"',
    LONG,
  ],
  [null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null],
  [GUID, 1, '2024-02-29T00:00:00.001Z', 9, 999, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 'X', 'é中文عربي\n"line"', 'a'.repeat(32768)],
  [GUID, 0, '2024-03-01T10:00:00Z', 8, 120, 1, 1, 1, 1, 1, 1, 1.005, 0.1, 1e-4, 1e3, 'N', ' padded ', 'x'],
];

test('every column type reads back in DuckDB with its value, type and labels', async () => {
  const got = await readParquet(await writeFile('all-types', table, rows));
  assert.deepEqual(
    got.columns.map((c) => [c.name, c.physical, c.duckType]),
    [
      ['case_id', 'BYTE_ARRAY', 'VARCHAR'],
      ['verified', 'BOOLEAN', 'BOOLEAN'],
      ['modified', 'INT64', 'TIMESTAMP WITH TIME ZONE'],
      [NAME_32, 'INT32', 'INTEGER'],
      ['age', 'INT32', 'INTEGER'],
      ['i2', 'INT32', 'INTEGER'],
      ['i4', 'INT32', 'INTEGER'],
      ['i9', 'INT32', 'INTEGER'],
      ['i15', 'INT64', 'BIGINT'],
      ['i18', 'INT64', 'BIGINT'],
      ['i20', 'FIXED_LEN_BYTE_ARRAY', 'DECIMAL(20,0)'],
      ['d5_2', 'INT32', 'DECIMAL(5,2)'],
      ['income', 'INT32', 'DECIMAL(7,2)'],
      ['d15_4', 'INT64', 'DECIMAL(15,4)'],
      ['d20_3', 'FIXED_LEN_BYTE_ARRAY', 'DECIMAL(20,3)'],
      ['region', 'BYTE_ARRAY', 'VARCHAR'],
      ['name', 'BYTE_ARRAY', 'VARCHAR'],
      ['notes', 'BYTE_ARRAY', 'VARCHAR'],
    ],
  );
  assert.match(got.columns[2]!.logical!, /isAdjustedToUTC=1.*MILLIS/);
  assert.match(got.columns[0]!.logical!, /StringType/);
  assert.deepEqual(got.rows, [
    [
      GUID,
      true,
      '2024-03-01T10:00:00.000Z',
      1,
      0,
      99,
      9999,
      999999999,
      10 ** 15,
      '999999999999999999',
      '99999999999999999999',
      '999.99',
      '12345.67',
      '99999999999.9999',
      '12345678901234567.891',
      'N',
      'Ana',
      '',
    ],
    [
      GUID,
      false,
      '1999-12-31T23:59:59.999Z',
      2,
      14,
      -9,
      -999,
      -99999999,
      -(10 ** 14),
      '-99999999999999999',
      '-9999999999999999999',
      '-99.99',
      '99999.99',
      '-0.0001',
      '-0.001',
      'SE',
      'O\'Brien, "Jr"',
      LONG,
    ],
    [null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null],
    [
      GUID,
      true,
      '2024-02-29T00:00:00.001Z',
      9,
      999,
      0,
      0,
      0,
      0,
      0,
      '0',
      '0.00',
      '0.00',
      '0.0000',
      '0.000',
      'X',
      'é中文عربي\n"line"',
      'a'.repeat(32768),
    ],
    [GUID, false, '2024-03-01T10:00:00.000Z', 8, 120, 1, 1, 1, 1, 1, '1', '1.01', '0.10', '0.0001', '1000.000', 'N', ' padded ', 'x'],
  ]);
  assert.deepEqual(got.rowGroups, [{ rows: 5, compression: 'SNAPPY' }]);

  const sex = got.columns[3]!;
  assert.equal(sex.label, 'Sex, "the" person\'s é 中文');
  assert.deepEqual(
    [...sex.valueLabels],
    [
      ['1', 'Male'],
      ['2', 'Female, "quoted" and l\'apostrophe'],
      ['9', 'Missing\nnot known — é 中文 عربي'],
      ['8', 'Refused'],
    ],
  );
  assert.deepEqual(
    [...got.columns[4]!.valueLabels],
    [
      ['999', 'Not applicable'],
      ['0:14', 'Child'],
      ['15:120', 'Adult'],
    ],
  );
  assert.deepEqual(
    [...got.columns[15]!.valueLabels],
    [
      ['N', 'North'],
      ['SE', 'South-east é'],
    ],
  );
  // The specials keep their codes in the data and their kinds in the metadata.
  const meta = JSON.parse(got.kv['sds.columns']!) as ExportColumn[];
  assert.deepEqual(
    meta.flatMap((c) => (c.valueSet?.values ?? []).filter((v) => v.special).map((v) => [c.name, v.value, v.special])),
    [
      [NAME_32, 9, 'MISSING'],
      [NAME_32, 8, 'REFUSED'],
      ['age', 999, 'NOTAPPL'],
      ['income', 99999.99, 'DEFAULT'],
    ],
  );
  assert.deepEqual(meta[3], { ...table.columns[3], values: 'codes' });
  assert.deepEqual(JSON.parse(got.kv['sds.table']!), { name: 'popstan_person', label: 'Person record, "quoted" é', labels: 'codes' });
  assert.equal(got.kv['sds.version'], '1');
});

test('--labels labels writes the label of each coded value instead of its code', async () => {
  const got = await readParquet(await writeFile('labels', table, rows, { labels: 'labels' }));
  const pick = (name: string) => {
    const i = got.columns.findIndex((c) => c.name === name);
    assert.equal(got.columns[i]!.duckType, 'VARCHAR', name);
    return got.rows.map((r) => r[i]);
  };
  assert.deepEqual(pick(NAME_32), ['Male', 'Female, "quoted" and l\'apostrophe', null, 'Missing\nnot known — é 中文 عربي', 'Refused']);
  // Ranges label the codes they hold; a code without a label stays as its text.
  assert.deepEqual(pick('age'), ['Child', 'Child', null, 'Not applicable', 'Adult']);
  assert.deepEqual(pick('income'), ['12345.67', 'Default', null, '0.00', '0.10']);
  assert.deepEqual(pick('region'), ['North', 'South-east é', null, 'X', 'North']);
  // Columns without a value set keep their types.
  assert.equal(got.columns.find((c) => c.name === 'i9')!.duckType, 'INTEGER');
  const meta = JSON.parse(got.kv['sds.columns']!) as { name: string; values: string }[];
  assert.deepEqual(
    meta.filter((c) => c.values === 'labels').map((c) => c.name),
    [NAME_32, 'age', 'income', 'region'],
  );
  assert.equal(JSON.parse(got.kv['sds.table']!).labels, 'labels');
});

test('rows are cut into row groups of rowGroupRows, and an empty table is a valid file', async () => {
  const small: ExportTable = { name: 't', label: 'T', columns: [col('n', { kind: 'integer', digits: 4 }), col('s', { kind: 'text' })] };
  const ten = Array.from({ length: 10 }, (_, i): ExportCell[] => [i, i % 2 ? null : `row ${i}`]);
  const got = await readParquet(await writeFile('groups', small, ten, { rowGroupRows: 3 }));
  assert.deepEqual(
    got.rowGroups.map((g) => g.rows),
    [3, 3, 3, 1],
  );
  assert.deepEqual(got.rows, ten);

  const empty = await readParquet(await writeFile('empty', small, []));
  assert.deepEqual(empty.rows, []);
  assert.deepEqual(
    empty.columns.map((c) => [c.name, c.duckType]),
    [
      ['n', 'INTEGER'],
      ['s', 'VARCHAR'],
    ],
  );
  assert.deepEqual(empty.rowGroups, []);
});

test('100,000 rows go to the sink a row group at a time: memory holds one row group', async () => {
  const wide: ExportTable = {
    name: 'big',
    label: 'Big',
    columns: [
      col('n', { kind: 'integer', digits: 9 }),
      col('d', { kind: 'decimal', precision: 9, scale: 2 }),
      col('s', { kind: 'varchar', length: 30 }),
      col('b', { kind: 'boolean' }),
    ],
  };
  const N = 100_000;
  const groupRows = 5000;
  const path = join(dir, 'big.parquet');
  const out = createWriteStream(path);
  const chunks: number[] = [];
  const sink: ByteSink = {
    write: (chunk) => {
      chunks.push(chunk.byteLength);
      return new Promise((resolve, reject) => out.write(chunk, (err) => (err ? reject(err) : resolve())));
    },
  };
  const writer = parquetFormat.open(wide, sink, { labels: 'codes', rowGroupRows: groupRows });
  let heapPeak = 0;
  const heapStart = process.memoryUsage().heapUsed;
  for (let i = 0; i < N; i++) {
    await writer.writeRow([i, i / 100, `value number ${i} of the big table`, i % 3 === 0]);
    // Bytes leave after every full row group, not at close.
    if ((i + 1) % groupRows === 0) {
      assert.equal(chunks.length, (i + 1) / groupRows, `row ${i + 1}`);
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed - heapStart);
    }
  }
  await writer.close();
  out.end();
  await once(out, 'close');
  assert.equal(chunks.length, N / groupRows + 1); // + the footer
  const total = chunks.reduce((a, b) => a + b, 0);
  // No chunk is more than a row group's share of the file (plus the footer's metadata).
  assert.ok(Math.max(...chunks) < (2 * total) / (N / groupRows), `largest chunk ${Math.max(...chunks)} of ${total}`);
  assert.ok(heapPeak < 64 * 1024 * 1024, `heap grew by ${heapPeak} bytes`);

  const got = await readParquet(path);
  assert.equal(got.rows.length, N);
  assert.equal(got.rowGroups.length, N / groupRows);
  for (let i = 0; i < N; i += 997)
    assert.deepEqual(got.rows[i], [i, (i / 100).toFixed(2), `value number ${i} of the big table`, i % 3 === 0]);
  // Booleans PLAIN, which every reader decodes (docs/decisions.md#parquet-export-issue-21).
  assert.deepEqual(got.columns[3]!.encodings, ['PLAIN']);
});

test('a value that does not fit its column is refused with its column and row', async () => {
  const bad: [ExportColumn, ExportCell][] = [
    [col('i9', { kind: 'integer', digits: 9 }), 'abc'],
    [col('i9', { kind: 'integer', digits: 9 }), 1.5],
    [col('i9', { kind: 'integer', digits: 9 }), 2 ** 31],
    [col('i18', { kind: 'integer', digits: 18 }), '9223372036854775808'],
    [col('d', { kind: 'decimal', precision: 5, scale: 2 }), 1000],
    [col('d', { kind: 'decimal', precision: 5, scale: 2 }), 'x1'],
    [col('t', { kind: 'timestamp' }), 'yesterday'],
    [col('b', { kind: 'boolean' }), 'yes'],
  ];
  for (const [column, cell] of bad) {
    const writer = parquetFormat.open(
      { name: 'bad', label: '', columns: [column] },
      { write: async () => {} },
      { labels: 'codes', rowGroupRows: 10 },
    );
    await writer.writeRow([null]);
    await assert.rejects(
      (async () => writer.writeRow([cell]))(),
      (err: unknown) =>
        err instanceof AppError &&
        err.code === 'PARQUET_VALUE_INVALID' &&
        err.details.column === column.name &&
        err.details.row === 2 &&
        err.message.includes(`Row 2, column ${column.name}`),
      `${column.name} ${String(cell)}`,
    );
  }
});

test('a refused row leaves nothing behind: the rows after it stay in their columns', async () => {
  const two: ExportTable = { name: 'two', label: '', columns: [col('n', { kind: 'integer', digits: 2 }), col('t', { kind: 'timestamp' })] };
  const path = join(dir, 'two.parquet');
  const out = createWriteStream(path);
  const sink: ByteSink = { write: (chunk) => new Promise((resolve, reject) => out.write(chunk, (err) => (err ? reject(err) : resolve()))) };
  const writer = parquetFormat.open(two, sink, { labels: 'codes', rowGroupRows: 10 });
  await writer.writeRow([1, null]);
  await assert.rejects((async () => writer.writeRow([2, '2024-03-01 10:00']))(), { code: 'PARQUET_VALUE_INVALID' });
  await writer.writeRow([3, '2024-03-01T10:00:00+01:00']);
  await writer.close();
  out.end();
  await once(out, 'close');
  assert.deepEqual((await readParquet(path)).rows, [
    [1, null],
    [3, '2024-03-01T09:00:00.000Z'],
  ]);
});
