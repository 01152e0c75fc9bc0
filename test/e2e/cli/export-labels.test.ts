/**
 * `sds export --labels labels` never loses a value (docs/export.md#value-sets): the Popstan census,
 * whose `line` and `p04_age` have value sets holding only a range without a label, is exported with
 * `--labels codes` and `--labels labels` in every format, and every column of every table is read
 * back by tools others wrote (pandas for CSV and Stata, DuckDB for Parquet, GNU PSPP for SPSS) and
 * compared cell by cell: a code shows as a label the dictionary file gives it (read by Python, not
 * by sds) or as itself, never as a blank. A dictionary with blank labels on single codes, on a
 * special code and on a range is checked the same way.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { readCodebook, type CodebookRow } from '../../helpers/export-readback.js';
import { EXT } from '../../helpers/export-compare.js';
import { dictionaryValueSets, labelledView, type DictEntry, type LabelledView, type ViewFormat } from '../../helpers/labelled-views.js';

const FORMATS: ViewFormat[] = ['csv', 'parquet', 'stata', 'spss'];

async function ok(home: string, args: string[]) {
  const r = await sds(home, args);
  assert.equal(r.code, 0, show(r));
  return r;
}

type ValueSets = ReturnType<typeof dictionaryValueSets>;

/** Two cells hold the same value: the same text, or the same number (`39`, `39.0`; `1200.50`, `1200.5`). */
function sameValue(a: string, b: string): boolean {
  if (a === b) return true;
  const numeric = /^\s*-?(\d+\.?\d*|\.\d+)\s*$/;
  return numeric.test(a) && numeric.test(b) && Number(a) === Number(b);
}

/** The labels the dictionary gives `code` that are not blank: its single value's, or a range's that holds it. */
function labelsOf(set: { numeric: boolean; entries: DictEntry[] }, code: string): string[] {
  const holds = (e: DictEntry) => {
    if (!set.numeric) return e.to === undefined && e.from.trimEnd() === code.trimEnd();
    const n = Number(code);
    return e.to === undefined ? Number(e.from) === n : n >= Number(e.from) && n <= Number(e.to);
  };
  return set.entries.filter((e) => e.label.trim() !== '' && holds(e)).map((e) => e.label);
}

/**
 * Every cell of the labels view is its code's value or a label the dictionary gives that code, and
 * a blank only where the code is blank. Returns, per column, how many cells show a label.
 */
function assertNoValueLost(file: string, view: LabelledView, columns: CodebookRow[], sets: ValueSets): Map<string, number> {
  assert.equal(view.columns.length, columns.length, `${file}: columns`);
  assert.equal(view.labels.length, view.codes.length, `${file}: the two exports have the same rows`);
  const shown = new Map<string, number>();
  columns.forEach((col, c) => {
    // The time of each export: the two exports differ there by design.
    if (col.name === 'breakout_time') return;
    const set = col.item ? sets.get(col.item) : undefined;
    // SPSS labels its 0/1 bookkeeping columns No/Yes (docs/export.md#spss).
    const extra = col.type === 'boolean' ? { '0': 'No', '1': 'Yes' } : {};
    let n = 0;
    for (let r = 0; r < view.codes.length; r++) {
      const code = view.codes[r]![c]!;
      const shows = view.labels[r]![c]!;
      const where = `${file} row ${r + 1} column ${col.name}`;
      if (code === null) {
        assert.equal(shows, null, `${where}: a blank shows as ${shows}`);
        continue;
      }
      assert.notEqual(shows, null, `${where}: the value ${code} was lost (a blank in its place)`);
      if (sameValue(shows!, code)) continue;
      const allowed = [...(set ? labelsOf(set, code) : []), ...(Object.hasOwn(extra, code) ? [extra[code as '0' | '1']] : [])];
      assert.ok(
        allowed.includes(shows!),
        `${where}: ${code} shows as ${JSON.stringify(shows)}, which is no label of it (${allowed.join(' | ')})`,
      );
      n++;
    }
    shown.set(col.name!, n);
  });
  for (const t of view.valueLabelTexts) assert.notEqual(t.trim(), '', `${file}: a blank value label`);
  return shown;
}

/** Exports `dictionary` as codes and as labels in `format`; per table file, its view and codebook columns. */
async function exportBoth(home: string, dictionary: string, format: ViewFormat, extra: string[] = []) {
  const dirs = { codes: join(home, `${dictionary}-${format}-codes`), labels: join(home, `${dictionary}-${format}-labels`) };
  for (const mode of ['codes', 'labels'] as const) {
    await ok(home, ['export', dictionary, '--format', format, '--out', dirs[mode], '--labels', mode, '-q', ...extra]);
  }
  const codebook = readCodebook(join(dirs.labels, 'codebook.csv'));
  assert.deepEqual(codebook, readCodebook(join(dirs.codes, 'codebook.csv')), 'the same codebook either way');
  const tables = new Map<string, { file: string; view: LabelledView; columns: CodebookRow[] }>();
  for (const t of codebook.filter((r) => r.kind === 'table')) {
    const file = `${t.table}.${EXT[format]}`;
    const view = await labelledView(format, join(dirs.codes, file), join(dirs.labels, file));
    tables.set(t.table!, { file, view, columns: codebook.filter((r) => r.kind === 'column' && r.table === t.table) });
  }
  return tables;
}

/** The cells of one column of a view, codes and what they show. */
function cells(view: LabelledView, name: string): { code: string | null; shows: string | null }[] {
  const i = view.columns.indexOf(name);
  assert.ok(i >= 0, `column ${name}`);
  return view.codes.map((r, k) => ({ code: r[i]!, shows: view.labels[k]![i]! }));
}

