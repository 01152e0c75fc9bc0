/**
 * `sds export --format csv` as a user runs it (docs/export.md): the Popstan census imported into a
 * home and broken out into the embedded SQLite target, then exported; every CSV file is read
 * back with Python's csv module and compared, row by row and value by value, with the SQLite
 * breakout tables (through the codebook's names), `--labels labels` with the value labels of the
 * dictionary file itself, and an adversarial dictionary (names over 32 characters sharing their
 * head, labels with quotes, commas, line breaks and non-ASCII) the same way.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { asCsvText, expectedTables, python, readCodebook, readCsvFiles, type ExpectedTable } from '../../helpers/export-readback.js';

/** Sorts rows (string arrays keyed by header) by their key columns, so file and table order do not matter. */
function sortedRows(header: string[], rows: string[][], keys: string[]): string[][] {
  const idx = keys.map((k) => header.indexOf(k));
  return [...rows].sort((a, b) => {
    for (const i of idx) {
      const x = a[i]!;
      const y = b[i]!;
      if (x !== y) return /^\d+$/.test(x) && /^\d+$/.test(y) ? Number(x) - Number(y) : x < y ? -1 : 1;
    }
    return 0;
  });
}

/** Compares one CSV file (header first) with the breakout's rows, every column but `skip`. */
function assertSameRows(file: string, csv: string[][], expected: ExpectedTable, skip: string[] = []): void {
  const [header, ...rows] = csv;
  assert.deepEqual(header, expected.columns, `${file}: header`);
  const keys = header!.filter((h) => h === 'case_id' || h === 'occ' || h === 'note_number' || /^level_\d+_occ$/.test(h));
  const want = expected.rows.map((r) => header!.map((h) => asCsvText(r[h])));
  const got = sortedRows(header!, rows, keys);
  const exp = sortedRows(header!, want, keys);
  assert.equal(got.length, exp.length, `${file}: row count`);
  const cols = header!.map((h, i) => ({ h, i })).filter(({ h }) => !skip.includes(h));
  for (let r = 0; r < got.length; r++) {
    for (const { h, i } of cols) assert.equal(got[r]![i], exp[r]![i], `${file} row ${r + 1} column ${h}`);
  }
}

async function ok(home: string, args: string[]) {
  const r = await sds(home, args);
  assert.equal(r.code, 0, show(r));
  return r;
}

