/**
 * `sds export --format stata|spss|parquet` as a user runs it (docs/export.md): the Popstan census
 * imported into a home and broken out into the embedded SQLite target, then exported in each
 * format; every file is read back with a tool others wrote (pandas for Stata, GNU PSPP for SPSS,
 * DuckDB for Parquet) and compared, row by row and value by value, with the SQLite breakout tables
 * (through the codebook's names), its variable and value labels with the codebook. An adversarial
 * dictionary (names over 32 characters sharing their head, names that collide once lower-cased,
 * labels with quotes, commas, line breaks and non-ASCII, codes marked MISSING, REFUSED, DEFAULT
 * and NOTAPPL) is checked the same way.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { expectedTables, readCodebook, type CodebookRow, type ExpectedTable } from '../../helpers/export-readback.js';
import { readStata } from '../../helpers/read-stata.js';
import { readSpss } from '../../helpers/read-spss.js';
import { readParquet } from '../../helpers/read-parquet.js';

type Format = 'stata' | 'spss' | 'parquet';
const EXT: Record<Format, string> = { stata: 'dta', spss: 'sav', parquet: 'parquet' };
/** Stata's fixed letters for CSPro's special values (docs/export.md#stata). */
const STATA_LETTER: Record<string, string> = { MISSING: '.a', REFUSED: '.b', DEFAULT: '.c', NOTAPPL: '.d' };

/** A file read back by its format's reader, in one shape: column names, labels, value labels, rows. */
interface ReadBack {
  columns: { name: string; label: string; valueLabels: [string, string][] }[];
  rows: unknown[][];
  /** Stata's data set label; undefined for the other formats. */
  dataLabel?: string;
  /** SPSS: the values PSPP lists as user-missing, per column. */
  userMissing?: Map<string, Set<string>>;
}

async function readBack(format: Format, file: string): Promise<ReadBack> {
  if (format === 'stata') {
    const f = readStata(file);
    return {
      dataLabel: f.dataLabel,
      columns: f.columns.map((c) => ({ name: c.name, label: c.label, valueLabels: c.valueLabels.map(([v, l]) => [String(v), l]) })),
      rows: f.rows,
    };
  }
  if (format === 'spss') {
    const f = readSpss(file);
    const userMissing = new Map(
      f.columns.map((c) => [c.name, new Set(c.valueLabels.filter((v) => v.missing).map((v) => String(v.value)))]),
    );
    return {
      columns: f.columns.map((c) => ({ name: c.name, label: c.label, valueLabels: c.valueLabels.map((v) => [String(v.value), v.label]) })),
      rows: f.rows,
      userMissing,
    };
  }
  const f = await readParquet(file);
  return { columns: f.columns.map((c) => ({ name: c.name, label: c.label, valueLabels: [...c.valueLabels] })), rows: f.rows };
}

/** The codebook's rows of one column: its `column` row, labelled codes and ranges. */
function codebookColumn(codebook: CodebookRow[], table: string, name: string) {
  const i = codebook.findIndex((r) => r.kind === 'column' && r.table === table && r.name === name);
  assert.ok(i >= 0, `${table}.${name} is in the codebook`);
  const below: CodebookRow[] = [];
  for (let j = i + 1; j < codebook.length && (codebook[j]!.kind === 'value' || codebook[j]!.kind === 'range'); j++)
    below.push(codebook[j]!);
  return { column: codebook[i]!, values: below.filter((r) => r.kind === 'value'), ranges: below.filter((r) => r.kind === 'range') };
}

/**
 * The cell the format must hold for a breakout value, as comparable text (null for a blank): how
 * each format carries blanks, booleans, times and special codes (docs/export.md#formats).
 */
function expectedCell(format: Format, type: string, specials: Map<string, string>, v: unknown): string | null {
  const isText = type === 'text' || type === 'varchar' || type === 'guid';
  if (v === null || v === undefined) return isText && format !== 'parquet' ? '' : null;
  const text = String(v);
  if (format === 'stata' && specials.has(text)) return STATA_LETTER[specials.get(text)!]!;
  // SPSS pads strings with spaces, so trailing spaces are not kept; PSPP's CSV ends lines in LF.
  if (format === 'spss' && isText) return text.replace(/\r\n/g, '\n').replace(/ +$/, '');
  return text;
}

