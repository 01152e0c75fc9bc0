/** MySQL/MariaDB DDL (row-size fallback included) and LOAD DATA encoding, by exact equality. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TablePlan } from '../../../src/breakout/plan-model.js';
import { createTableSql, dropTableSql, quoteIdent } from '../../../src/breakout/dialects/mysql/ddl.js';
import { escapeLoadDataText, loadDataLineEncoder, loadDataStatement, paramValue } from '../../../src/breakout/dialects/mysql/encode.js';
import { varcharsAsText } from '../../../src/breakout/dialects/mysql/row-size.js';
import { casesTable, notesTable, orderTable, trickyRow } from './fixture.js';

const OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci';

test('mysql quoteIdent doubles back-quotes', () => {
  assert.equal(quoteIdent('order'), '`order`');
  assert.equal(quoteIdent('a`b'), '`a``b`');
});

test('mysql CREATE TABLE for the cases table', () => {
  assert.deepEqual(createTableSql(casesTable), [
    `CREATE TABLE \`p_cases\` (
  \`case_id\` CHAR(36) CHARACTER SET ascii NOT NULL,
  \`case_key\` VARCHAR(10) NOT NULL,
  \`case_label\` MEDIUMTEXT,
  \`verified\` BOOLEAN NOT NULL,
  \`revision\` INT NOT NULL,
  \`modified_time\` DATETIME(3),
  PRIMARY KEY (\`case_id\`)
) ${OPTIONS}`,
  ]);
});

test('mysql CREATE TABLE maps every column type and adds the foreign key on request', () => {
  assert.deepEqual(createTableSql(orderTable, { foreignKeys: true, casesTable: 'p_cases' }), [
    `CREATE TABLE \`p_order\` (
  \`case_id\` CHAR(36) CHARACTER SET ascii NOT NULL,
  \`occ\` SMALLINT NOT NULL,
  \`order\` SMALLINT,
  \`i5\` INT,
  \`i9\` INT,
  \`i10\` BIGINT,
  \`i18\` BIGINT,
  \`i19\` DECIMAL(19,0),
  \`amount\` DECIMAL(8,2),
  \`name\` VARCHAR(30),
  \`essay\` VARCHAR(5000),
  \`select\` BOOLEAN,
  \`odd "name"\`\`]\` VARCHAR(2),
  \`when\` DATETIME(3),
  PRIMARY KEY (\`case_id\`, \`occ\`),
  FOREIGN KEY (\`case_id\`) REFERENCES \`p_cases\` (\`case_id\`) ON DELETE CASCADE
) ${OPTIONS}`,
  ]);
});

test('mysql CREATE TABLE IF NOT EXISTS with the case_id index inline', () => {
  assert.deepEqual(createTableSql(notesTable, { ifNotExists: true }), [
    `CREATE TABLE IF NOT EXISTS \`p_notes\` (
  \`case_id\` CHAR(36) CHARACTER SET ascii NOT NULL,
  \`content\` MEDIUMTEXT NOT NULL,
  KEY \`p_notes_case_id_idx\` (\`case_id\`)
) ${OPTIONS}`,
  ]);
  assert.equal(dropTableSql('p_notes'), 'DROP TABLE IF EXISTS `p_notes`');
});

function wide(count: number, length: number, extra: TablePlan['columns'] = []): TablePlan {
  return {
    name: 'w',
    kind: 'record',
    columns: [
      { name: 'case_id', type: { kind: 'guid' }, nullable: false },
      { name: 'occ', type: { kind: 'integer', digits: 3 }, nullable: false },
      ...extra,
      ...Array.from({ length: count }, (_, i) => ({ name: `c${i}`, type: { kind: 'varchar' as const, length }, nullable: true })),
    ],
    primaryKey: ['case_id', 'occ'],
  };
}

test('mysql row size: a narrow record keeps every VARCHAR', () => {
  assert.deepEqual(varcharsAsText(wide(20, 50)), Array(22).fill(false));
});

test('mysql row size: 100 VARCHAR(1000) exceed 65,535 bytes, the widest become TEXT until they fit', () => {
  const asText = varcharsAsText(wide(100, 1000));
  // 13 null bytes + 38 key bytes + k x 4,002 (VARCHAR) + (100 - k) x 11 (TEXT) <= 65,535  =>  k <= 16.
  assert.equal(asText.filter(Boolean).length, 84);
  assert.equal(asText[0], false); // the key columns never change
  assert.equal(asText[1], false);
  const ddl = createTableSql(wide(100, 1000))[0]!;
  assert.match(ddl, /`c0` TEXT,/);
  assert.match(ddl, /`c99` VARCHAR\(1000\),/);
});

test('mysql row size: many short VARCHARs exceed InnoDB 8,126-byte records and turn into TEXT', () => {
  // 18 header + 19 null bytes + 38 key bytes + (150 - k) x 201 + k x 42 < 8,126  =>  k >= 139.
  assert.equal(varcharsAsText(wide(150, 50)).filter(Boolean).length, 139);
  // Columns of 10 characters (41 bytes) or less would not shrink: they stay VARCHAR.
  assert.deepEqual(varcharsAsText(wide(400, 10)), Array(402).fill(false));
  // VARCHARs over 255 bytes are already off-page candidates: only the server limit moves them.
  assert.deepEqual(varcharsAsText(wide(180, 64)), Array(182).fill(false));
  // A huge VARCHAR beyond TEXT's 65,535 bytes becomes MEDIUMTEXT.
  const huge = wide(1, 20_000);
  assert.match(createTableSql(huge)[0]!, /`c0` MEDIUMTEXT/);
});

test('mysql LOAD DATA statement: clauses that match the encoder, independent of sql_mode', () => {
  assert.equal(
    loadDataStatement(notesTable),
    "LOAD DATA LOCAL INFILE 'sds-rows.tsv' INTO TABLE `p_notes` CHARACTER SET utf8mb4 FIELDS TERMINATED BY X'09' ESCAPED BY X'5C' LINES TERMINATED BY X'0A' (`case_id`, `content`)",
  );
});

test('mysql LOAD DATA text escapes backslash, tab, newline, CR and NUL', () => {
  assert.equal(escapeLoadDataText('a\\b\tc\nd\re\0f'), 'a\\\\b\\tc\\nd\\re\\0f');
  assert.equal(escapeLoadDataText('NULL'), 'NULL'); // a string: NULL is only a keyword with ENCLOSED BY
});

test('mysql LOAD DATA line of the tricky row, byte for byte', () => {
  const expected =
    '6f9619ff-8b86-d011-b42d-00c04fc964ff\t1\t-12\t12345\t123456789\t9007199254740991\t900719925474099312\t\\N\t12.50\t' +
    'tab\\tnew\\nline\\rcr\\\\back é😀\t\t1\t\\\\N\t2024-03-01 10:00:00.123\n';
  assert.equal(loadDataLineEncoder(orderTable)(trickyRow), expected);
});

test('mysql timestamps are written as UTC wall time, whatever offset the input has', () => {
  const enc = loadDataLineEncoder({
    name: 't',
    kind: 'jobs',
    columns: [{ name: 'x', type: { kind: 'timestamp' }, nullable: true }],
    primaryKey: [],
  });
  assert.equal(enc(['2024-03-01T12:00:00+02:00']), '2024-03-01 10:00:00.000\n');
  assert.equal(enc(['1999-12-31T23:59:59Z']), '1999-12-31 23:59:59\n');
  assert.equal(paramValue({ kind: 'timestamp' }, '2024-03-01T10:00:00.000Z'), '2024-03-01 10:00:00.000');
  assert.equal(paramValue({ kind: 'boolean' }, false), 0);
  assert.equal(paramValue({ kind: 'decimal', precision: 5, scale: 2 }, 3), '3.00');
});
