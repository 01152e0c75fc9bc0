/**
 * `sds export --format xlsx` as a user runs it (docs/export.md#excel): the Popstan census imported
 * and broken out into the embedded SQLite target, exported as one workbook, read back with pandas
 * (openpyxl) and compared sheet by sheet, value by value, with the SQLite breakout tables (through
 * the codebook's names); the codebook sheet with codebook.csv; the types pandas gives the columns;
 * `--labels labels`; and the refusal of a table past the rows a sheet holds, with a small limit
 * (`SDS_LIMIT_EXPORT_XLSX_ROWS`) instead of a million rows.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { expectedTables, readCodebook, readCsvFiles, type CodebookRow } from '../../helpers/export-readback.js';
import { assertCaseKeyOrder, assertSameTable, xlsxReadBack } from '../../helpers/export-compare.js';
import { readXlsx, xlsxSheetRows, type XlsxSheet } from '../../helpers/read-xlsx.js';

interface Reply {
  files: { file: string; table: string | null; rows: number; bytes: number; sheets?: { sheet: string; table: string; rows: number }[] }[];
}

async function ok(home: string, args: string[], env?: NodeJS.ProcessEnv) {
  const r = await sds(home, args, env ? { env } : {});
  assert.equal(r.code, 0, show(r));
  return r;
}

describe('sds export --format xlsx on the Popstan census, read back with pandas', async () => {
  const home = await tempHome();
  after(() => home.cleanup());
  let codebook: CodebookRow[];
  let sheets: XlsxSheet[];
  let reply: Reply;

  before(async () => {
    await ok(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan']);
    await ok(home.root, ['cases', 'import', 'CEN2000', fixture('popstan-census.dat'), '-q']);
    await ok(home.root, ['process-cases-by-dict', 'CEN2000', '-q']);
    // The codebook.csv of a CSV export: what the workbook's codebook sheet must hold.
    await ok(home.root, ['export', 'CEN2000', '--format', 'csv', '--out', join(home.root, 'csv')]);
    codebook = readCodebook(join(home.root, 'csv', 'codebook.csv'));
    const out = join(home.root, 'xlsx');
    reply = (await ok(home.root, ['export', 'CEN2000', '--format', 'xlsx', '--out', out, '--json'])).json<Reply>();
    assert.deepEqual(readdirSync(out), ['popstan.xlsx'], 'one workbook, nothing else');
    sheets = readXlsx(join(out, 'popstan.xlsx'));
  });

  test('one sheet per table, then the codebook sheet, each as --json lists it', () => {
    const tables = ['popstan_cases', 'popstan_person', 'popstan_housing', 'popstan_notes'];
    assert.deepEqual(
      sheets.map((s) => s.name),
      [...tables, 'codebook'],
    );
    assert.equal(reply.files.length, 1);
    const f = reply.files[0]!;
    assert.equal(f.file, 'popstan.xlsx');
    assert.deepEqual(
      f.sheets!.map((s) => [s.sheet, s.table]),
      tables.map((t) => [t, t]),
    );
    for (const s of f.sheets!) assert.equal(sheets.find((x) => x.name === s.sheet)!.rows.length, s.rows, `${s.sheet}: rows reported`);
    assert.equal(
      f.rows,
      f.sheets!.reduce((a, s) => a + s.rows, 0),
    );
  });

  test('every sheet holds exactly the SQLite breakout rows, in case-key order', () => {
    const expected = expectedTables(join(home.root, 'targets', 'breakout.sqlite'), codebook);
    assert.ok(expected.get('popstan_person')!.rows.length > 20_000, 'the real census, not an empty breakout');
    const cases = xlsxReadBack(sheets[0]!);
    for (const s of sheets.slice(0, -1)) {
      const got = xlsxReadBack(s);
      assertSameTable('xlsx', s.name, got, expected.get(s.name)!, codebook, s.name);
      assertCaseKeyOrder('xlsx', s.name, cases, got);
    }
  });

  test('numbers are numbers (whole numbers integers), text is text, times are date-times', () => {
    const typeOf = new Map(codebook.filter((r) => r.kind === 'column').map((r) => [`${r.table}.${r.name}`, r.type!]));
    let integers = 0;
    let times = 0;
    for (const s of sheets.slice(0, -1)) {
      s.columns.forEach((name, i) => {
        const type = typeOf.get(`${s.name}.${name}`)!;
        const cells = s.cellTypes[i]!;
        const blanks = s.rows.some((r) => r[i] === null);
        if (type === 'integer' || type === 'boolean') {
          if (cells.length > 0) assert.deepEqual(cells, ['int'], `${s.name}.${name}: integers in the file`);
          if (!blanks && s.rows.length > 0) {
            assert.equal(s.dtypes[i], 'int64', `${s.name}.${name}: pandas reads integers`);
            integers += 1;
          }
        } else if (type === 'decimal') {
          assert.ok(
            cells.every((t) => t === 'int' || t === 'float'),
            `${s.name}.${name}: numbers (${cells.join(',')})`,
          );
        } else if (type === 'timestamp') {
          if (s.rows.length === 0) return;
          assert.deepEqual(cells, ['datetime'], `${s.name}.${name}: date-times`);
          assert.match(s.dtypes[i]!, /^datetime64/, `${s.name}.${name}`);
          times += 1;
        } else {
          assert.ok(cells.length === 0 || (cells.length === 1 && cells[0] === 'str'), `${s.name}.${name}: text (${cells.join(',')})`);
        }
      });
    }
    assert.ok(integers > 20, `integer columns read as int64 (${integers})`);
    assert.ok(times >= 1, 'breakout_time read as a date-time');
    const cases = sheets[0]!;
    assert.equal(cases.dtypes[cases.columns.indexOf('revision')], 'int64', 'revision is an integer, not 1.0');
  });

  test('the codebook sheet holds the rows of codebook.csv, `file` naming the sheet', () => {
    const csv = readCsvFiles([join(home.root, 'csv', 'codebook.csv')]);
    const [header, ...rows] = Object.values(csv)[0]!;
    const sheet = sheets.at(-1)!;
    assert.deepEqual(sheet.columns, header);
    assert.equal(sheet.rows.length, rows.length);
    const fileCol = header!.indexOf('file');
    rows.forEach((row, r) => {
      const got = sheet.rows[r]!.map((v) => (v === null ? '' : String(v)));
      const want = [...row];
      want[fileCol] = want[fileCol]!.replace(/\.csv$/, '');
      assert.deepEqual(got, want, `codebook row ${r + 2}`);
    });
  });

  test('--labels labels: each labelled code is its label, other codes stay codes', async () => {
    const out = join(home.root, 'xlsx-labels');
    await ok(home.root, ['export', 'CEN2000', '--format', 'xlsx', '--out', out, '--labels', 'labels', '--record', 'PERSON']);
    assert.deepEqual(
      xlsxSheetRows(join(out, 'popstan.xlsx')).map(([name]) => name),
      ['popstan_cases', 'popstan_person', 'codebook'],
    );
    const expected = expectedTables(join(home.root, 'targets', 'breakout.sqlite'), codebook);
    const person = readXlsx(join(out, 'popstan.xlsx'), ['popstan_person'])[0]!;
    assertSameTable('xlsx', person.name, xlsxReadBack(person), expected.get('popstan_person')!, codebook, 'popstan_person', {
      labels: 'labels',
    });
    const sex = person.columns.indexOf('p03_sex');
    assert.deepEqual(new Set(person.rows.map((r) => r[sex])), new Set(['Male', 'Female']));
  });
});

describe('sds export --format xlsx refuses a table past the rows of a sheet', async () => {
  const home = await tempHome();
  after(() => home.cleanup());
  let person = 0;

  before(async () => {
    await ok(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan']);
    await ok(home.root, ['cases', 'import', 'CEN2000', fixture('popstan-census.dat'), '-q']);
    const r = await ok(home.root, ['export', 'CEN2000', '--format', 'csv', '--out', join(home.root, 'csv'), '--json']);
    person = r.json<Reply>().files.find((f) => f.table === 'popstan_person')!.rows;
  });

  test('one row over (the header counts): EXPORT_XLSX_TOO_MANY_ROWS naming the formats that hold it, nothing left', async () => {
    const out = join(home.root, 'over');
    const env = { SDS_LIMIT_EXPORT_XLSX_ROWS: String(person) };
    const r = await sds(home.root, ['export', 'CEN2000', '--format', 'xlsx', '--out', out, '--json'], { env });
    assert.equal(r.code, 2, show(r));
    const e = r.json<{ error: string; message: string; details: Record<string, unknown> }>();
    assert.equal(e.error, 'EXPORT_XLSX_TOO_MANY_ROWS');
    assert.equal(e.details.table, 'popstan_person');
    assert.match(e.message, /CSV, Parquet, Stata or SPSS/);
    assert.deepEqual(readdirSync(out), [], 'no workbook, no temporary file');
    const human = await sds(home.root, ['export', 'CEN2000', '--format', 'xlsx', '--out', out], { env });
    assert.equal(human.code, 2, show(human));
    assert.match(human.stderr, /EXPORT_XLSX_TOO_MANY_ROWS: table popstan_person has more than/);
    assert.match(human.stderr, /--format csv, parquet, stata or spss/);
  });

  test('exactly the limit with the header: written', async () => {
    const out = join(home.root, 'fits');
    const env = { SDS_LIMIT_EXPORT_XLSX_ROWS: String(person + 1) };
    const reply = (await ok(home.root, ['export', 'CEN2000', '--format', 'xlsx', '--out', out, '--json'], env)).json<Reply>();
    assert.equal(reply.files[0]!.sheets!.find((s) => s.table === 'popstan_person')!.rows, person);
    const rows = new Map(xlsxSheetRows(join(out, 'popstan.xlsx')));
    assert.equal(rows.get('popstan_person'), person + 1, 'the rows and the header');
  });
});
