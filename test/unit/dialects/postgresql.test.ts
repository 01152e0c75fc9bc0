/** PostgreSQL DDL and COPY encoding, by exact equality. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTableSql, dropTableSql, quoteIdent } from '../../../src/breakout/dialects/postgresql/ddl.js';
import { copyRowWriter, copyStatement, escapeCopyText, paramValue } from '../../../src/breakout/dialects/postgresql/encode.js';
import { TextChunks, writtenStream } from '../../../src/breakout/dialects/text-chunks.js';
import type { Row } from '../../../src/breakout/plan-model.js';
import { casesTable, notesTable, orderTable, trickyRow } from './fixture.js';

test('postgresql quoteIdent doubles double quotes and quotes reserved words', () => {
  assert.equal(quoteIdent('order'), '"order"');
  assert.equal(quoteIdent('a"b'), '"a""b"');
  assert.equal(quoteIdent('Mixed Case'), '"Mixed Case"');
});

test('postgresql CREATE TABLE for the cases table', () => {
  assert.deepEqual(createTableSql(casesTable), [
    `CREATE TABLE "p_cases" (
  "case_id" UUID NOT NULL,
  "case_key" VARCHAR(10) NOT NULL,
  "case_label" TEXT,
  "verified" BOOLEAN NOT NULL,
  "revision" INTEGER NOT NULL,
  "modified_time" TIMESTAMPTZ(3),
  PRIMARY KEY ("case_id")
)`,
  ]);
});

test('postgresql CREATE TABLE maps every column type and adds the foreign key on request', () => {
  assert.deepEqual(createTableSql(orderTable, { foreignKeys: true, casesTable: 'p_cases' }), [
    `CREATE TABLE "p_order" (
  "case_id" UUID NOT NULL,
  "occ" SMALLINT NOT NULL,
  "order" SMALLINT,
  "i5" INTEGER,
  "i9" INTEGER,
  "i10" BIGINT,
  "i18" BIGINT,
  "i19" NUMERIC(19,0),
  "amount" NUMERIC(8,2),
  "name" VARCHAR(30),
  "essay" VARCHAR(5000),
  "select" BOOLEAN,
  "odd ""name""\`]" VARCHAR(2),
  "when" TIMESTAMPTZ(3),
  PRIMARY KEY ("case_id", "occ"),
  FOREIGN KEY ("case_id") REFERENCES "p_cases" ("case_id") ON DELETE CASCADE
)`,
  ]);
  // Without the option there is no foreign key; the cases table never references itself.
  assert.ok(!createTableSql(orderTable)[0]!.includes('FOREIGN KEY'));
  assert.ok(!createTableSql(casesTable, { foreignKeys: true, casesTable: 'p_cases' })[0]!.includes('FOREIGN KEY'));
});

test('postgresql CREATE TABLE IF NOT EXISTS with a case_id index for a table keyed otherwise', () => {
  assert.deepEqual(createTableSql(notesTable, { ifNotExists: true }), [
    `CREATE TABLE IF NOT EXISTS "p_notes" (
  "case_id" UUID NOT NULL,
  "content" TEXT NOT NULL
)`,
    'CREATE INDEX IF NOT EXISTS "p_notes_case_id_idx" ON "p_notes" ("case_id")',
  ]);
});

test('postgresql DROP TABLE', () => {
  assert.equal(dropTableSql('p_order'), 'DROP TABLE IF EXISTS "p_order"');
});

test('postgresql COPY statement lists the quoted columns in plan order', () => {
  assert.equal(copyStatement(notesTable), 'COPY "p_notes" ("case_id", "content") FROM STDIN');
});

test('postgresql COPY text escapes backslash, tab, newline, CR and drops NUL', () => {
  assert.equal(escapeCopyText('a\\b\tc\nd\re\0f'), 'a\\\\b\\tc\\nd\\re' + 'f');
  assert.equal(escapeCopyText('plain é😀'), 'plain é😀');
  assert.equal(escapeCopyText('\\N'), '\\\\N');
});

/** The COPY text of `rows` as one string, written into chunks of `chunkBytes`. */
function copyText(rows: Row[], chunkBytes?: number): string {
  const out = new TextChunks(chunkBytes);
  const write = copyRowWriter(orderTable);
  for (const r of rows) write(r, out);
  assert.equal(out.rows, rows.length);
  return Buffer.concat(out.finish()).toString('utf8');
}

