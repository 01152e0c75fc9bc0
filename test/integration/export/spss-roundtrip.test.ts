// SPSS `.sav` files written by the export read back with GNU PSPP: every value and label of an
// adversarial table, long and very long strings, specials as user-missing values, and a
// 100,000-row table written through a sink to show the writer does not hold rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spssFormat } from '../../../src/export/formats/spss/index.js';
import type { ByteSink, ExportCell, ExportColumn, ExportTable, TableStats } from '../../../src/export/model.js';
import { readSpss, type SpssColumn } from '../../helpers/read-spss.js';

const spss = spssFormat;
const options = { labels: 'codes', rowGroupRows: 1000 } as const;

/** Cuts `text` to at most `max` UTF-8 bytes without splitting a character (written here apart from the writer's). */
function cutBytes(text: string, max: number): string {
  let out = '';
  for (const ch of text) {
    if (Buffer.byteLength(out + ch) > max) break;
    out += ch;
  }
  return out;
}

function statsOf(table: ExportTable, rows: readonly (readonly ExportCell[])[]): TableStats {
  const maxBytes = table.columns.map((_, i) =>
    rows.reduce((m, r) => (typeof r[i] === 'string' ? Math.max(m, Buffer.byteLength(r[i] as string)) : m), 0),
  );
  return { rows: rows.length, maxBytes };
}

async function writeFile(
  path: string,
  table: ExportTable,
  rows: readonly (readonly ExportCell[])[],
  stats = statsOf(table, rows),
): Promise<void> {
  const chunks: Uint8Array[] = [];
  const sink: ByteSink = { write: async (c) => void chunks.push(c) };
  const writer = spss.open(table, sink, options, stats);
  for (const r of rows) await writer.writeRow(r);
  await writer.close();
  writeFileSync(path, Buffer.concat(chunks));
}

const LONG_LABEL = 'Étiquette "très" longue, l\'âge — 中文 العربية '.repeat(10);
const ODD_LABEL = 'He said "no", it\'s 5\' tall,\nsecond line é 中文 مرحبا';
const NAME32_A = 'household_member_age_in_years_01';
const NAME32_B = 'household_member_age_in_years_02';

const columns: ExportColumn[] = [
  { name: 'case_id', source: 'case_id', label: 'Case id', type: { kind: 'guid' } },
  { name: 'age2', source: 'age2', label: ODD_LABEL, type: { kind: 'integer', digits: 2 } },
  { name: 'int4', source: 'int4', label: 'Four digits', type: { kind: 'integer', digits: 4 } },
  { name: 'int9', source: 'int9', label: 'Nine digits', type: { kind: 'integer', digits: 9 } },
  { name: 'int15', source: 'int15', label: 'Fifteen digits', type: { kind: 'integer', digits: 15 } },
  { name: 'int17', source: 'int17', label: 'Seventeen digits, beyond doubles', type: { kind: 'integer', digits: 17 } },
  { name: 'amount', source: 'amount', label: 'Amount', type: { kind: 'decimal', precision: 9, scale: 2 } },
  {
    name: NAME32_A,
    source: NAME32_A,
    label: LONG_LABEL,
    type: { kind: 'integer', digits: 2 },
    valueSet: {
      name: 'AGE_VS1',
      label: 'Age',
      numeric: true,
      values: [
        { value: 0, label: 'Under one' },
        { value: 96, label: 'Refused', special: 'REFUSED' },
        { value: 97, label: 'Default', special: 'DEFAULT' },
        { value: 98, label: 'Not applicable', special: 'NOTAPPL' },
        { value: 99, label: 'Missing', special: 'MISSING' },
      ],
      ranges: [{ from: 1, to: 95, label: 'Years' }],
    },
  },
  {
    name: NAME32_B,
    source: NAME32_B,
    label: 'Second 32-character name',
    type: { kind: 'integer', digits: 3 },
    valueSet: {
      name: 'X_VS1',
      label: 'x',
      numeric: true,
      values: [
        { value: 1, label: `Yes, "quoted" & it's ${'é'.repeat(80)}` },
        { value: -9, label: 'Missing', special: 'MISSING' },
        { value: 7, label: 'Refused', special: 'REFUSED' },
        { value: 500, label: 'Default', special: 'DEFAULT' },
        { value: 999, label: 'Not applicable', special: 'NOTAPPL' },
      ],
      ranges: [],
    },
  },
  {
    name: 'sex',
    source: 'sex',
    label: 'Sex',
    type: { kind: 'integer', digits: 1 },
    valueSet: {
      name: 'SEX_VS1',
      label: 'Sex',
      numeric: true,
      values: [
        { value: 1, label: 'Male' },
        { value: 2, label: 'Female' },
        { value: 9, label: 'Not known', special: 'MISSING' },
      ],
      ranges: [],
    },
  },
  {
    name: 'region',
    source: 'region',
    label: 'Region (alpha)',
    type: { kind: 'varchar', length: 2 },
    valueSet: {
      name: 'REG_VS1',
      label: 'Region',
      numeric: false,
      values: [
        { value: 'N', label: 'North, "upper"' },
        { value: 'SE', label: "South-east's\nline two" },
      ],
      ranges: [],
    },
  },
  {
    name: 'district',
    source: 'district',
    label: 'District (long alpha codes)',
    type: { kind: 'varchar', length: 20 },
    valueSet: {
      name: 'DIS_VS1',
      label: 'District',
      numeric: false,
      values: [{ value: 'CENTRAL_DISTRICT', label: 'Central 中文' }],
      ranges: [],
    },
  },
  { name: '_under', source: '_under', label: 'Leading underscore', type: { kind: 'varchar', length: 9 } },
  { name: 's8', source: 's8', label: 'Eight', type: { kind: 'varchar', length: 8 } },
  { name: 's255', source: 's255', label: 'Up to 255', type: { kind: 'varchar', length: 255 } },
  { name: 's256', source: 's256', label: 'Just very long', type: { kind: 'varchar', length: 256 } },
  { name: 'notes', source: 'notes', label: 'Notes', type: { kind: 'text' } },
  { name: 'verified', source: 'verified', label: 'Verified', type: { kind: 'boolean' } },
  { name: 'modified', source: 'modified', label: 'Modified at', type: { kind: 'timestamp' } },
  { name: 'no_label', source: 'no_label', label: '', type: { kind: 'integer', digits: 3 } },
];
const table: ExportTable = { name: 'popstan_person', label: `Person record — 中文 ${'x'.repeat(80)}`, columns };

