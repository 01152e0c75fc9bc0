/** SQL Server DDL and tedious bulk-load values, by exact equality (no server needed). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTableSql, dropTableSql, quoteIdent } from '../../../src/breakout/dialects/sqlserver/ddl.js';
import { bulkColumns, bulkRowEncoder, paramValue } from '../../../src/breakout/dialects/sqlserver/encode.js';
import { casesTable, notesTable, orderTable, trickyRow } from './fixture.js';

test('sqlserver quoteIdent brackets names and doubles closing brackets', () => {
  assert.equal(quoteIdent('order'), '[order]');
  assert.equal(quoteIdent('a]b'), '[a]]b]');
});

test('sqlserver CREATE TABLE for the cases table', () => {
  assert.deepEqual(createTableSql(casesTable), [
    `CREATE TABLE [p_cases] (
  [case_id] UNIQUEIDENTIFIER NOT NULL,
  [case_key] NVARCHAR(10) NOT NULL,
  [case_label] NVARCHAR(MAX) NULL,
  [verified] BIT NOT NULL,
  [revision] INT NOT NULL,
  [modified_time] DATETIME2(3) NULL,
  PRIMARY KEY ([case_id])
)`,
  ]);
});

test('sqlserver CREATE TABLE maps every column type and adds the foreign key on request', () => {
  assert.deepEqual(createTableSql(orderTable, { foreignKeys: true, casesTable: 'p_cases' }), [
    `CREATE TABLE [p_order] (
  [case_id] UNIQUEIDENTIFIER NOT NULL,
  [occ] SMALLINT NOT NULL,
  [order] SMALLINT NULL,
  [i5] INT NULL,
  [i9] INT NULL,
  [i10] BIGINT NULL,
  [i18] BIGINT NULL,
  [i19] DECIMAL(19,0) NULL,
  [amount] DECIMAL(8,2) NULL,
  [name] NVARCHAR(30) NULL,
  [essay] NVARCHAR(MAX) NULL,
  [select] BIT NULL,
  [odd "name"\`]]] NVARCHAR(2) NULL,
  [when] DATETIME2(3) NULL,
  PRIMARY KEY ([case_id], [occ]),
  FOREIGN KEY ([case_id]) REFERENCES [p_cases] ([case_id]) ON DELETE CASCADE
)`,
  ]);
});

test('sqlserver has no CREATE TABLE IF NOT EXISTS: one guarded batch creates table and index', () => {
  assert.deepEqual(createTableSql(notesTable), [
    `CREATE TABLE [p_notes] (
  [case_id] UNIQUEIDENTIFIER NOT NULL,
  [content] NVARCHAR(MAX) NOT NULL
)`,
    'CREATE INDEX [p_notes_case_id_idx] ON [p_notes] ([case_id])',
  ]);
  assert.deepEqual(createTableSql(notesTable, { ifNotExists: true }), [
    `IF OBJECT_ID(N'[p_notes]', N'U') IS NULL
BEGIN
CREATE TABLE [p_notes] (
  [case_id] UNIQUEIDENTIFIER NOT NULL,
  [content] NVARCHAR(MAX) NOT NULL
);
CREATE INDEX [p_notes_case_id_idx] ON [p_notes] ([case_id]);
END`,
  ]);
  assert.equal(dropTableSql('p_notes'), 'DROP TABLE IF EXISTS [p_notes]');
});

test('sqlserver bulk-load column definitions match the DDL types', () => {
  assert.deepEqual(bulkColumns(orderTable), [
    { name: 'case_id', nullable: false, type: 'UniqueIdentifier' },
    { name: 'occ', nullable: false, type: 'SmallInt' },
    { name: 'order', nullable: true, type: 'SmallInt' },
    { name: 'i5', nullable: true, type: 'Int' },
    { name: 'i9', nullable: true, type: 'Int' },
    { name: 'i10', nullable: true, type: 'BigInt' },
    { name: 'i18', nullable: true, type: 'BigInt' },
    { name: 'i19', nullable: true, type: 'Decimal', precision: 19, scale: 0 },
    { name: 'amount', nullable: true, type: 'Decimal', precision: 8, scale: 2 },
    { name: 'name', nullable: true, type: 'NVarChar', length: 30 },
    { name: 'essay', nullable: true, type: 'NVarChar', length: Infinity },
    { name: 'select', nullable: true, type: 'Bit' },
    { name: 'odd "name"`]', nullable: true, type: 'NVarChar', length: 2 },
    { name: 'when', nullable: true, type: 'DateTime2', scale: 3 },
  ]);
});

test('sqlserver bulk-load values of the tricky row: strings raw (TDS needs no escaping), typed values', () => {
  assert.deepEqual(bulkRowEncoder(orderTable)(trickyRow), [
    '6f9619ff-8b86-d011-b42d-00c04fc964ff',
    1,
    -12,
    12345,
    123456789,
    '9007199254740991',
    '900719925474099312',
    null,
    '12.50',
    'tab\tnew\nline\rcr\\back é😀',
    '',
    true,
    '\\N',
    new Date(Date.UTC(2024, 2, 1, 10, 0, 0, 123)),
  ]);
});

test('sqlserver typed parameters carry the tedious type of their column', () => {
  assert.deepEqual(paramValue({ kind: 'varchar', length: 16 }, 'done'), { type: 'NVarChar', length: 16, value: 'done' });
  assert.deepEqual(paramValue({ kind: 'boolean' }, 0), { type: 'Bit', value: false });
  assert.deepEqual(paramValue({ kind: 'integer', digits: 9 }, null), { type: 'Int', value: null });
});
