/**
 * `sds export --labels both` (docs/export.md#codes-and-labels-side-by-side): CSV and Parquet hold
 * each coded column as with `--labels codes` and right after it `<name>_label`, read back by
 * pandas (CSV) and DuckDB (Parquet) and compared cell by cell with labels taken from the
 * dictionary file by Python, not by sds. The Parquet label columns are dictionary-encoded (DuckDB's
 * `parquet_metadata`) and typed as Arrow dictionaries with each column's description in the Arrow
 * schema, as the Rust Arrow reader (parquet-wasm) gives them. A variant of the Popstan census
 * has a blank value label, a labelled and an unlabelled range, an item named like a label column
 * and an item name that needs shortening.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { python, readCodebook } from '../../helpers/export-readback.js';
import { readParquet } from '../../helpers/read-parquet.js';
import { readArrowSchema } from '../../helpers/read-arrow-schema.js';
import { dictionaryValueSets, type DictEntry } from '../../helpers/labelled-views.js';

const LONG_ITEM = 'P17_WORK_STATUS_LAST_SEVEN_DAYS';

async function ok(home: string, args: string[]) {
  const r = await sds(home, args);
  assert.equal(r.code, 0, show(r));
  return r;
}

/** The label the dictionary gives `code` (not blank): its single value's, else its range's; null if none. */
function expectedLabel(set: { numeric: boolean; entries: DictEntry[] } | undefined, code: string | null): string | null {
  if (!set || code === null || code === '') return null;
  // A blank code (the usual NOTAPPL) labels no code: the data hold it as a blank.
  const named = set.entries.filter((e) => e.label.trim() !== '' && e.from.trim() !== '');
  const single = named.find((e) => e.to === undefined && (set.numeric ? Number(e.from) === Number(code) : e.from.trimEnd() === code));
  if (single) return single.label;
  if (!set.numeric) return null;
  const n = Number(code);
  return named.find((e) => e.to !== undefined && n >= Number(e.from) && n <= Number(e.to))?.label ?? null;
}

/** The items whose value set has a label that is not blank: those that get a label column. */
function labelled(set: { entries: DictEntry[] } | undefined): boolean {
  return set !== undefined && set.entries.some((e) => e.label.trim() !== '');
}