/** A read cell as comparable text: Stata's missing letters (`.` is the blank), naive Stata times as UTC, Parquet booleans as 0/1. */
function gotCell(format: Format, type: string, v: unknown): string | null {
  if (v === null || v === undefined) return null;
  // pandas gives system missing `.` as a missing value too: it is Stata's blank.
  if (typeof v === 'object' && 'missing' in v)
    return (v as { missing: string }).missing === '.' ? null : (v as { missing: string }).missing;
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (format === 'stata' && type === 'timestamp') return new Date(`${String(v)}Z`).toISOString();
  if (format === 'spss' && typeof v === 'string') return v.replace(/\r\n/g, '\n');
  return String(v);
}

/** Compares a file read back with the breakout's rows and the codebook: columns, every value, labels. */
function assertSameTable(
  format: Format,
  file: string,
  got: ReadBack,
  expected: ExpectedTable,
  codebook: CodebookRow[],
  table: string,
): void {
  assert.deepEqual(
    got.columns.map((c) => c.name),
    expected.columns.map((n) => (format === 'spss' && n.startsWith('_') ? `v${n}` : n)),
    `${file}: variables`,
  );
  const meta = expected.columns.map((name) => {
    const cb = codebookColumn(codebook, table, name);
    const specials = new Map(cb.values.filter((v) => v.special).map((v) => [v.value!, v.special!]));
    return { name, cb, type: cb.column.type!, specials };
  });
  const keys = meta.filter((m) => m.name === 'case_id' || m.name === 'occ' || m.name === 'note_number' || /^level_\d+_occ$/.test(m.name));
  const keyOf = (cells: (string | null)[]) => keys.map((k) => cells[meta.indexOf(k)]).join('|');
  const want = new Map<string, (string | null)[]>();
  for (const row of expected.rows) {
    const cells = meta.map((m) => expectedCell(format, m.type, m.specials, row[m.name]));
    want.set(keyOf(cells), cells);
  }
  assert.equal(got.rows.length, want.size, `${file}: row count`);
  for (let r = 0; r < got.rows.length; r++) {
    const cells = got.rows[r]!.map((v, i) => gotCell(format, meta[i]!.type, v));
    const exp = want.get(keyOf(cells));
    assert.ok(exp, `${file} row ${r + 1}: key ${keyOf(cells)} is a breakout row`);
    for (let i = 0; i < meta.length; i++) {
      // breakout_time is the time of each run: the breakout's and the export's differ by design.
      if (meta[i]!.name === 'breakout_time') continue;
      assert.equal(cells[i], exp[i], `${file} row ${r + 1} column ${meta[i]!.name}`);
    }
  }

  for (let i = 0; i < meta.length; i++) {
    const { name, cb, type, specials } = meta[i]!;
    const col = got.columns[i]!;
    const label = cb.column.label!;
    const cut = format === 'stata' ? [...label].slice(0, 80).join('') : label;
    assert.equal(col.label, format === 'spss' ? cut.replace(/\r\n/g, '\n') : cut, `${file} ${name}: variable label`);
    assert.deepEqual(
      sortPairs(col.valueLabels),
      sortPairs(expectedValueLabels(format, type, cb, specials)),
      `${file} ${name}: value labels`,
    );
    if (format === 'spss' && specials.size > 0 && (type === 'integer' || type === 'decimal')) {
      assert.deepEqual([...got.userMissing!.get(col.name)!].sort(), [...specials.keys()].sort(), `${file} ${name}: user-missing values`);
    }
  }
}

const sortPairs = (pairs: [string, string][]) => [...pairs].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