const veryLong = `${'中文é'.repeat(300)}${'z'.repeat(1000)}end`;
const rows: ExportCell[][] = [
  [
    '5f0c4a2e-1b2c-4d3e-8f90-a1b2c3d4e5f6',
    99,
    9999,
    999999999,
    999999999999999,
    '12345678901234567',
    1234567.89,
    5,
    1,
    1,
    'N',
    'CENTRAL_DISTRICT',
    'under',
    '12345678',
    'é'.repeat(127) + 'a',
    'x'.repeat(256),
    veryLong,
    true,
    '2024-03-01T10:00:00.123Z',
    1,
  ],
  [
    '00000000-0000-0000-0000-000000000000',
    -9,
    -999,
    -99999999,
    -99999999999999,
    10 ** 15,
    '-0.01',
    99,
    -9,
    9,
    'SE',
    'X',
    '',
    'a',
    'b',
    '中'.repeat(85) + 'a',
    'line one\nline "two", it\'s\r\nthree',
    false,
    '1970-01-01T00:00:00.000Z',
    -99,
  ],
  [
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
  ],
  [
    'abcdefab-cdef-abcd-efab-cdefabcdefab',
    0,
    151,
    152,
    -100,
    '9007199254740993',
    0.5,
    96,
    500,
    2,
    'N',
    'CENTRAL',
    'العربية',
    'é中',
    'x',
    'y',
    'x'.repeat(504),
    true,
    '1582-10-14T00:00:00.000Z',
    0,
  ],
];

function column(file: { columns: SpssColumn[] }, name: string): SpssColumn {
  const c = file.columns.find((x) => x.name === name);
  assert.ok(c, `no variable ${name} in ${file.columns.map((x) => x.name).join(',')}`);
  return c;
}

