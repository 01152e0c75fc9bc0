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
import { expectedTables, readCodebook, type CodebookRow } from '../../helpers/export-readback.js';
import { assertCaseKeyOrder, assertSameTable, EXT, gotCell, readBack, type Format as ExportFormat } from '../../helpers/export-compare.js';

type Format = Exclude<ExportFormat, 'csv'>;

async function ok(home: string, args: string[]) {
  const r = await sds(home, args);
  assert.equal(r.code, 0, show(r));
  return r;
}

/** Exports in `format`, reads every table file back and compares it; returns the codebook. */
async function exportAndCompare(
  home: string,
  format: Format,
  out: string,
  extra: string[] = [],
  labels: 'codes' | 'labels' = 'codes',
): Promise<CodebookRow[]> {
  const r = await ok(home, ['export', 'CEN2000', '--format', format, '--out', out, '--json', '--labels', labels, ...extra]);
  const reply = r.json<{ files: { file: string; table: string | null; rows: number; bytes: number }[] }>();
  assert.deepEqual(reply.files.map((f) => f.file).sort(), [...readdirSync(out)].sort(), 'the files listed are the files written');
  const codebook = readCodebook(join(out, 'codebook.csv'));
  const expected = expectedTables(join(home, 'targets', 'breakout.sqlite'), codebook);
  const casesFile = reply.files.find((x) => x.table?.endsWith('_cases'))!;
  const cases = await readBack(format, join(out, casesFile.file));
  for (const f of reply.files.filter((x) => x.table !== null)) {
    assert.ok(f.file.endsWith(`.${EXT[format]}`), f.file);
    assert.equal(f.bytes, readFileSync(join(out, f.file)).length, f.file);
    const got = await readBack(format, join(out, f.file));
    assert.equal(got.rows.length, f.rows, `${f.file}: rows reported`);
    assertSameTable(format, f.file, got, expected.get(f.table!)!, codebook, f.table!, { labels });
    assertCaseKeyOrder(format, f.file, cases, got);
    if (format === 'stata') {
      const tableLabel = codebook.find((c) => c.kind === 'table' && c.table === f.table)!.label!;
      assert.equal(got.dataLabel, [...tableLabel].slice(0, 80).join(''), `${f.file}: data set label`);
    }
  }
  return codebook;
}

describe('sds export --format stata|spss|parquet on the Popstan census, read back with pandas, PSPP and DuckDB', async () => {
  const home = await tempHome();
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

describe('sds export --format stata|spss|parquet of an adversarial dictionary', async () => {
  const home = await tempHome();
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

  test('parquet --labels labels: each coded value is its label (special codes and quoted, non-ASCII labels too), ranges their label', async () => {
    const out = join(home.root, 'adv-parquet-labels');
    await exportAndCompare(home.root, 'parquet', out, ['--record', 'PERSON'], 'labels');
    const got = await readBack('parquet', join(out, 'adv_person.parquet'));
    const rel = got.columns.findIndex((c) => c.name === 'p02_rel');
    const seen = new Set(got.rows.map((r) => r[rel]));
    for (const [code] of REL_SPECIALS.slice(0, 3)) {
      const label = got.columns[rel]!.valueLabels.find(([v]) => v === code)![1];
      assert.ok(seen.has(label), `the label of special code ${code} (${label}) in the data`);
    }
    assert.ok(![...seen].some((v) => v === '4' || v === '5' || v === '6'), 'no labelled code left as a code');
  });
});