/** The value labels each format writes for a column, from the codebook (docs/export.md#formats). */
function expectedValueLabels(
  format: Format,
  type: string,
  cb: ReturnType<typeof codebookColumn>,
  specials: Map<string, string>,
): [string, string][] {
  const numeric = type === 'integer' || type === 'decimal';
  if (format === 'parquet') {
    return [
      ...cb.values.map((v): [string, string] => [v.value!, v.label!]),
      ...cb.ranges.map((r): [string, string] => [`${r.value}:${r.value_to}`, r.label!]),
    ];
  }
  if (format === 'spss') {
    if (type === 'boolean')
      return [
        ['0', 'No'],
        ['1', 'Yes'],
      ];
    return cb.values.map((v) => [numeric ? String(Number(v.value)) : v.value!, v.label!]);
  }
  // Stata labels whole numbers of numeric columns only, special codes under their letter, and
  // ranges of one value as that value.
  if (!numeric) return [];
  const out: [string, string][] = [];
  for (const v of cb.values) {
    if (!Number.isInteger(Number(v.value))) continue;
    out.push([specials.has(v.value!) ? STATA_LETTER[specials.get(v.value!)!]! : String(Number(v.value)), v.label!]);
  }
  for (const r of cb.ranges) if (r.value === r.value_to && Number.isInteger(Number(r.value))) out.push([String(Number(r.value)), r.label!]);
  return out;
}

async function ok(home: string, args: string[]) {
  const r = await sds(home, args);
  assert.equal(r.code, 0, show(r));
  return r;
}

/** Exports in `format`, reads every table file back and compares it; returns the codebook. */
async function exportAndCompare(home: string, format: Format, out: string, extra: string[] = []): Promise<CodebookRow[]> {
  const r = await ok(home, ['export', 'CEN2000', '--format', format, '--out', out, '--json', ...extra]);
  const reply = r.json<{ files: { file: string; table: string | null; rows: number; bytes: number }[] }>();
  assert.deepEqual(reply.files.map((f) => f.file).sort(), [...readdirSync(out)].sort(), 'the files listed are the files written');
  const codebook = readCodebook(join(out, 'codebook.csv'));
  const expected = expectedTables(join(home, 'targets', 'breakout.sqlite'), codebook);
  for (const f of reply.files.filter((x) => x.table !== null)) {
    assert.ok(f.file.endsWith(`.${EXT[format]}`), f.file);
    assert.equal(f.bytes, readFileSync(join(out, f.file)).length, f.file);
    const got = await readBack(format, join(out, f.file));
    assert.equal(got.rows.length, f.rows, `${f.file}: rows reported`);
    assertSameTable(format, f.file, got, expected.get(f.table!)!, codebook, f.table!);
    if (format === 'stata') {
      const tableLabel = codebook.find((c) => c.kind === 'table' && c.table === f.table)!.label!;
      assert.equal(got.dataLabel, [...tableLabel].slice(0, 80).join(''), `${f.file}: data set label`);
    }
  }
  return codebook;
}

