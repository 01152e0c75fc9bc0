/**
 * `sds export` of the cases real files make hard (docs/export.md#formats), in every format and
 * with `--labels codes` and `--labels labels`: decimals typed with and without the decimal
 * character, negative and blank; alpha items of 1,000 non-ASCII characters (a Stata `str#` and a
 * `strL`, SPSS very long strings); a record no case has and a notes table without notes (files
 * with their columns and no rows); codes with value labels, ranges and specials. The dictionary
 * and data are written as real files are (byte order mark, CRLF, right-trimmed lines). Every file
 * is read back with a tool others wrote (Python's csv module, pandas, GNU PSPP, DuckDB) and
 * compared value by value with the SQLite breakout of the same cases.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { tempHome } from '../../helpers/temp-home.js';
import { expectedTables, readCodebook } from '../../helpers/export-readback.js';
import { assertSameTable, EXT, readBack, type Format, type ReadBack } from '../../helpers/export-compare.js';
import {
  ARABIC_1000,
  CHINESE_1000,
  CYRILLIC_1000,
  EDGE_DICTIONARY,
  EDGE_HOUSEHOLDS,
  EDGE_LABEL,
  writeEdgeFixture,
} from '../../helpers/edge-export-fixture.js';
import { readStata } from '../../helpers/read-stata.js';
import { readSpss } from '../../helpers/read-spss.js';
import { readParquet } from '../../helpers/read-parquet.js';

const TABLES = ['edge_cases', 'edge_household', 'edge_emptyrec', 'edge_notes'];

async function ok(home: string, args: string[]) {
  const r = await sds(home, args);
  assert.equal(r.code, 0, show(r));
  return r;
}

function index(got: ReadBack, name: string): number {
  const i = got.columns.findIndex((c) => c.name === name);
  assert.ok(i >= 0, `column ${name}`);
  return i;
}

/** The values of one column of a file read back, by name. */
function column(got: ReadBack, name: string): unknown[] {
  const i = index(got, name);
  return got.rows.map((r) => r[i]);
}

/** One column of the household file, in the order of the data file's cases (their keys). */
function byCase(files: Map<string, ReadBack>, name: string): unknown[] {
  const cases = files.get('edge_cases')!;
  const keyOf = new Map(cases.rows.map((r) => [r[index(cases, 'case_id')], String(r[index(cases, 'case_key')])]));
  const h = files.get('edge_household')!;
  const [id, i] = [index(h, 'case_id'), index(h, name)];
  const key = (r: unknown[]) => keyOf.get(r[id])!;
  return [...h.rows].sort((a, b) => (key(a) < key(b) ? -1 : 1)).map((r) => r[i]);
}

