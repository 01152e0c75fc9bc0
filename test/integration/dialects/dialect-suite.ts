/**
 * One integration suite run against every real target (Kysely-style): the same plan, the same
 * tricky rows, the same expectations, parameterised by how the target database is created.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getDialect } from '../../../src/breakout/dialects/index.js';
import type { TargetSession } from '../../../src/breakout/dialects/dialect.js';
import { TextChunks } from '../../../src/breakout/dialects/text-chunks.js';
import type { CellValue, Row, TablePlan } from '../../../src/breakout/plan-model.js';
import type { TestDatabase } from '../../helpers/test-databases.js';
import { readFileSync } from 'node:fs';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { planBreakout } from '../../../src/breakout/plan.js';
import { isLabelTable } from '../../../src/breakout/plan-model.js';
import { syncLabels } from '../../../src/breakout/label-sync.js';
import { fixture } from '../../helpers/temp-home.js';
import { rawItems, rawValueRows } from '../../helpers/raw-value-sets.js';

const cases: TablePlan = {
  name: 'it_cases',
  kind: 'main',
  columns: [
    { name: 'case_id', type: { kind: 'guid' }, nullable: false },
    { name: 'case_key', type: { kind: 'varchar', length: 12 }, nullable: false },
    { name: 'case_label', type: { kind: 'text' }, nullable: true },
    { name: 'verified', type: { kind: 'boolean' }, nullable: false },
    { name: 'revision', type: { kind: 'integer', digits: 10 }, nullable: false },
    { name: 'modified_time', type: { kind: 'timestamp' }, nullable: true },
  ],
  primaryKey: ['case_id'],
};

/** Reserved words and odd characters as column names. */
const person: TablePlan = {
  name: 'it_person',
  kind: 'record',
  record: 'PERSON',
  level: 1,
  columns: [
    { name: 'case_id', type: { kind: 'guid' }, nullable: false },
    { name: 'occ', type: { kind: 'integer', digits: 3 }, nullable: false },
    { name: 'order', type: { kind: 'integer', digits: 2 }, nullable: true },
    { name: 'key', type: { kind: 'varchar', length: 20 }, nullable: true },
    { name: 'select', type: { kind: 'decimal', precision: 7, scale: 2 }, nullable: true },
    { name: 'user', type: { kind: 'integer', digits: 15 }, nullable: true },
    { name: 'wide', type: { kind: 'integer', digits: 20 }, nullable: true },
    { name: 'odd-name"q', type: { kind: 'text' }, nullable: true },
    { name: 'flag', type: { kind: 'boolean' }, nullable: true },
    { name: 'when', type: { kind: 'timestamp' }, nullable: true },
  ],
  primaryKey: ['case_id', 'occ'],
};

/** No primary key: deletes go through the case_id index. */
const notes: TablePlan = {
  name: 'it_notes',
  kind: 'notes',
  columns: [
    { name: 'case_id', type: { kind: 'guid' }, nullable: false },
    { name: 'field', type: { kind: 'varchar', length: 32 }, nullable: false },
    { name: 'content', type: { kind: 'text' }, nullable: false },
  ],
  primaryKey: [],
};

const jobs: TablePlan = {
  name: 'it_cspro_jobs',
  kind: 'jobs',
  columns: [
    { name: 'id', type: { kind: 'integer', digits: 9 }, nullable: false },
    { name: 'status', type: { kind: 'varchar', length: 16 }, nullable: false },
    { name: 'cases_processed', type: { kind: 'integer', digits: 9 }, nullable: false },
    { name: 'started_time', type: { kind: 'timestamp' }, nullable: false },
    { name: 'completed_time', type: { kind: 'timestamp' }, nullable: true },
  ],
  primaryKey: ['id'],
};

const TABLES = [cases, person, notes, jobs];

/** Text no database stores as it is (docs/breakout.md, "Text"): lone surrogates and NUL in alpha values. */
export const oddText: TablePlan = {
  name: 'tx_odd_text',
  kind: 'record',
  record: 'ODD',
  level: 1,
  columns: [
    { name: 'case_id', type: { kind: 'guid' }, nullable: false },
    { name: 'occ', type: { kind: 'integer', digits: 3 }, nullable: false },
    { name: 'alpha', type: { kind: 'varchar', length: 20 }, nullable: true },
    { name: 'long_alpha', type: { kind: 'text' }, nullable: true },
  ],
  primaryKey: ['case_id', 'occ'],
};