test('an adversarial table reads back in PSPP with every value and label', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sds-spss-'));
  try {
    const path = join(dir, 'popstan_person.sav');
    await writeFile(path, table, rows);
    const file = readSpss(path);

    // Names: the export names, but a leading underscore gets a `v` (SPSS names begin with a letter).
    assert.deepEqual(
      file.columns.map((c) => c.name),
      columns.map((c) => (c.name === '_under' ? 'v_under' : c.name)),
    );
    // Variable labels, cut to 255 bytes on a character boundary.
    columns.forEach((c, i) => assert.equal(file.columns[i]!.label, cutBytes(c.label, 255), c.name));
    assert.ok(Buffer.byteLength(LONG_LABEL) > 255);

    // Formats: integers F<digits>.0, decimals F<precision+2>.<scale>, wide integers as text.
    assert.equal(column(file, 'age2').format, 'F2.0');
    assert.equal(column(file, 'int15').format, 'F15.0');
    assert.equal(column(file, 'int17').format, 'A17');
    assert.equal(column(file, 'amount').format, 'F11.2');
    assert.equal(column(file, 'verified').format, 'F1.0');
    assert.equal(column(file, 'modified').format, 'DATETIME24.3');
    assert.equal(column(file, 'case_id').format, 'A36');
    assert.equal(column(file, 'notes').format, `A${Buffer.byteLength(veryLong)}`);

    // Value labels: single values only (the range 1:95 is not one), cut to 120 bytes.
    const age = column(file, NAME32_A);
    assert.deepEqual(
      age.valueLabels.map((l) => [l.value, l.label, l.missing]),
      [
        [0, 'Under one', false],
        [96, 'Refused', true],
        [97, 'Default', true],
        [98, 'Not applicable', true],
        [99, 'Missing', true],
      ],
    );
    // Four consecutive special codes: one range.
    assert.equal(age.missing, '96 THRU 99');
    const b = column(file, NAME32_B);
    assert.deepEqual(
      b.valueLabels.map((l) => [l.value, l.label, l.missing]),
      [
        [-9, 'Missing', true],
        [1, cutBytes(`Yes, "quoted" & it's ${'é'.repeat(80)}`, 120), false],
        [7, 'Refused', true],
        [500, 'Default', true],
        [999, 'Not applicable', false],
      ],
    );
    // Four scattered special codes: the first three of MISSING, REFUSED, DEFAULT, NOTAPPL.
    assert.equal(b.missing, '-9; 7; 500');
    assert.equal(column(file, 'sex').missing, '9');
    assert.deepEqual(
      column(file, 'region').valueLabels.map((l) => [l.value, l.label]),
      [
        ['N', 'North, "upper"'],
        ['SE', "South-east's\nline two"],
      ],
    );
    assert.deepEqual(
      column(file, 'district').valueLabels.map((l) => [l.value, l.label]),
      [['CENTRAL_DISTRICT', 'Central 中文']],
    );
    assert.deepEqual(
      column(file, 'verified').valueLabels.map((l) => [l.value, l.label]),
      [
        [0, 'No'],
        [1, 'Yes'],
      ],
    );

    // Every value: numbers as numbers, blanks as SYSMIS (null) or empty strings, texts exact.
    const expected = rows.map((r) =>
      r.map((cell, i) => {
        const type = columns[i]!.type.kind;
        if (type === 'boolean') return cell === null ? null : cell ? 1 : 0;
        if (columns[i]!.name === 'int17') return cell === null ? '' : String(cell);
        if (type === 'integer' || type === 'decimal') return cell === null ? null : Number(cell);
        if (type === 'timestamp') return cell;
        // PSPP's CSV output turns CR LF into LF; the file keeps the bytes.
        return cell === null ? '' : String(cell).replace(/\r\n/g, '\n');
      }),
    );
    assert.equal(file.rows.length, rows.length);
    file.rows.forEach((r, i) => assert.deepEqual(r, expected[i], `row ${i + 1}`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('strings of every length up to and beyond 255 bytes keep their bytes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sds-spss-'));
  try {
    const lengths = [1, 7, 8, 9, 16, 17, 251, 252, 253, 254, 255, 256, 257, 503, 504, 505, 506, 510, 765, 1000, 4000];
    const cols: ExportColumn[] = lengths.map((n) => ({ name: `s${n}`, source: `s${n}`, label: `Length ${n}`, type: { kind: 'text' } }));
    const make = (n: number, seed: number) => Array.from({ length: n }, (_, k) => String.fromCharCode(97 + ((k + seed) % 26))).join('');
    const data: ExportCell[][] = [
      lengths.map((n) => make(n, 0)),
      lengths.map((n) => make(Math.max(1, n - 3), 5)),
      lengths.map(() => null),
      lengths.map((n) => `${'é'.repeat(Math.floor(n / 2))}`.slice(0, Math.max(0, Math.floor(n / 2)))),
    ];
    const t: ExportTable = { name: 'lengths', label: 'Lengths', columns: cols };
    const path = join(dir, 'lengths.sav');
    await writeFile(path, t, data);
    const file = readSpss(path);
    assert.deepEqual(
      file.columns.map((c) => c.format),
      lengths.map((n) => `A${n}`),
    );
    file.rows.forEach((r, i) =>
      assert.deepEqual(
        r,
        data[i]!.map((c) => c ?? ''),
        `row ${i + 1}`,
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a value beyond the 32,767 bytes SPSS stores is cut there on a character boundary', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sds-spss-'));
  try {
    const t: ExportTable = {
      name: 'wide',
      label: 'Wide',
      columns: [{ name: 'note', source: 'note', label: 'Note', type: { kind: 'text' } }],
    };
    const data: ExportCell[][] = [['é'.repeat(20_000)], ['short']];
    const path = join(dir, 'wide.sav');
    await writeFile(path, t, data);
    const file = readSpss(path);
    assert.equal(file.columns[0]!.format, 'A32767');
    assert.deepEqual(file.rows, [['é'.repeat(16_383)], ['short']]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a table without rows is a file with its dictionary and no cases', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sds-spss-'));
  try {
    const path = join(dir, 'empty.sav');
    await writeFile(path, table, []);
    const file = readSpss(path);
    assert.equal(file.columns.length, columns.length);
    assert.deepEqual(file.rows, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('100,000 rows go to the sink as they come, in bounded chunks', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sds-spss-'));
  try {
    const n = 100_000;
    const t: ExportTable = {
      name: 'big',
      label: 'Big',
      columns: [
        { name: 'id', source: 'id', label: 'Id', type: { kind: 'integer', digits: 9 } },
        { name: 'x', source: 'x', label: 'X', type: { kind: 'decimal', precision: 10, scale: 3 } },
        { name: 'name', source: 'name', label: 'Name', type: { kind: 'varchar', length: 40 } },
      ],
    };
    const row = (i: number): ExportCell[] => [i, i / 7, `name ${i} ${'é'.repeat(i % 17)}`];
    const path = join(dir, 'big.sav');
    const out = createWriteStream(path);
    let bytes = 0;
    let largest = 0;
    let writes = 0;
    const sink: ByteSink = {
      write: (chunk) =>
        new Promise((resolve, reject) => {
          bytes += chunk.length;
          largest = Math.max(largest, chunk.length);
          writes++;
          out.write(chunk, (err) => (err ? reject(err) : resolve()));
        }),
    };
    const writer = spss.open(t, sink, options, { rows: n, maxBytes: [0, 0, Buffer.byteLength(`name ${n} ${'é'.repeat(16)}`)] });
    let writesBeforeClose = 0;
    const heapBefore = process.memoryUsage().heapUsed;
    let heapPeak = heapBefore;
    for (let i = 0; i < n; i++) {
      await writer.writeRow(row(i));
      if (i % 10_000 === 0) heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
    }
    writesBeforeClose = writes;
    await writer.close();
    await new Promise<void>((resolve) => out.end(resolve));

    assert.ok(bytes > 4_000_000, `only ${bytes} bytes`);
    assert.ok(largest <= 256 * 1024, `a chunk of ${largest} bytes`);
    assert.ok(writesBeforeClose > bytes / (256 * 1024), `${writesBeforeClose} writes before close for ${bytes} bytes`);
    assert.ok(heapPeak - heapBefore < 64 * 1024 * 1024, `heap grew by ${heapPeak - heapBefore}`);

    const file = readSpss(path);
    assert.equal(file.rows.length, n);
    for (const i of [0, 1, 7, 12_345, 99_999]) {
      const [id, x, name] = file.rows[i]!;
      assert.equal(id, i);
      assert.ok(Math.abs((x as number) - i / 7) < 1e-9 * Math.max(1, i), `x of row ${i}`);
      // SPSS pads strings with spaces: trailing spaces do not survive (docs/export.md#spss).
      assert.equal(name, (row(i)[2] as string).replace(/ +$/, ''));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('rows or strings beyond the first pass, and cells of the wrong type, are errors', async () => {
  const t: ExportTable = {
    name: 't',
    label: 'T',
    columns: [
      { name: 'n', source: 'n', label: 'N', type: { kind: 'integer', digits: 3 } },
      { name: 's', source: 's', label: 'S', type: { kind: 'varchar', length: 10 } },
      { name: 'at', source: 'at', label: 'At', type: { kind: 'timestamp' } },
    ],
  };
  const sink: ByteSink = { write: async () => {} };
  const stats = { rows: 1, maxBytes: [0, 3, 0] };

  let w = spss.open(t, sink, options, stats);
  await w.writeRow([1, 'abc', null]);
  await assert.rejects(w.writeRow([2, 'abc', null]), { code: 'EXPORT_SPSS_STATS' });

  w = spss.open(t, sink, options, stats);
  await assert.rejects(w.close(), { code: 'EXPORT_SPSS_STATS' });

  w = spss.open(t, sink, options, stats);
  await assert.rejects(w.writeRow([1, 'abcd', null]), { code: 'EXPORT_SPSS_STATS', message: /column s/ });

  w = spss.open(t, sink, options, stats);
  await assert.rejects(w.writeRow(['x1', 'a', null]), { code: 'EXPORT_SPSS_VALUE', message: /column n/ });

  w = spss.open(t, sink, options, stats);
  await assert.rejects(w.writeRow([1, 'a', 'yesterday']), { code: 'EXPORT_SPSS_VALUE', message: /column at/ });

  assert.throws(() => spss.open(t, sink, options), { code: 'USAGE' });
});