test('postgresql COPY line of the tricky row, byte for byte', async () => {
  const expected =
    '6f9619ff-8b86-d011-b42d-00c04fc964ff\t1\t-12\t12345\t123456789\t9007199254740991\t900719925474099312\t\\N\t12.50\t' +
    'tab\\tnew\\nline\\rcr\\\\back é😀\t\tt\t\\\\N\t2024-03-01T10:00:00.123Z\n';
  assert.equal(copyText([trickyRow]), expected);
  const falseRow = [...trickyRow];
  falseRow[11] = false;
  assert.match(copyText([falseRow]), /\tf\t/);
  // The stream carries the same UTF-8 bytes, rows in order, whatever the chunking.
  const rows = Array.from({ length: 3000 }, () => trickyRow);
  const counter = { rows: 0 };
  const chunks: Buffer[] = [];
  for await (const c of writtenStream(rows, copyRowWriter(orderTable), counter)) chunks.push(c as Buffer);
  assert.ok(chunks.length > 1);
  assert.deepEqual(Buffer.concat(chunks), Buffer.from(expected.repeat(3000), 'utf8'));
  assert.equal(counter.rows, 3000);
});

test('postgresql COPY integers and texts are the bytes of their String() and UTF-8 forms, across chunk ends', () => {
  const ints: (number | string)[] = [
    0,
    -0,
    7,
    -7,
    9,
    10,
    99,
    100,
    -100,
    32767,
    2 ** 31,
    -(2 ** 31) - 1,
    999999999999999,
    Number.MAX_SAFE_INTEGER,
  ];
  ints.push(-Number.MAX_SAFE_INTEGER, 2 ** 53, 2 ** 60, 1e21, -1e21, 12.5, '123456789012345678901');
  const texts = [
    '',
    'a',
    'é',
    '😀',
    '\ud800 lone',
    'x'.repeat(40),
    'y'.repeat(41) + 'é',
    'z'.repeat(300),
    'ascii then é at 39'.padEnd(39) + 'é',
    '\x01 and \x7f pass as they are',
  ];
  const rows: Row[] = [];
  for (const v of ints) rows.push(['g', 1, null, null, null, null, null, v, null, null, null, null, null, null]);
  for (const t of texts) rows.push(['g', 2, null, null, null, null, null, null, null, t, t, null, null, null]);
  const expected = rows
    .map((r) => {
      const i = r[7] === null ? '\\N' : String(r[7]);
      const t = r[9] === null ? '\\N' : Buffer.from(String(r[9]), 'utf8').toString('utf8');
      return `g\t${r[1]}\t\\N\t\\N\t\\N\t\\N\t\\N\t${i}\t\\N\t${t}\t${t}\t\\N\t\\N\t\\N\n`;
    })
    .join('');
  // Chunks of 7 and 50 bytes put a chunk's end inside numbers, texts and separators alike.
  for (const size of [7, 50, undefined]) assert.equal(copyText(rows, size), expected, `chunks of ${size ?? 'default'} bytes`);
});

test('postgresql parameters keep types pg serialises itself', () => {
  assert.equal(paramValue({ kind: 'boolean' }, 1), true);
  assert.equal(paramValue({ kind: 'timestamp' }, '2024-03-01T10:00:00.000Z'), '2024-03-01T10:00:00.000Z');
  assert.equal(paramValue({ kind: 'integer', digits: 3 }, null), null);
});