describe('sds export --labels labels of the Popstan census keeps every value, in every format', async () => {
  const home = await tempHome();
  after(() => home.cleanup());
  let sets: ValueSets;

  before(async () => {
    await ok(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan']);
    await ok(home.root, ['cases', 'import', 'CEN2000', fixture('popstan-census.dat'), '-q']);
    sets = dictionaryValueSets(fixture('popstan-census.json.dcf'));
  });

  for (const format of FORMATS) {
    test(`${format}: every column of every table shows its codes or their labels; line and p04_age keep their numbers`, async () => {
      const tables = await exportBoth(home.root, 'CEN2000', format);
      const shown = new Map<string, number>();
      for (const { file, view, columns } of tables.values()) {
        for (const [name, n] of assertNoValueLost(file, view, columns, sets)) shown.set(`${file}:${name}`, n);
      }
      const person = tables.get('popstan_person')!;
      for (const name of ['line', 'p04_age']) {
        // Their value sets hold one range, 1:30 and 0:98, without a label (the issue's wiped numbers).
        assert.deepEqual(
          sets.get(name.toUpperCase())!.entries.map((e) => e.label),
          [''],
        );
        const col = cells(person.view, name);
        assert.ok(col.filter((c) => c.code !== null).length > 20_000, `${name}: the real census`);
        for (const [k, c] of col.entries()) assert.equal(c.shows, c.code, `${person.file} row ${k + 1} ${name}`);
      }
      assert.ok(
        cells(person.view, 'p04_age').some((c) => c.code === '39' && c.shows === '39'),
        'age 39 stays 39',
      );
      // The labels were applied: a column with labelled codes shows them.
      assert.ok(shown.get(`${person.file}:p03_sex`)! > 20_000, `p03_sex shows Male/Female (${shown.get(`${person.file}:p03_sex`)})`);
      assert.ok(cells(person.view, 'p03_sex').some((c) => c.shows === 'Female'));
      if (format === 'parquet') {
        const types = person.view.types!;
        assert.equal(types[person.view.columns.indexOf('p04_age')], 'INTEGER', 'a value set without any label keeps the column a number');
        assert.equal(types[person.view.columns.indexOf('line')], 'INTEGER');
        assert.equal(types[person.view.columns.indexOf('p03_sex')], 'VARCHAR');
      }
    });
  }
});

describe('sds export --labels labels with blank labels on codes, a special code and a range', async () => {
  const home = await tempHome();
  after(() => home.cleanup());
  const dcfFile = join(home.root, 'blank-labels.dcf');
  let sets: ValueSets;

  before(async () => {
    const dcf = JSON.parse(readFileSync(fixture('popstan-census.json.dcf'), 'utf8').replace(/^\uFEFF/, ''));
    dcf.name = 'BLANKLBL';
    const person = dcf.levels[0].records.find((r: { name: string }) => r.name === 'PERSON');
    const item = (name: string) => person.items.find((i: { name: string }) => i.name === name);
    type Value = { labels: { text: string }[]; pairs: { value?: string; range?: string[] }[]; special?: string };
    const value = (name: string, code: string): Value =>
      item(name).valueSets[0].values.find((v: Value) => v.pairs.some((p) => p.value === code));
    // Male has no label; Spouse a label of spaces and is REFUSED (Stata .b, SPSS user-missing).
    value('P03_SEX', '1').labels = [{ text: '' }];
    Object.assign(value('P02_REL', '2'), { labels: [{ text: '   ' }], special: 'REFUSED' });
    // Ages: a labelled range (children) and one without a label.
    item('P04_AGE').valueSets[0].values = [
      { labels: [{ text: 'Child' }], pairs: [{ range: ['0', '14'] }] },
      { labels: [{ text: '' }], pairs: [{ range: ['15', '98'] }] },
    ];
    writeFileSync(dcfFile, JSON.stringify(dcf));
    // The first 200 households: a case ends with its housing record (record type 2).
    const lines = readFileSync(fixture('popstan-census.dat'), 'utf8').split(/\r?\n/);
    let households = 0;
    const end = lines.findIndex((l) => l.replace(/^\uFEFF/, '').startsWith('2') && ++households === 200);
    writeFileSync(join(home.root, 'part.dat'), lines.slice(0, end + 1).join('\n') + '\n');
    await ok(home.root, ['dict', 'upload', dcfFile, '--label', 'blank']);
    await ok(home.root, ['cases', 'import', 'BLANKLBL', join(home.root, 'part.dat'), '-q']);
    sets = dictionaryValueSets(dcfFile);
  });

  for (const format of FORMATS) {
    test(`${format}: a blank label never takes a code's place; labelled codes and ranges still show`, async () => {
      const tables = await exportBoth(home.root, 'BLANKLBL', format, ['--record', 'PERSON']);
      const person = tables.get('blank_person')!;
      assertNoValueLost(person.file, person.view, person.columns, sets);
      const sex = cells(person.view, 'p03_sex');
      assert.ok(
        sex.some((c) => c.code === '1' && c.shows === '1'),
        'Male, without a label, stays 1',
      );
      assert.ok(sex.some((c) => c.shows === 'Female'));
      const rel = cells(person.view, 'p02_rel');
      // Stata writes the special code as .b, which pandas gives as a blank in both files.
      if (format !== 'stata') assert.ok(rel.filter((c) => c.code === '2').every((c) => c.shows === '2') && rel.some((c) => c.code === '2'));
      assert.ok(rel.some((c) => c.shows === 'Head'));
      const age = cells(person.view, 'p04_age');
      assert.ok(age.some((c) => c.code === '39' && c.shows === '39'));
      // Only Parquet writes range labels in place of codes (docs/export.md#parquet).
      assert.equal(
        age.some((c) => c.shows === 'Child'),
        format === 'parquet',
      );
    });
  }
});