/** [as given, as every target stores it]: a lone surrogate becomes U+FFFD, NUL is dropped. */
const ODD_TEXT: [string, string][] = [
  ['a\uD800b', 'a\uFFFDb'],
  ['\uDC00', '\uFFFD'],
  ['end\uD83D', 'end\uFFFD'],
  ['x\0y', 'xy'],
  ['\0', ''],
  ['\0\uD800\0', '\uFFFD'],
  ['pair 😀 ok', 'pair 😀 ok'],
  ['tab\t\0\\N', 'tab\t\\N'],
];

/** Rows of oddText: `alpha` and `long_alpha` both carry ODD_TEXT[i]. */
export function oddTextRows(): Rows {
  const input: Row[] = ODD_TEXT.map(([given], i) => [caseId(9000), i + 1, given, `${given}|${given}`]);
  const expected: Row[] = ODD_TEXT.map(([, stored], i) => [caseId(9000), i + 1, stored, `${stored}|${stored}`]);
  return { input, expected };
}

/** Every value a bulk encoder can get wrong; each fits 20 UTF-16 units (SQL Server counts those). */
const TRICKY: string[] = [
  '',
  'plain',
  'tab\there',
  'line\nbreak',
  'cr\rhere',
  'crlf\r\nx',
  'back\\slash',
  '\\N',
  'NULL',
  '\\\\N\\t',
  ' padded ',
  'quote\'"s',
  'é ñ ü ß',
  '日本語テキスト',
  '😀 emoji 🇫🇷',
  'ends\\',
  '\t',
  '\n',
  'N',
  '\\',
];
const DECIMALS: [CellValue, string][] = [
  ['-12345.67', '-12345.67'],
  [12.5, '12.50'],
  ['0.00', '0.00'],
  [99999.99, '99999.99'],
  ['-0.01', '-0.01'],
  [1, '1.00'],
];
const WIDE: [CellValue, CellValue][] = [
  ['9007199254740993', '9007199254740993'],
  ['-9223372036854775807', '-9223372036854775807'],
  [42, 42],
];
const TIMES = ['2024-03-01T10:00:00.000Z', '1999-12-31T23:59:59.999Z', '2038-01-19T03:14:08.000Z', null];
const LONG_TEXT = `${TRICKY.join('|')}${'x'.repeat(5000)}`;

const CASES = 600;
const PERSONS_PER_CASE = 5;