describe('sds export --labels both: codes and labels side by side in CSV and Parquet', async () => {
  const home = await tempHome();
  after(() => home.cleanup());
  const dcfFile = join(home.root, 'both-labels.dcf');
  let sets: ReturnType<typeof dictionaryValueSets>;
  const out = (format: string, mode: string) => join(home.root, `${format}-${mode}`);

  before(async () => {
    const dcf = JSON.parse(readFileSync(fixture('popstan-census.json.dcf'), 'utf8').replace(/^\uFEFF/, ''));
    dcf.name = 'BOTHLBL';
    const person = dcf.levels[0].records.find((r: { name: string }) => r.name === 'PERSON');
    const item = (name: string) => person.items.find((i: { name: string }) => i.name === name);
    type Value = { labels: { text: string }[]; pairs: { value?: string; range?: string[] }[] };
    // Male has a blank label: its label cell is empty, the code stays beside it.
    item('P03_SEX').valueSets[0].values.find((v: Value) => v.pairs.some((p) => p.value === '1')).labels = [{ text: '' }];
    // Ages: a labelled range (children) and one without a label.
    item('P04_AGE').valueSets = [
      {
        ...item('P04_AGE').valueSets[0],
        values: [
          { labels: [{ text: 'Child' }], pairs: [{ range: ['0', '14'] }] },
          { labels: [{ text: '' }], pairs: [{ range: ['15', '98'] }] },
        ],
      },
    ];
    // An item whose name is the label column's of p03_sex, and one too long for `_label`.
    item('ECON_ACTIVE').name = 'P03_SEX_LABEL';
    item('P17_WK_STATUS').name = LONG_ITEM;
    writeFileSync(dcfFile, JSON.stringify(dcf));
    const lines = readFileSync(fixture('popstan-census.dat'), 'utf8').split(/\r?\n/);
    let households = 0;
    const end = lines.findIndex((l) => l.replace(/^\uFEFF/, '').startsWith('2') && ++households === 300);
    writeFileSync(join(home.root, 'part.dat'), lines.slice(0, end + 1).join('\n') + '\n');
    await ok(home.root, ['dict', 'upload', dcfFile, '--label', 'both']);
    await ok(home.root, ['cases', 'import', 'BOTHLBL', join(home.root, 'part.dat'), '-q']);
    sets = dictionaryValueSets(dcfFile);
    for (const format of ['csv', 'parquet']) {
      for (const mode of format === 'csv' ? ['codes', 'both'] : ['codes', 'labels', 'both']) {
        await ok(home.root, ['export', 'BOTHLBL', '--format', format, '--out', out(format, mode), '--labels', mode, '-q']);
      }
    }
  });

  /**
   * The columns of a `both` table as the test expects them from the codes table's columns and the
   * codebook's items: after each column of an item with a labelled value set, its label column.
   */
  function expectedColumns(table: string, codeColumns: string[]): { name: string; codeOf?: string }[] {
    const book = readCodebook(join(out('csv', 'codes'), 'codebook.csv')).filter((r) => r.kind === 'column' && r.table === table);
    const itemOf = new Map(book.map((r) => [r.name!, r.item!]));
    const outCols: { name: string; codeOf?: string }[] = [];
    for (const name of codeColumns) {
      outCols.push({ name });
      if (labelled(sets.get(itemOf.get(name) ?? ''))) outCols.push({ name: `${name}_label`, codeOf: name });
    }
    // The names the export must give: `_2` where taken, shortened where too long.
    const taken = new Set(codeColumns);
    return outCols.map((c) => {
      if (c.codeOf === undefined) return c;
      if (taken.has(c.name)) return { ...c, name: `${c.name}_2` };
      return c;
    });
  }

  test('csv: pandas reads each coded column followed by its labels; codes as with --labels codes', () => {
    const read = python<Record<string, { columns: string[]; rows: string[][] }>>(
      `import json, sys
import pandas as pd
out = {}
for f in sys.argv[1:]:
    df = pd.read_csv(f, dtype=str, keep_default_na=False, encoding='utf-8')
    out[f] = {'columns': list(df.columns), 'rows': df.values.tolist()}
print(json.dumps(out, ensure_ascii=False))`,
      ['codes', 'both'].map((m) => join(out('csv', m), 'both_person.csv')),
    );
    const codes = read[join(out('csv', 'codes'), 'both_person.csv')]!;
    const both = read[join(out('csv', 'both'), 'both_person.csv')]!;
    const expected = expectedColumns('both_person', codes.columns);
    const longLabel = expected.find((c) => c.codeOf === LONG_ITEM.toLowerCase())!;
    // 31 characters + `_label` is past 32: shortened as every export name, with a hash.
    const got = both.columns[expected.indexOf(longLabel)]!;
    assert.ok(got.length <= 32 && got !== longLabel.name && got.startsWith('p17_work_status'), got);
    longLabel.name = got;
    assert.deepEqual(
      both.columns,
      expected.map((c) => c.name),
    );
    assert.ok(both.columns.includes('p03_sex_label') && both.columns.includes('p03_sex_label_2'), 'the item keeps its name');
    assert.equal(both.columns[both.columns.indexOf('p03_sex') + 1], 'p03_sex_label_2');
    assert.ok(!both.columns.includes('line_label'), 'a value set without a label gets no label column');
    assert.equal(both.rows.length, codes.rows.length);
    assert.ok(codes.rows.length > 1000, 'real rows');
    const book = readCodebook(join(out('csv', 'codes'), 'codebook.csv'));
    const itemOf = new Map(book.filter((r) => r.table === 'both_person' && r.kind === 'column').map((r) => [r.name!, r.item!]));
    const seen = new Map<string, number>();
    for (let r = 0; r < codes.rows.length; r++) {
      let k = 0;
      expected.forEach((c, j) => {
        const cell = both.rows[r]![j]!;
        if (c.codeOf === undefined) {
          assert.equal(cell, codes.rows[r]![k++], `row ${r + 1} ${c.name}: the code as with --labels codes`);
          return;
        }
        const code = codes.rows[r]![k - 1]!;
        const want = expectedLabel(sets.get(itemOf.get(c.codeOf)!), code) ?? '';
        assert.equal(cell, want, `row ${r + 1} ${c.name} for code ${code}`);
        if (want !== '') seen.set(c.codeOf, (seen.get(c.codeOf) ?? 0) + 1);
      });
    }
    const sexLabel = both.columns.indexOf('p03_sex_label_2');
    const ageLabel = both.columns.indexOf('p04_age_label');
    const sex = both.columns.indexOf('p03_sex');
    const age = both.columns.indexOf('p04_age');
    assert.ok(
      both.rows.some((row) => row[sex] === '1' && row[sexLabel] === ''),
      'Male, with a blank label, has an empty label cell',
    );
    assert.ok(both.rows.some((row) => row[sex] === '2' && row[sexLabel] === 'Female'));
    assert.ok(
      both.rows.some((row) => Number(row[age]) < 15 && row[ageLabel] === 'Child'),
      'a range label',
    );
    assert.ok(
      both.rows.some((row) => row[age] === '39' && row[ageLabel] === ''),
      'an unlabelled range: empty',
    );
    assert.ok((seen.get('province') ?? 0) > 1000, 'id items are labelled too');
  });

  test('parquet: DuckDB reads the same pairs; label columns dictionary-encoded strings, codes keep their types', async () => {
    const codes = await readParquet(join(out('parquet', 'codes'), 'both_person.parquet'));
    const both = await readParquet(join(out('parquet', 'both'), 'both_person.parquet'));
    const csvBoth = python<string[]>(`import csv, json, sys\nprint(json.dumps(next(csv.reader(open(sys.argv[1], encoding='utf-8')))))`, [
      join(out('csv', 'both'), 'both_person.csv'),
    ]);
    assert.deepEqual(
      both.columns.map((c) => c.name),
      csvBoth,
      'the same columns as the CSV file',
    );
    const book = readCodebook(join(out('parquet', 'both'), 'codebook.csv')).filter((r) => r.table === 'both_person' && r.kind === 'column');
    assert.deepEqual(
      book.map((r) => r.name),
      csvBoth,
      'the codebook lists the label columns',
    );
    const codeNames = codes.columns.map((c) => c.name);
    assert.equal(both.rows.length, codes.rows.length);
    for (const [j, c] of both.columns.entries()) {
      const k = codeNames.indexOf(c.name);
      const entry = book[j]!;
      if (k >= 0 && entry.label!.endsWith('(value label)') === false) {
        assert.equal(c.duckType, codes.columns[k]!.duckType, `${c.name}: its type as with --labels codes`);
        for (let r = 0; r < codes.rows.length; r++) assert.deepEqual(both.rows[r]![j], codes.rows[r]![k], `${c.name} row ${r + 1}`);
        continue;
      }
      // A label column: the code column before it, its item's labels.
      const codeName = both.columns[j - 1]!.name;
      const ck = codeNames.indexOf(codeName);
      assert.equal(c.duckType, 'VARCHAR', c.name);
      assert.equal(entry.type, 'text');
      const set = sets.get(entry.item!);
      // Dictionary-encoded wherever there is a label; a column chunk of nulls only has no dictionary.
      const anyLabel = both.rows.some((row) => row[j] !== null);
      assert.equal(c.encodings.includes('RLE_DICTIONARY'), anyLabel, `${c.name}: ${c.encodings.join(', ')}`);
      for (let r = 0; r < codes.rows.length; r++) {
        const code = codes.rows[r]![ck];
        const want = expectedLabel(set, code === null ? null : String(code));
        assert.equal(both.rows[r]![j], want, `${c.name} row ${r + 1} for code ${String(code)}`);
      }
    }
    const sexLabel = both.columns.findIndex((c) => c.name === 'p03_sex_label_2');
    const sex = both.columns.findIndex((c) => c.name === 'p03_sex');
    assert.ok(
      both.rows.some((row) => row[sex] === 1 && row[sexLabel] === null),
      'Male: NULL',
    );
    assert.ok(both.rows.some((row) => row[sex] === 2 && row[sexLabel] === 'Female'));
    const meta = JSON.parse(both.kv['sds.columns']!) as { name: string; values: string; labelsOf?: string }[];
    assert.deepEqual(
      meta.find((m) => m.name === 'p03_sex_label_2'),
      {
        ...meta.find((m) => m.name === 'p03_sex_label_2'),
        values: 'labels',
        labelsOf: 'p03_sex',
      },
    );
    assert.equal(JSON.parse(both.kv['sds.table']!).labels, 'both');
  });

  test('parquet: the Arrow schema gives each column its description and the columns of labels as dictionaries', async () => {
    for (const mode of ['codes', 'labels', 'both']) {
      const file = join(out('parquet', mode), 'both_person.parquet');
      const book = readCodebook(join(out('parquet', mode), 'codebook.csv')).filter((r) => r.table === 'both_person' && r.kind === 'column');
      const schema = await readArrowSchema(file);
      assert.deepEqual(
        schema.fields.map((f) => f.name),
        book.map((r) => r.name),
      );
      for (const [i, f] of schema.fields.entries()) {
        assert.equal(f.metadata.description, book[i]!.label, `${mode} ${f.name}: description`);
        // `both`: the added label columns; `labels`: the coded columns, which hold labels instead.
        const isLabel =
          mode === 'both' ? book[i]!.label!.endsWith('(value label)') : mode === 'labels' && labelled(sets.get(book[i]!.item ?? ''));
        assert.equal(f.type.startsWith('Dictionary<'), isLabel, `${mode} ${f.name}: ${f.type}`);
      }
      const sex = schema.fields.find((f) => f.name === 'p03_sex')!;
      assert.equal(sex.type, mode === 'labels' ? 'Dictionary<Int32, Utf8>' : 'Int32');
      assert.equal(sex.metadata.description, 'Sex');
      if (mode === 'both') {
        const values = schema.values('p03_sex_label_2');
        assert.ok(values.includes('Female') && values.includes(null), 'read as a dictionary of labels, nulls kept');
      }
      if (mode === 'labels') {
        // The code of Male, whose label is blank, stays in place as text (docs/export.md#parquet).
        const values = schema.values('p03_sex');
        assert.ok(values.includes('Female') && values.includes('1'), 'labels, and a code without one');
        const duck = await readParquet(file);
        const sexColumn = duck.columns.find((c) => c.name === 'p03_sex')!;
        assert.ok(sexColumn.encodings.includes('RLE_DICTIONARY'), sexColumn.encodings.join(', '));
      }
    }
  });
});
