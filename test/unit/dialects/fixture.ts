/** A hand-built plan with every column type, reserved words and odd names, for exact DDL tests. */
import type { TablePlan } from '../../../src/breakout/plan-model.js';

export const casesTable: TablePlan = {
  name: 'p_cases',
  kind: 'main',
  columns: [
    { name: 'case_id', type: { kind: 'guid' }, nullable: false },
    { name: 'case_key', type: { kind: 'varchar', length: 10 }, nullable: false },
    { name: 'case_label', type: { kind: 'text' }, nullable: true },
    { name: 'verified', type: { kind: 'boolean' }, nullable: false },
    { name: 'revision', type: { kind: 'integer', digits: 9 }, nullable: false },
    { name: 'modified_time', type: { kind: 'timestamp' }, nullable: true },
  ],
  primaryKey: ['case_id'],
};

/** Record `ORDER`: a reserved word as table and column names, integer widths at every boundary. */
export const orderTable: TablePlan = {
  name: 'p_order',
  kind: 'record',
  record: 'ORDER',
  level: 1,
  columns: [
    { name: 'case_id', type: { kind: 'guid' }, nullable: false },
    { name: 'occ', type: { kind: 'integer', digits: 3 }, nullable: false },
    { name: 'order', type: { kind: 'integer', digits: 4 }, nullable: true },
    { name: 'i5', type: { kind: 'integer', digits: 5 }, nullable: true },
    { name: 'i9', type: { kind: 'integer', digits: 9 }, nullable: true },
    { name: 'i10', type: { kind: 'integer', digits: 10 }, nullable: true },
    { name: 'i18', type: { kind: 'integer', digits: 18 }, nullable: true },
    { name: 'i19', type: { kind: 'integer', digits: 19 }, nullable: true },
    { name: 'amount', type: { kind: 'decimal', precision: 8, scale: 2 }, nullable: true },
    { name: 'name', type: { kind: 'varchar', length: 30 }, nullable: true },
    { name: 'essay', type: { kind: 'varchar', length: 5000 }, nullable: true },
    { name: 'select', type: { kind: 'boolean' }, nullable: true },
    { name: 'odd "name"`]', type: { kind: 'varchar', length: 2 }, nullable: true },
    { name: 'when', type: { kind: 'timestamp' }, nullable: true },
  ],
  primaryKey: ['case_id', 'occ'],
};

/** No primary key: gets a case_id index. */
export const notesTable: TablePlan = {
  name: 'p_notes',
  kind: 'notes',
  columns: [
    { name: 'case_id', type: { kind: 'guid' }, nullable: false },
    { name: 'content', type: { kind: 'text' }, nullable: false },
  ],
  primaryKey: [],
};

/** A row of orderTable with every escaping hazard; encoders must reproduce it byte for byte. */
export const trickyRow = [
  '6f9619ff-8b86-d011-b42d-00c04fc964ff',
  1,
  -12,
  12345,
  '123456789',
  9_007_199_254_740_991,
  '900719925474099312',
  null,
  12.5,
  'tab\tnew\nline\rcr\\back é😀',
  '',
  true,
  '\\N',
  '2024-03-01T10:00:00.123Z',
];