describe('sds export --format stata|spss|parquet on the Popstan census, read back with pandas, PSPP and DuckDB', () => {
  const home = tempHome();
  after(() => home.cleanup());

  before(async () => {
    await ok(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan']);
    await ok(home.root, ['cases', 'import', 'CEN2000', fixture('popstan-census.dat'), '-q']);
    await ok(home.root, ['process-cases-by-dict', 'CEN2000', '-q']);
  });

  for (const format of ['stata', 'spss', 'parquet'] as const) {
    test(`${format}: every file holds exactly the SQLite breakout rows, variable and value labels of the codebook`, async () => {
      const codebook = await exportAndCompare(home.root, format, join(home.root, `export-${format}`));
      assert.deepEqual(
        codebook.filter((c) => c.kind === 'table').map((c) => c.file),
        ['popstan_cases', 'popstan_person', 'popstan_housing', 'popstan_notes'].map((t) => `${t}.${EXT[format]}`),
      );
      const expected = expectedTables(join(home.root, 'targets', 'breakout.sqlite'), codebook);
      assert.ok(expected.get('popstan_person')!.rows.length > 20_000, 'the real census, not an empty breakout');
    });
  }
});

describe('sds export --format stata|spss|parquet of an adversarial dictionary', () => {
  const home = tempHome();
  const LONG_A = 'HOUSEHOLD_MEMBER_SEX_AS_REPORTED_BY_RESPONDENT_A';
  const LONG_B = 'HOUSEHOLD_MEMBER_SEX_AS_REPORTED_BY_RESPONDENT_B';
  const SEX_LABEL = 'Sex, "as reported"\nby the respondent; l\'âge «exact» — 女';
  const SEX_LABELS = ['Male, "M"', "Fémale 'F', 女"];
  const REL_SPECIALS: [string, string][] = [
    ['4', 'MISSING'],
    ['5', 'REFUSED'],
    ['6', 'DEFAULT'],
    ['9', 'NOTAPPL'],
  ];
  after(() => home.cleanup());

  before(async () => {
    const dcf = JSON.parse(readFileSync(fixture('popstan-census.json.dcf'), 'utf8'));
    const person = dcf.levels[0].records.find((r: { name: string }) => r.name === 'PERSON');
    const item = (name: string) => person.items.find((i: { name: string }) => i.name === name);
    const sex = item('P03_SEX');
    sex.name = LONG_A;
    sex.labels = [{ text: SEX_LABEL }];
    sex.valueSets[0].values.forEach((v: { labels: { text: string }[] }, i: number) => (v.labels = [{ text: SEX_LABELS[i]! }]));
    item('P04_AGE').name = LONG_B;
    // `IF` is reserved (becomes `if_`), and `IF_` then collides with it.
    item('P05_MS').name = 'IF';
    item('P06_MOTHER').name = 'IF_';
    for (const v of item('P02_REL').valueSets[0].values as { pairs: { value?: string }[]; special?: string }[]) {
      const s = REL_SPECIALS.find(([code]) => v.pairs[0]?.value === code);
      if (s) v.special = s[1];
    }
    person.labels = [{ text: 'Persons; "household", members — 人口' }];
    const file = join(home.root, 'adv.dcf');
    writeFileSync(file, JSON.stringify(dcf));
    await ok(home.root, ['dict', 'upload', file, '--label', 'adv']);
    await ok(home.root, ['cases', 'import', 'CEN2000', fixture('popstan-census.dat'), '-q']);
    await ok(home.root, ['process-cases-by-dict', 'CEN2000', '-q']);
  });

  for (const format of ['stata', 'spss', 'parquet'] as const) {
    test(`${format}: long, reserved and colliding names, quoted labels and special codes read back intact`, async () => {
      const out = join(home.root, `adv-${format}`);
      const codebook = await exportAndCompare(home.root, format, out, ['--record', 'PERSON']);
      const cols = codebook.filter((r) => r.kind === 'column' && r.table === 'adv_person');
      assert.equal(new Set(cols.map((c) => c.name!.toLowerCase())).size, cols.length, 'unique ignoring case');
      const a = cols.find((c) => c.item === LONG_A)!;
      const b = cols.find((c) => c.item === LONG_B)!;
      assert.ok(a.name!.length <= 32 && b.name!.length <= 32 && a.name !== b.name);
      assert.equal(a.label, SEX_LABEL);
      assert.equal(cols.find((c) => c.item === 'IF')!.name, 'if_');
      assert.notEqual(cols.find((c) => c.item === 'IF_')!.name!.toLowerCase(), 'if_');
      assert.deepEqual(
        codebook.filter((r) => r.kind === 'value' && r.name === 'p02_rel' && r.special).map((r) => [r.value, r.special]),
        REL_SPECIALS,
      );

      const got = await readBack(format, join(out, `adv_person.${EXT[format]}`));
      const col = (name: string) => got.columns.findIndex((c) => c.name === name);
      // The labels as written in the dictionary, not through the codebook.
      assert.equal(got.columns[col(a.name!)]!.label, format === 'stata' ? [...SEX_LABEL].slice(0, 80).join('') : SEX_LABEL);
      assert.deepEqual(got.columns[col(a.name!)]!.valueLabels, [
        ['1', SEX_LABELS[0]],
        ['2', SEX_LABELS[1]],
      ]);
      const rel = col('p02_rel');
      const seen = new Set(got.rows.map((r) => gotCell(format, 'integer', r[rel])));
      if (format === 'stata') {
        for (const letter of ['.a', '.b', '.c']) assert.ok(seen.has(letter), `${letter} in the data (${[...seen].join(' ')})`);
        assert.ok(!seen.has('4') && !seen.has('5') && !seen.has('6'), 'no special code left as a number');
      } else for (const code of ['4', '5', '6']) assert.ok(seen.has(code), `${code} kept as a code`);
    });
  }
});