function caseId(i: number): string {
  return `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
}

/** Input and expected canonical rows of one table. */
interface Rows {
  input: Row[];
  expected: Row[];
}

function caseRows(ids: number[], revision = 1): Rows {
  const input: Row[] = ids.map((i) => [
    caseId(i),
    `K${String(i).padStart(6, '0')}`,
    i % 7 === 0 ? null : TRICKY[i % TRICKY.length]!,
    i % 2 === 0,
    revision,
    TIMES[i % TIMES.length]!,
  ]);
  return { input, expected: input.map((r) => [...r]) };
}

function personRows(ids: number[], tag = ''): Rows {
  const input: Row[] = [];
  const expected: Row[] = [];
  let n = 0;
  for (const i of ids) {
    for (let occ = 1; occ <= PERSONS_PER_CASE; occ++, n++) {
      const dec = n % 11 === 0 ? null : DECIMALS[n % DECIMALS.length]!;
      const wide = n % 13 === 0 ? null : WIDE[n % WIDE.length]!;
      const text = n % 17 === 0 ? null : n % 50 === 1 ? LONG_TEXT : `${tag}${TRICKY[(n * 7) % TRICKY.length]!}`;
      const key = n % 19 === 0 ? null : `${TRICKY[n % TRICKY.length]!}`.slice(0, 20 - tag.length) + tag;
      const flag = n % 3 === 0 ? null : n % 3 === 1;
      const base = [caseId(i), occ, n % 5 === 0 ? null : (n % 199) - 99, key];
      const tail = [n % 4 === 0 ? null : 999_999_999_999_999 - n, null, text, flag, TIMES[n % TIMES.length]!];
      input.push([...base, dec ? dec[0] : null, tail[0]!, wide ? wide[0] : null, ...tail.slice(2)] as Row);
      expected.push([...base, dec ? dec[1] : null, tail[0]!, wide ? wide[1] : null, ...tail.slice(2)] as Row);
    }
  }
  return { input, expected };
}

function noteRows(ids: number[]): Rows {
  const input: Row[] = ids.filter((i) => i % 3 === 0).map((i) => [caseId(i), 'Q1', `note ${TRICKY[i % TRICKY.length]!}`]);
  return { input, expected: input.map((r) => [...r]) };
}

/** Yields rows asynchronously, one microtask apart, the way a streaming flattener does. */
async function* asAsync(rows: Row[], failAfter?: number): AsyncGenerator<Row> {
  let n = 0;
  for (const r of rows) {
    if (failAfter !== undefined && n === failAfter) throw new Error('source failed on purpose');
    n++;
    await Promise.resolve();
    yield r;
  }
}

function keyOf(row: Row, width: number): string {
  return JSON.stringify(row.slice(0, width));
}

/** Rows sorted by their first `width` cells (databases order guids differently). */
function sorted(rows: Row[], width: number): Row[] {
  return [...rows].sort((a, b) => (keyOf(a, width) < keyOf(b, width) ? -1 : keyOf(a, width) > keyOf(b, width) ? 1 : 0));
}

async function readSorted(session: TargetSession, table: TablePlan, width: number): Promise<Row[]> {
  return sorted(await session.readRows(table), width);
}

const ALL = Array.from({ length: CASES }, (_, i) => i);

/** Registers the shared suite for one target. */
export function describeTargetSuite(
  label: string,
  createDatabase: () => Promise<TestDatabase>,
  configure: (db: TestDatabase) => TestDatabase = (d) => d,
  skip: string | false = false,
): void {
  describe(`${label} target session`, { skip }, () => {
    let db: TestDatabase;
    let session: TargetSession;
    let expectedCases: Row[];
    let expectedPersons: Row[];
    let expectedNotes: Row[];

    before(async () => {
      db = configure(await createDatabase());
      session = await getDialect(db.config.type).connect(db.config);
    });

    after(async () => {
      await session?.close();
      await db?.drop();
    });

    test('reports its database and server version', async () => {
      assert.ok(session.databaseName().length > 0);
      assert.match(await session.serverVersion(), /\d+\.\d+/);
    });

    test('creates every table of a plan, with a foreign key to the cases table', async () => {
      await session.createTables(TABLES, { foreignKeys: true, casesTable: cases.name });
      for (const t of TABLES) assert.equal(await session.tableExists(t.name), true, t.name);
      assert.equal(await session.tableExists('it_missing'), false);
      // Incremental runs create only what is missing.
      await session.createTables(TABLES, { foreignKeys: true, casesTable: cases.name, ifNotExists: true });
    });

    test('bulk-loads thousands of rows with tricky values and reads them back exactly', async () => {
      const c = caseRows(ALL);
      const p = personRows(ALL);
      const n = noteRows(ALL);
      assert.equal(await session.bulkLoad(cases, c.input), CASES);
      assert.equal(await session.bulkLoad(person, asAsync(p.input)), CASES * PERSONS_PER_CASE);
      assert.equal(await session.bulkLoad(notes, asAsync(n.input)), n.input.length);
      expectedCases = sorted(c.expected, 1);
      expectedPersons = sorted(p.expected, 2);
      expectedNotes = sorted(n.expected, 3);
      assert.deepEqual(await readSorted(session, cases, 1), expectedCases);
      const persons = await readSorted(session, person, 2);
      for (let i = 0; i < persons.length; i++) assert.deepEqual(persons[i], expectedPersons[i], `person row ${i}`);
      assert.equal(persons.length, expectedPersons.length);
      assert.deepEqual(await readSorted(session, notes, 3), expectedNotes);
    });

    test('replaces the rows of some cases atomically inside a transaction', async () => {
      const ids = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
      const c = caseRows(ids, 2);
      const p = personRows(ids, '*');
      const deleted = await session.transaction(async () => {
        let d = 0;
        for (const t of [person, notes, cases]) d += await session.deleteCaseRows(t, ids.map(caseId));
        await session.bulkLoad(cases, asAsync(c.input));
        await session.bulkLoad(person, asAsync(p.input));
        return d;
      });
      // Children first, so the cascade of the cases delete finds nothing left to remove.
      assert.equal(deleted, ids.length * PERSONS_PER_CASE + noteRows(ids).input.length + ids.length);
      const idSet = new Set(ids.map(caseId));
      expectedCases = sorted([...expectedCases.filter((r) => !idSet.has(r[0] as string)), ...c.expected], 1);
      expectedPersons = sorted([...expectedPersons.filter((r) => !idSet.has(r[0] as string)), ...p.expected], 2);
      expectedNotes = expectedNotes.filter((r) => !idSet.has(r[0] as string));
      assert.deepEqual(await readSorted(session, cases, 1), expectedCases);
      assert.deepEqual(await readSorted(session, person, 2), expectedPersons);
      assert.deepEqual(await readSorted(session, notes, 3), expectedNotes);
    });

    test('rolls back a transaction whose row source fails half way: nothing is half-applied', async () => {
      const ids = [20, 21, 22];
      await assert.rejects(
        session.transaction(async () => {
          for (const t of [person, cases]) await session.deleteCaseRows(t, ids.map(caseId));
          await session.bulkLoad(cases, caseRows(ids, 3).input);
          await session.bulkLoad(person, asAsync(personRows(ids, '!').input, 7));
        }),
        /source failed on purpose/,
      );
      assert.deepEqual(await readSorted(session, cases, 1), expectedCases);
      assert.deepEqual(await readSorted(session, person, 2), expectedPersons);
    });

    test('rolls back a transaction whose load breaks a primary key (no silently skipped rows)', async () => {
      const ids = [30];
      const dup = personRows(ids, '#').input;
      await assert.rejects(
        session.transaction(async () => {
          await session.deleteCaseRows(person, ids.map(caseId));
          await session.bulkLoad(person, [...dup, dup[0]!]);
        }),
      );
      assert.deepEqual(await readSorted(session, person, 2), expectedPersons);
    });

    test('upserts and reads bookkeeping rows', async () => {
      await session.upsertRow(jobs, [1, 'running', 0, '2024-05-01T08:00:00.000Z', null]);
      await session.upsertRow(jobs, [2, 'running', 0, '2024-05-01T09:00:00.000Z', null]);
      await session.upsertRow(jobs, [1, 'completed', 600, '2024-05-01T08:00:00.000Z', '2024-05-01T08:01:02.345Z']);
      assert.deepEqual(await session.readRows(jobs, { orderBy: [{ column: 'id' }] }), [
        [1, 'completed', 600, '2024-05-01T08:00:00.000Z', '2024-05-01T08:01:02.345Z'],
        [2, 'running', 0, '2024-05-01T09:00:00.000Z', null],
      ]);
      assert.deepEqual(await session.readRows(jobs, { where: { status: 'completed' } }), [
        [1, 'completed', 600, '2024-05-01T08:00:00.000Z', '2024-05-01T08:01:02.345Z'],
      ]);
      assert.deepEqual(await session.readRows(jobs, { orderBy: [{ column: 'id', desc: true }], limit: 1 }), [
        [2, 'running', 0, '2024-05-01T09:00:00.000Z', null],
      ]);
    });

    test('lists the tables of a prefix with exact row counts and sizes', async () => {
      const tables = await session.listTables('it_');
      assert.deepEqual(
        tables.map((t) => t.name),
        ['it_cases', 'it_cspro_jobs', 'it_notes', 'it_person'],
      );
      const counts = Object.fromEntries(tables.map((t) => [t.name, t.rowCount]));
      assert.deepEqual(counts, { it_cases: CASES, it_cspro_jobs: 2, it_notes: expectedNotes.length, it_person: CASES * PERSONS_PER_CASE });
      for (const t of tables) {
        assert.ok(t.sizeBytes > 0, `${t.name} size ${t.sizeBytes}`);
        if (session.dialect.capabilities.tableCreatedAt)
          assert.ok(t.createdAt && !Number.isNaN(Date.parse(t.createdAt)), `${t.name} createdAt`);
        else assert.equal(t.createdAt, null);
      }
      assert.equal(await session.countRows(person.name), CASES * PERSONS_PER_CASE);
      assert.deepEqual(
        await session.listTables('it_p'),
        tables.filter((t) => t.name === 'it_person'),
      );
      // `_` is literal in a prefix, not a LIKE wildcard.
      assert.deepEqual(await session.listTables('it_cases_'), []);
    });

    test('where it writes rows as text first, loads them exactly as the bulk path does', async () => {
      // The text path is both methods or neither: the breakout uses it only whole (run-dictionary.ts);
      // a target without it loads rows through bulkLoad, which the tests above cover.
      assert.equal(session.textWriter === undefined, session.loadText === undefined, 'textWriter and loadText come together');
      if (!session.textWriter || !session.loadText) return;
      const table: TablePlan = { ...person, name: 'it_text_person' };
      await session.createTables([table]);
      const p = personRows(ALL.slice(0, 40), '~');
      const odd = oddTextRows();
      const oddTable: TablePlan = { ...oddText, name: 'it_text_odd' };
      await session.createTables([oddTable]);
      // Chunks of 50 bytes end inside cells and escapes alike.
      const write = async (tp: TablePlan, rows: Row[]): Promise<number> => {
        const out = new TextChunks(50);
        const writer = session.textWriter!(tp);
        for (const r of rows) writer(r, out);
        return session.loadText!(tp, out);
      };
      assert.equal(await write(table, p.input), p.input.length);
      assert.equal(await write(oddTable, odd.input), odd.input.length);
      assert.deepEqual(await readSorted(session, table, 2), sorted(p.expected, 2));
      assert.deepEqual(await readSorted(session, oddTable, 2), sorted(odd.expected, 2));
      assert.deepEqual(await session.dropTables([table.name, oddTable.name]), [table.name, oddTable.name]);
    });

    test('stores lone surrogates as U+FFFD and drops NUL, through the bulk path and through parameters', async () => {
      await session.createTables([oddText]);
      const rows = oddTextRows();
      assert.equal(await session.bulkLoad(oddText, asAsync(rows.input)), rows.input.length);
      // Bookkeeping statements bind parameters instead of the bulk format: the same rule.
      await session.upsertRow(oddText, [caseId(9000), 99, 'p\uD800\0q', '\0']);
      assert.deepEqual(await readSorted(session, oddText, 2), sorted([...rows.expected, [caseId(9000), 99, 'p\uFFFDq', '']], 2));
      assert.deepEqual(await session.dropTables([oddText.name]), [oddText.name]);
    });

    test('writes the label tables in one transaction, only when the labels changed', async () => {
      const text = readFileSync(fixture('popstan-census.json.dcf'), 'utf8');
      const dict = parseDictionary(text);
      const plan = planBreakout(dict, 'lbl', { maxIdentifierLength: session.dialect.capabilities.maxIdentifierLength });
      const labelTables = plan.tables.filter(isLabelTable);
      await session.createTables(labelTables);
      const first = await syncLabels(session, plan, dict);
      assert.equal(first.written, true);
      const vs = labelTables.find((t) => t.kind === 'value_sets')!;
      const read = (await session.readRows(vs)).map((r) => ({
        item: r[0],
        valueSetOrder: r[1],
        valueOrder: r[2],
        pairOrder: r[3],
        valueSetName: r[4],
        valueSetLabel: r[5],
        from: r[6],
        to: r[7],
        fromNum: r[8] === null ? null : Number(r[8]),
        toNum: r[9] === null ? null : Number(r[9]),
        label: r[10],
        special: r[11],
      }));
      const key = (r: { item: unknown; valueSetOrder: unknown; valueOrder: unknown; pairOrder: unknown }) =>
        `${String(r.item)}/${String(r.valueSetOrder)}/${String(r.valueOrder)}/${String(r.pairOrder)}`;
      const bySortKey = (a: { item: unknown; valueSetOrder: unknown; valueOrder: unknown; pairOrder: unknown }, b: typeof a) =>
        key(a) < key(b) ? -1 : 1;
      assert.deepEqual(read.sort(bySortKey), rawValueRows(fixture('popstan-census.json.dcf')).sort(bySortKey));
      assert.equal(await session.countRows(labelTables[1]!.name), rawItems(fixture('popstan-census.json.dcf')).size);
      // Nothing changed: nothing written.
      assert.equal((await syncLabels(session, plan, dict)).written, false);
      // A new label: both tables rewritten, the same number of rows.
      const relabelled = parseDictionary(text.replace('"text": "Male"', '"text": "Man"'));
      assert.equal((await syncLabels(session, plan, relabelled)).written, true);
      const sex = await session.readRows(vs, { where: { item_name: 'P03_SEX' }, orderBy: [{ column: 'value_order' }] });
      assert.deepEqual(
        sex.map((r) => r[10]),
        ['Man', 'Female'],
      );
      assert.equal(await session.countRows(vs.name), read.length);
      assert.deepEqual(
        await session.dropTables(labelTables.map((t) => t.name)),
        labelTables.map((t) => t.name),
      );
    });

    test('drops tables whatever their foreign-key order and reports what it dropped', async () => {
      const dropped = await session.dropTables([cases.name, person.name, notes.name, jobs.name, 'it_never_created']);
      assert.deepEqual(dropped, [cases.name, person.name, notes.name, jobs.name]);
      assert.deepEqual(await session.listTables('it_'), []);
    });
  });
}