describe('sds export of decimals, 1,000-character texts, empty tables and --labels labels, in every format', async () => {
  const home = await tempHome();
  after(() => home.cleanup());

  before(async () => {
    const { dcf, dat } = writeEdgeFixture(home.root);
    await ok(home.root, ['dict', 'upload', dcf, '--label', EDGE_LABEL]);
    const imported = await ok(home.root, ['cases', 'import', EDGE_DICTIONARY, dat, '--json']);
    const total = imported.json<{ total: { inserted: number; failed: number; warnings: number } }>().total;
    assert.deepEqual([total.inserted, total.failed, total.warnings], [EDGE_HOUSEHOLDS.length, 0, 0]);
    await ok(home.root, ['process-cases-by-dict', EDGE_DICTIONARY, '-q']);
  });

  /** Exports every table, reads each back and compares it with the breakout; returns the files read. */
  async function exportAll(format: Format, labels: 'codes' | 'labels'): Promise<{ out: string; files: Map<string, ReadBack> }> {
    const out = join(home.root, `out-${format}-${labels}`);
    const r = await ok(home.root, ['export', EDGE_DICTIONARY, '--format', format, '--out', out, '--labels', labels, '--json', '--force']);
    const reply = r.json<{ cases: number; warnings: number; files: { file: string; table: string | null; rows: number }[] }>();
    assert.equal(reply.cases, EDGE_HOUSEHOLDS.length);
    assert.equal(reply.warnings, 0);
    assert.deepEqual(
      reply.files.map((f) => f.file),
      [...TABLES.map((t) => `${t}.${EXT[format]}`), 'codebook.csv'],
    );
    assert.deepEqual([...readdirSync(out)].sort(), reply.files.map((f) => f.file).sort(), 'no temporary file left');
    assert.deepEqual(reply.files.map((f) => f.rows).slice(0, 4), [6, 6, 0, 0], 'the empty record and the notes are files of no rows');
    const codebook = readCodebook(join(out, 'codebook.csv'));
    const expected = expectedTables(join(home.root, 'targets', 'breakout.sqlite'), codebook);
    const files = new Map<string, ReadBack>();
    for (const f of reply.files.filter((x) => x.table !== null)) {
      const got = await readBack(format, join(out, f.file));
      assertSameTable(format, f.file, got, expected.get(f.table!)!, codebook, f.table!, { labels });
      files.set(f.table!, got);
    }
    const household = files.get('edge_household')!;
    // Compared with the breakout above; here, that the texts are those of the data file, whole.
    const notes = column(household, 'note');
    assert.ok(notes.includes(CYRILLIC_1000) && notes.includes(ARABIC_1000), 'the 1,000-character Cyrillic and Arabic texts, whole');
    assert.ok(column(household, 'note_cjk').includes(CHINESE_1000), 'the 1,000-character Chinese text, whole');
    const empty = files.get('edge_emptyrec')!;
    assert.deepEqual(
      empty.columns.map((c) => c.name),
      ['case_id', 'hhid', 'occ', 'x', 'y'],
    );
    assert.equal(empty.rows.length, 0);
    return { out, files };
  }

  test('csv: decimals in their shortest exact form, long texts quoted whole, the empty record a header line', async () => {
    const { out, files } = await exportAll('csv', 'codes');
    assert.deepEqual(byCase(files, 'income'), ['-1234.56', '0.5', '', '99999.99', '-0.01', '1200.5']);
    assert.deepEqual(byCase(files, 'weight'), ['-12345.67', '0.5', '', '999999.99', '-0.01', '0']);
    assert.equal(readFileSync(join(out, 'edge_emptyrec.csv'), 'utf8'), 'case_id,hhid,occ,x,y\r\n');
  });

  test('csv --labels labels: single codes become their labels, decimal codes too; ranges and other values stay codes', async () => {
    const { files } = await exportAll('csv', 'labels');
    assert.deepEqual(byCase(files, 'income'), ['-1234.56', 'Half', '', 'Not reported', '-0.01', '1200.5']);
    assert.deepEqual(byCase(files, 'kind'), ['Один', 'اثنان', '', 'Не указано', 'Three, "quoted"', '']);
    assert.deepEqual(byCase(files, 'age'), ['5', '40', '', "Don't know", '130', '18']);
    assert.deepEqual(byCase(files, 'code'), ['Alpha Bravo', 'Зет', '', 'Alpha Bravo', 'XY', '']);
    assert.deepEqual(byCase(files, 'weight'), ['-12345.67', '0.5', '', '999999.99', '-0.01', '0'], 'no value set: codes');
  });

  test('stata: decimals as doubles %10.2f with the special code as .a, a str# and a strL of 1,000 characters, an empty .dta', async () => {
    const { out, files } = await exportAll('stata', 'codes');
    const f = readStata(join(out, 'edge_household.dta'));
    const col = (name: string) => f.columns.find((c) => c.name === name)!;
    assert.deepEqual([col('income').type, col('income').format], ['d', '%10.2f']);
    assert.deepEqual([col('weight').type, col('weight').format], ['d', '%10.2f']);
    const at = (name: string) => byCase(files, name);
    assert.deepEqual(at('income'), [-1234.56, 0.5, { missing: '.' }, { missing: '.a' }, -0.01, 1200.5]);
    assert.deepEqual(at('weight'), [-12345.67, 0.5, { missing: '.' }, 999999.99, -0.01, 0]);
    assert.deepEqual(at('age'), [5, 40, { missing: '.' }, { missing: '.c' }, 130, 18]);
    const noteBytes = Math.max(Buffer.byteLength(CYRILLIC_1000), Buffer.byteLength(ARABIC_1000));
    assert.ok(noteBytes > 1000 && noteBytes <= 2045, `${noteBytes} bytes: a str#, not a strL`);
    assert.equal(col('note').type, noteBytes, 'str# as wide as the longest text in bytes');
    assert.equal(col('note_cjk').format, '%9s', 'a strL');
    assert.ok(typeof col('note_cjk').type === 'string', `strL (pandas' typlist ${String(col('note_cjk').type)})`);
    const empty = readStata(join(out, 'edge_emptyrec.dta'));
    assert.deepEqual(
      empty.columns.map((c) => [c.name, c.type, c.valueLabels]),
      [
        ['case_id', 1, []],
        ['hhid', 'h', []],
        ['occ', 'l', []],
        ['x', 'b', [[1, 'Yes']]],
        ['y', 1, []],
      ],
    );
  });

  test('spss: decimals F10.2 with the special code user-missing, very long strings, an empty .sav', async () => {
    const { out, files } = await exportAll('spss', 'codes');
    const f = readSpss(join(out, 'edge_household.sav'));
    const col = (name: string) => f.columns.find((c) => c.name === name)!;
    assert.equal(col('income').format, 'F10.2');
    assert.equal(col('weight').format, 'F10.2');
    assert.equal(Number(col('income').missing), 99999.99);
    assert.equal(col('age').missing, '999');
    const at = (name: string) => byCase(files, name);
    assert.deepEqual(at('income'), [-1234.56, 0.5, null, 99999.99, -0.01, 1200.5]);
    assert.deepEqual(at('weight'), [-12345.67, 0.5, null, 999999.99, -0.01, 0]);
    assert.equal(col('note').format, `A${Math.max(Buffer.byteLength(CYRILLIC_1000), Buffer.byteLength(ARABIC_1000))}`);
    assert.equal(col('note_cjk').format, 'A3000');
    const empty = readSpss(join(out, 'edge_emptyrec.sav'));
    assert.deepEqual(
      empty.columns.map((c) => [c.name, c.format]),
      [
        ['case_id', 'A36'],
        ['hhid', 'F4.0'],
        ['occ', 'F9.0'],
        ['x', 'F2.0'],
        ['y', 'A1'],
      ],
    );
    assert.deepEqual(empty.columns[3]!.valueLabels, [{ value: 1, label: 'Yes', missing: false }]);
  });

  test('parquet: decimals exact as DECIMAL(8,2), long texts as strings, an empty file with its schema', async () => {
    const { out, files } = await exportAll('parquet', 'codes');
    const f = await readParquet(join(out, 'edge_household.parquet'));
    const type = (name: string) => f.columns.find((c) => c.name === name)!.duckType;
    assert.deepEqual(
      [type('income'), type('weight'), type('note'), type('note_cjk')],
      ['DECIMAL(8,2)', 'DECIMAL(8,2)', 'VARCHAR', 'VARCHAR'],
    );
    const at = (name: string) => byCase(files, name);
    assert.deepEqual(at('income'), ['-1234.56', '0.50', null, '99999.99', '-0.01', '1200.50']);
    assert.deepEqual(at('weight'), ['-12345.67', '0.50', null, '999999.99', '-0.01', '0.00']);
    const empty = await readParquet(join(out, 'edge_emptyrec.parquet'));
    assert.deepEqual(
      empty.columns.map((c) => [c.name, c.duckType]),
      [
        ['case_id', 'VARCHAR'],
        ['hhid', 'INTEGER'],
        ['occ', 'INTEGER'],
        ['x', 'INTEGER'],
        ['y', 'VARCHAR'],
      ],
    );
    assert.deepEqual([...empty.columns[3]!.valueLabels], [['1', 'Yes']]);
  });

  test('parquet --labels labels: labels of codes and ranges as strings, other codes as text at their scale', async () => {
    const { out, files } = await exportAll('parquet', 'labels');
    const f = await readParquet(join(out, 'edge_household.parquet'));
    const type = (name: string) => f.columns.find((c) => c.name === name)!.duckType;
    assert.deepEqual(
      ['income', 'weight', 'kind', 'age', 'code'].map(type),
      ['VARCHAR', 'DECIMAL(8,2)', 'VARCHAR', 'VARCHAR', 'VARCHAR'],
      'a column with a value set holds labels, one without keeps its type',
    );
    const at = (name: string) => byCase(files, name);
    assert.deepEqual(at('income'), ['-1234.56', 'Half', null, 'Not reported', '-0.01', '1200.50']);
    assert.deepEqual(at('age'), ['Minor', 'Adult', null, "Don't know", '130', 'Adult']);
    assert.deepEqual(at('kind'), ['Один', 'اثنان', null, 'Не указано', 'Three, "quoted"', null]);
    const meta = JSON.parse(f.kv['sds.columns']!) as { name: string; values: string }[];
    assert.equal(meta.find((c) => c.name === 'income')!.values, 'labels');
    assert.equal(meta.find((c) => c.name === 'weight')!.values, 'codes');
    const empty = await readParquet(join(out, 'edge_emptyrec.parquet'));
    assert.equal(empty.columns.find((c) => c.name === 'x')!.duckType, 'VARCHAR');
  });

  for (const format of ['stata', 'spss'] as const) {
    test(`${format} --labels labels: codes as with --labels codes, the labels travel as value labels`, async () => {
      const labelled = await exportAll(format, 'labels');
      const codes = await exportAll(format, 'codes');
      for (const table of ['edge_household', 'edge_emptyrec']) {
        assert.deepEqual(labelled.files.get(table), codes.files.get(table), `${table}: the same file read back`);
      }
      if (format === 'stata') {
        // Stata files carry no time stamp: the same data give the same bytes.
        for (const table of ['edge_household', 'edge_emptyrec']) {
          const file = `${table}.dta`;
          assert.ok(readFileSync(join(labelled.out, file)).equals(readFileSync(join(codes.out, file))), `${file}: byte for byte`);
        }
      }
    });
  }
});
