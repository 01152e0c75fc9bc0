/** SQLite DDL and bound parameters, by exact equality. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTableSql, dropTableSql, quoteIdent } from '../../../src/breakout/dialects/sqlite/ddl.js';
import { insertStatement, rowEncoder } from '../../../src/breakout/dialects/sqlite/encode.js';
import { casesTable, notesTable, orderTable, trickyRow } from './fixture.js';

test('sqlite quoteIdent doubles double quotes', () => {
  assert.equal(quoteIdent('order'), '"order"');
  assert.equal(quoteIdent('a"b'), '"a""b"');
});

test('sqlite CREATE TABLE for the cases table', () => {
  assert.deepEqual(createTableSql(casesTable), [
    `CREATE TABLE "p_cases" (
  "case_id" CHAR(36) NOT NULL,
  "case_key" VARCHAR(10) NOT NULL,
  "case_label" TEXT,
  "verified" BOOLEAN NOT NULL,
  "revision" INTEGER NOT NULL,
  "modified_time" TEXT,
  PRIMARY KEY ("case_id")
)`,
  ]);
});

test('sqlite CREATE TABLE maps every column type (by affinity) and adds the foreign key on request', () => {
  assert.deepEqual(createTableSql(orderTable, { foreignKeys: true, casesTable: 'p_cases' }), [
    `CREATE TABLE "p_order" (
  "case_id" CHAR(36) NOT NULL,
  "occ" INTEGER NOT NULL,
  "order" INTEGER,
  "i5" INTEGER,
  "i9" INTEGER,
  "i10" INTEGER,
  "i18" INTEGER,
  "i19" DECIMAL(19,0),
  "amount" DECIMAL(8,2),
  "name" VARCHAR(30),
  "essay" VARCHAR(5000),
  "select" BOOLEAN,
  "odd ""name""\`]" VARCHAR(2),
  "when" TEXT,
  PRIMARY KEY ("case_id", "occ"),
  FOREIGN KEY ("case_id") REFERENCES "p_cases" ("case_id") ON DELETE CASCADE
)`,
  ]);
});

test('sqlite CREATE TABLE IF NOT EXISTS with a case_id index', () => {
  assert.deepEqual(createTableSql(notesTable, { ifNotExists: true, foreignKeys: true, casesTable: 'p_cases' }), [
    `CREATE TABLE IF NOT EXISTS "p_notes" (
  "case_id" CHAR(36) NOT NULL,
  "content" TEXT NOT NULL,
  FOREIGN KEY ("case_id") REFERENCES "p_cases" ("case_id") ON DELETE CASCADE
)`,
    'CREATE INDEX IF NOT EXISTS "p_notes_case_id_idx" ON "p_notes" ("case_id")',
  ]);
  assert.equal(dropTableSql('p_notes'), 'DROP TABLE IF EXISTS "p_notes"');
});

test('sqlite prepared INSERT and the bound values of the tricky row', () => {
  assert.equal(insertStatement(notesTable), 'INSERT INTO "p_notes" ("case_id", "content") VALUES (?, ?)');
  assert.deepEqual(rowEncoder(orderTable)(trickyRow), [
    '6f9619ff-8b86-d011-b42d-00c04fc964ff',
    1,
    -12,
    12345,
    '123456789',
    9_007_199_254_740_991,
    '900719925474099312',
    null,
    '12.50',
    'tab\tnew\nline\rcr\\back é😀',
    '',
    1,
    '\\N',
    '2024-03-01T10:00:00.123Z',
  ]);
});