describe('sds export --format csv on the Popstan census', async () => {
  const home = await tempHome();
  const out = join(home.root, 'export-csv');
  after(() => home.cleanup());

  before(async () => {
    await ok(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan']);
    await ok(home.root, ['cases', 'import', 'CEN2000', fixture('popstan-census.dat'), '-q']);
    await ok(home.root, ['process-cases-by-dict', 'CEN2000', '-q']);
  });

  test('every file holds exactly the SQLite breakout rows; --json lists files, rows and bytes', async () => {
    const r = await ok(home.root, ['export', 'CEN2000', '--format', 'csv', '--out', out, '--json']);
    const reply = r.json<{ cases: number; files: { file: string; table: string | null; rows: number; bytes: number }[] }>();
    assert.deepEqual(
      reply.files.map((f) => f.file).sort(),
      [...readdirSync(out)].sort(),
      'the files listed are the files written, no temporary file left',
    );
    assert.deepEqual(
      reply.files.map((f) => f.file),
      ['popstan_cases.csv', 'popstan_person.csv', 'popstan_housing.csv', 'popstan_notes.csv', 'codebook.csv'],
    );
    for (const f of reply.files) assert.equal(f.bytes, readFileSync(join(out, f.file)).length, f.file);
    const codebook = readCodebook(join(out, 'codebook.csv'));
    const expected = expectedTables(join(home.root, 'targets', 'breakout.sqlite'), codebook);
    const files = reply.files.filter((f) => f.table !== null);
    const csv = readCsvFiles(files.map((f) => join(out, f.file)));
    assert.ok(expected.get('popstan_person')!.rows.length > 20_000, 'the real census, not an empty breakout');
    for (const f of files) {
      const rows = csv[join(out, f.file)]!;
      assert.equal(rows.length - 1, f.rows, `${f.file}: rows reported`);
      // breakout_time is the time of each run: the breakout's and the export's differ by design.
      assertSameRows(f.file, rows, expected.get(f.table!)!, ['breakout_time']);
    }
    assert.equal(reply.cases, expected.get('popstan_cases')!.rows.length);
    const raw = readFileSync(join(out, 'popstan_person.csv'));
    assert.notEqual(raw[0], 0xef, 'no byte order mark by default');
    assert.match(raw.toString('utf8', 0, 400), /^case_id,province,[^\n]*\r\n[^\n]*\r\n/, 'CRLF line ends');
  });

  test('a second export into the same folder is refused without --force, and replaces with it', async () => {
    const again = await sds(home.root, ['export', 'CEN2000', '--format', 'csv', '--out', out, '--record', 'HOUSING']);
    assert.equal(again.code, 4, show(again));
    assert.match(again.stderr, /EXPORT_FILE_EXISTS/);
    assert.match(again.stderr, /popstan_cases\.csv/);
    const forced = await ok(home.root, ['export', 'CEN2000', '--format', 'csv', '--out', out, '--record', 'HOUSING', '--force', '--json']);
    assert.deepEqual(
      forced.json<{ files: { file: string }[] }>().files.map((f) => f.file),
      ['popstan_cases.csv', 'popstan_housing.csv', 'codebook.csv'],
    );
  });

  test('--labels labels writes the value labels of the dictionary file for coded values, other values as codes', async () => {
    const dir = join(home.root, 'export-labels');
    await ok(home.root, ['export', 'CEN2000', '--format', 'csv', '--out', dir, '--labels', 'labels', '--record', 'PERSON']);
    await ok(home.root, ['export', 'CEN2000', '--format', 'csv', '--out', join(home.root, 'export-codes'), '--record', 'PERSON']);
    // The labels of single codes are read from the .dcf by Python, not from sds.
    const result = python<{ checked: number; labelled: number; bad: string[] }>(
      `import csv, json, sys
dcf = json.load(open(sys.argv[1], encoding='utf-8'))
labels = {}
for level in dcf['levels']:
    # The record files hold the id items too, with their value labels (docs/export.md#id-items).
    for rec in level['records'] + [level['ids']]:
        for item in rec['items']:
            sets = item.get('valueSets') or []
            if not sets: continue
            m = {}
            for v in sets[0]['values']:
                for p in v.get('pairs', []):
                    if 'value' in p and p['value'].strip() != '':
                        m.setdefault(str(int(p['value'])) if p['value'].strip().lstrip('-').isdigit() else p['value'], v['labels'][0]['text'])
            labels[item['name'].lower()] = m
codes = list(csv.reader(open(sys.argv[2], newline='', encoding='utf-8')))
named = list(csv.reader(open(sys.argv[3], newline='', encoding='utf-8')))
assert codes[0] == named[0], 'same header'
checked = labelled = 0
bad = []
for a, b in zip(codes[1:], named[1:]):
    for h, x, y in zip(codes[0], a, b):
        checked += 1
        want = labels.get(h, {}).get(x, x)
        if want != x: labelled += 1
        if y != want and len(bad) < 10: bad.append(f'{h}: {x} -> {y}, want {want}')
print(json.dumps({'checked': checked, 'labelled': labelled, 'bad': bad}))`,
      [fixture('popstan-census.json.dcf'), join(home.root, 'export-codes', 'popstan_person.csv'), join(dir, 'popstan_person.csv')],
    );
    assert.deepEqual(result.bad, []);
    assert.ok(result.labelled > 10_000, `labels were written (${result.labelled} of ${result.checked})`);
  });

  test('--include-deleted adds deleted cases and a deleted column; --since-revision N only cases changed after N', async () => {
    const before = readCsvFiles([join(out, 'popstan_cases.csv')])[join(out, 'popstan_cases.csv')]!;
    const head = before[0]!;
    const guid = before[1]![head.indexOf('case_id')]!;
    const oldMax = Math.max(...before.slice(1).map((r) => Number(r[head.indexOf('revision')])));
    await ok(home.root, ['cases', 'delete', 'CEN2000', guid]);

    const active = join(home.root, 'export-active');
    const a = await ok(home.root, ['export', 'CEN2000', '--format', 'csv', '--out', active, '--record', 'PERSON', '--json']);
    assert.equal(a.json<{ cases: number }>().cases, before.length - 2, 'the deleted case is left out by default');
    const activeRows = readCsvFiles([join(active, 'popstan_cases.csv'), join(active, 'popstan_person.csv')]);
    assert.ok(!activeRows[join(active, 'popstan_cases.csv')]!.some((r) => r[0] === guid));
    assert.ok(!activeRows[join(active, 'popstan_person.csv')]!.some((r) => r[0] === guid));
    assert.ok(!activeRows[join(active, 'popstan_cases.csv')]![0]!.includes('deleted'));

    const all = join(home.root, 'export-all');
    await ok(home.root, ['export', 'CEN2000', '--format', 'csv', '--out', all, '--include-deleted']);
    const allCases = readCsvFiles([join(all, 'popstan_cases.csv')])[join(all, 'popstan_cases.csv')]!;
    assert.equal(allCases[0]!.at(-1), 'deleted');
    assert.equal(allCases.length, before.length);
    const flagged = allCases.slice(1).filter((r) => r.at(-1) === '1');
    assert.deepEqual(
      flagged.map((r) => r[0]),
      [guid],
    );
    assert.ok(allCases.slice(1).every((r) => r.at(-1) === '1' || r.at(-1) === '0'));

    const since = join(home.root, 'export-since');
    const s1 = await ok(home.root, ['export', 'CEN2000', '--format', 'csv', '--out', since, '--since-revision', String(oldMax), '--json']);
    assert.equal(s1.json<{ cases: number }>().cases, 0, 'the only change since is a deletion');
    const s2 = await ok(home.root, [
      'export',
      'CEN2000',
      '--format',
      'csv',
      '--out',
      since,
      '--since-revision',
      String(oldMax),
      '--include-deleted',
      '--force',
      '--json',
    ]);
    assert.equal(s2.json<{ cases: number }>().cases, 1);
    const sinceCases = readCsvFiles([join(since, 'popstan_cases.csv')])[join(since, 'popstan_cases.csv')]!;
    assert.deepEqual(
      sinceCases.slice(1).map((r) => [r[0], r.at(-1)]),
      [[guid, '1']],
    );
    assert.ok(Number(sinceCases[1]![head.indexOf('revision')]) > oldMax);
    const bad = await sds(home.root, ['export', 'CEN2000', '--format', 'csv', '--out', since, '--since-revision', 'x']);
    assert.equal(bad.code, 2, show(bad));
  });

  test('unknown format, dictionary and record: clear codes, nothing written', async () => {
    const dir = join(home.root, 'never');
    const fmt = await sds(home.root, ['export', 'CEN2000', '--format', 'sas', '--out', dir]);
    assert.equal(fmt.code, 2, show(fmt));
    const dict = await sds(home.root, ['export', 'NOPE', '--format', 'csv', '--out', dir]);
    assert.equal(dict.code, 3, show(dict));
    assert.match(dict.stderr, /DICTIONARY_NOT_FOUND/);
    const rec = await sds(home.root, ['export', 'CEN2000', '--format', 'csv', '--out', dir, '--record', 'NOPE']);
    assert.equal(rec.code, 3, show(rec));
    assert.match(rec.stderr, /EXPORT_RECORD_UNKNOWN/);
    assert.match(rec.stderr, /PERSON, HOUSING/);
    assert.ok(!existsSync(dir) || readdirSync(dir).length === 0);
  });
});

describe('sds export --format csv of an adversarial dictionary', async () => {
  const home = await tempHome();
  const out = join(home.root, 'adv');
  const LONG_A = 'HOUSEHOLD_MEMBER_SEX_AS_REPORTED_BY_RESPONDENT_A';
  const LONG_B = 'HOUSEHOLD_MEMBER_SEX_AS_REPORTED_BY_RESPONDENT_B';
  const SEX_LABELS = ['Male, "M"', 'Fémale\r\nsecond line, 女'];
  after(() => home.cleanup());

  before(async () => {
    const dcf = JSON.parse(readFileSync(fixture('popstan-census.json.dcf'), 'utf8'));
    const person = dcf.levels[0].records.find((r: { name: string }) => r.name === 'PERSON');
    const sex = person.items.find((i: { name: string }) => i.name === 'P03_SEX');
    sex.name = LONG_A;
    sex.labels = [{ text: 'Sex, "as reported"\nby the respondent' }];
    sex.valueSets[0].values.forEach((v: { labels: { text: string }[] }, i: number) => (v.labels = [{ text: SEX_LABELS[i]! }]));
    person.items.find((i: { name: string }) => i.name === 'P04_AGE').name = LONG_B;
    person.items.find((i: { name: string }) => i.name === 'P05_MS').name = 'IF';
    person.labels = [{ text: 'Persons; "household", members' }];
    const file = join(home.root, 'adv.dcf');
    writeFileSync(file, JSON.stringify(dcf));
    await ok(home.root, ['dict', 'upload', file, '--label', 'adv']);
    await ok(home.root, ['cases', 'import', 'CEN2000', fixture('popstan-census.dat'), '-q']);
    await ok(home.root, ['process-cases-by-dict', 'CEN2000', '-q']);
  });

  test('names are valid, unique and mapped in the codebook; values equal the breakout; labels survive quoting', async () => {
    await ok(home.root, ['export', 'CEN2000', '--format', 'csv', '--out', out, '--record', 'PERSON']);
    const codebook = readCodebook(join(out, 'codebook.csv'));
    const cols = codebook.filter((r) => r.kind === 'column' && r.table === 'adv_person');
    for (const c of cols) {
      assert.match(c.name!, /^[a-z_][a-z0-9_]*$/);
      assert.ok(c.name!.length <= 32, c.name);
    }
    assert.equal(new Set(cols.map((c) => c.name!.toLowerCase())).size, cols.length);
    const a = cols.find((c) => c.item === LONG_A)!;
    const b = cols.find((c) => c.item === LONG_B)!;
    assert.equal(a.source, LONG_A.toLowerCase());
    assert.notEqual(a.name, b.name);
    assert.equal(a.label, 'Sex, "as reported"\nby the respondent');
    assert.equal(cols.find((c) => c.item === 'IF')!.name, 'if_');
    assert.deepEqual(
      codebook.filter((r) => r.kind === 'value' && r.name === a.name).map((r) => [r.value, r.label]),
      [
        ['1', SEX_LABELS[0]],
        ['2', SEX_LABELS[1]],
      ],
    );
    assert.equal(codebook.find((r) => r.kind === 'table' && r.table === 'adv_person')!.label, 'Persons; "household", members');
    const expected = expectedTables(join(home.root, 'targets', 'breakout.sqlite'), codebook);
    const csv = readCsvFiles([join(out, 'adv_person.csv')]);
    assertSameRows('adv_person.csv', csv[join(out, 'adv_person.csv')]!, expected.get('adv_person')!);

    const labelled = join(home.root, 'adv-labels');
    await ok(home.root, ['export', 'CEN2000', '--format', 'csv', '--out', labelled, '--record', 'PERSON', '--labels', 'labels', '--bom']);
    const raw = readFileSync(join(labelled, 'adv_person.csv'));
    assert.deepEqual([...raw.subarray(0, 3)], [0xef, 0xbb, 0xbf], '--bom');
    const rows = python<string[][]>(
      `import csv, json, sys
print(json.dumps(list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8-sig')))))`,
      [join(labelled, 'adv_person.csv')],
    );
    const col = rows[0]!.indexOf(a.name!);
    const seen = new Set(rows.slice(1).map((r) => r[col]));
    assert.deepEqual([...seen].sort(), [...SEX_LABELS].sort(), 'the labels, quotes and line breaks intact');
  });
});
