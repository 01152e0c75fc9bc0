/**
 * The Stata and SPSS exports read by R's haven (docs/export.md#opening-the-files), where most survey
 * analysts open them: the Popstan census, with codes of `P02_REL` marked MISSING, REFUSED, DEFAULT
 * and NOTAPPL, is imported, broken out into the embedded SQLite target and exported as .dta and
 * .sav; every file is read with `read_dta` / `read_sav(user_na = TRUE)` and compared value by value
 * with the breakout (through the codebook's names), its variable labels (attribute `label`) and
 * value labels (attribute `labels`) with the codebook, as the pandas and PSPP read-backs are
 * (export-formats.test.ts). Special codes: Stata's `.a`–`.c` arrive as haven's tagged NA, SPSS's
 * as user-missing values (`na_values` / `na_range`) that keep their codes.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { expectedTables, readCodebook } from '../../helpers/export-readback.js';
import { assertSameTable, EXT } from '../../helpers/export-compare.js';
import { readHaven } from '../../helpers/read-haven.js';

const SPECIALS: [string, string][] = [
  ['4', 'MISSING'],
  ['5', 'REFUSED'],
  ['6', 'DEFAULT'],
  ['9', 'NOTAPPL'],
];

async function ok(home: string, args: string[]) {
  const r = await sds(home, args);
  assert.equal(r.code, 0, show(r));
  return r;
}

describe('Stata and SPSS exports of the Popstan census read by R haven', async () => {
  const home = await tempHome();
  after(() => home.cleanup());

  before(async () => {
    const dcf = JSON.parse(readFileSync(fixture('popstan-census.json.dcf'), 'utf8'));
    const person = dcf.levels[0].records.find((r: { name: string }) => r.name === 'PERSON');
    const rel = person.items.find((i: { name: string }) => i.name === 'P02_REL');
    for (const v of rel.valueSets[0].values as { pairs: { value?: string }[]; special?: string }[]) {
      const s = SPECIALS.find(([code]) => v.pairs[0]?.value === code);
      if (s) v.special = s[1];
    }
    const file = join(home.root, 'popstan-specials.dcf');
    writeFileSync(file, JSON.stringify(dcf));
    await ok(home.root, ['dict', 'upload', file, '--label', 'popstan']);
    await ok(home.root, ['cases', 'import', 'CEN2000', fixture('popstan-census.dat'), '-q']);
    await ok(home.root, ['process-cases-by-dict', 'CEN2000', '-q']);
  });

  for (const format of ['stata', 'spss'] as const) {
    test(`${format}: every file's values, variable labels, value labels and special codes as haven reads them`, async () => {
      const out = join(home.root, `export-${format}`);
      const r = await ok(home.root, ['export', 'CEN2000', '--format', format, '--out', out, '--json']);
      const files = r.json<{ files: { file: string; table: string | null; rows: number }[] }>().files;
      const codebook = readCodebook(join(out, 'codebook.csv'));
      const expected = expectedTables(join(home.root, 'targets', 'breakout.sqlite'), codebook);
      assert.ok(expected.get('popstan_person')!.rows.length > 20_000, 'the real census, not an empty breakout');
      const tables = files.filter((f) => f.table !== null);
      assert.equal(tables.length, 4);
      for (const f of tables) {
        assert.ok(f.file.endsWith(`.${EXT[format]}`));
        const got = readHaven(format, join(out, f.file));
        assert.equal(got.rows.length, f.rows, `${f.file}: rows`);
        assertSameTable(format, f.file, got, expected.get(f.table!)!, codebook, f.table!);
        if (format === 'stata') {
          const label = codebook.find((c) => c.kind === 'table' && c.table === f.table)!.label!;
          assert.equal(got.dataLabel, [...label].slice(0, 80).join(''), `${f.file}: data set label`);
        }
      }

      const person = readHaven(format, join(out, `popstan_person.${EXT[format]}`));
      const col = (name: string) => person.columns.findIndex((c) => c.name === name);
      // A coded item is a labelled vector, which as_factor() turns into a factor of its labels.
      assert.ok(
        person.classes.get('p03_sex')!.some((c) => /^haven_labelled/.test(c)),
        person.classes.get('p03_sex')!.join(' '),
      );
      const rel = col('p02_rel');
      const seen = new Set(person.rows.map((row) => JSON.stringify(row[rel])));
      if (format === 'stata') {
        for (const tag of ['.a', '.b', '.c']) assert.ok(seen.has(JSON.stringify({ missing: tag })), `${tag} (tagged NA) in the data`);
        assert.ok(!seen.has('4') && !seen.has('5') && !seen.has('6'), 'no special code left as a number');
        const labels = new Map(person.columns[rel]!.valueLabels);
        for (const [tag, special] of [
          ['.a', 'MISSING'],
          ['.b', 'REFUSED'],
          ['.c', 'DEFAULT'],
        ] as const) {
          const code = SPECIALS.find(([, s]) => s === special)![0];
          const label = codebook.find((c) => c.kind === 'value' && c.name === 'p02_rel' && c.value === code)!.label;
          assert.equal(labels.get(tag), label, `${tag} is labelled as code ${code} is`);
        }
      } else {
        assert.ok(person.classes.get('p02_rel')!.includes('haven_labelled_spss'), person.classes.get('p02_rel')!.join(' '));
        for (const code of ['4', '5', '6']) assert.ok(seen.has(code), `${code} kept as a code`);
        assert.deepEqual([...person.userMissing!.get('p02_rel')!].sort(), ['4', '5', '6', '9']);
      }
    });
  }
});
