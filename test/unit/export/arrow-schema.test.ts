// The `ARROW:schema` of a Parquet export (docs/export.md#column-descriptions), decoded by Apache
// Arrow's JavaScript library: one field per column, its type matching the Parquet type, the
// column's label as `description`, and the columns of labels as dictionaries with ids of their own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tableFromIPC } from 'apache-arrow';
import { arrowSchemaEntry } from '../../../src/export/formats/parquet/arrow-schema.js';
import type { ParquetEncoding } from '../../../src/export/formats/parquet/schema.js';
import type { ExportColumn } from '../../../src/export/model.js';

test('ARROW:schema: the types of the Parquet columns, each label as description, labels as dictionaries', () => {
  const encodings: ParquetEncoding[] = [
    { kind: 'int32' },
    { kind: 'int64' },
    { kind: 'decimal', precision: 5, scale: 2 },
    { kind: 'string' },
    { kind: 'boolean' },
    { kind: 'timestamp' },
    { kind: 'label' },
    { kind: 'label-column' },
  ];
  const columns: ExportColumn[] = encodings.map((e, i) => ({
    name: `c${i}_${e.kind}`,
    source: `c${i}`,
    label: `Label ${i}, "quoted" é`,
    type: { kind: 'text' },
  }));
  const entry = arrowSchemaEntry({ name: 't', label: 'T', columns }, encodings);
  assert.equal(entry.key, 'ARROW:schema');
  const bytes = Buffer.from(entry.value, 'base64');
  // An IPC message: the continuation marker, then the length of the flatbuffer that follows.
  assert.equal(bytes.readUInt32LE(0), 0xffffffff);
  assert.equal(bytes.length, 8 + bytes.readInt32LE(4));
  const schema = tableFromIPC(bytes).schema;
  assert.deepEqual(
    schema.fields.map((f) => [f.name, String(f.type), f.nullable, f.metadata.get('description')]),
    [
      ['c0_int32', 'Int32', true, 'Label 0, "quoted" é'],
      ['c1_int64', 'Int64', true, 'Label 1, "quoted" é'],
      ['c2_decimal', 'Decimal[5e+2]', true, 'Label 2, "quoted" é'],
      ['c3_string', 'Utf8', true, 'Label 3, "quoted" é'],
      ['c4_boolean', 'Bool', true, 'Label 4, "quoted" é'],
      ['c5_timestamp', 'Timestamp<MILLISECOND, UTC>', true, 'Label 5, "quoted" é'],
      ['c6_label', 'Dictionary<Int32, Utf8>', true, 'Label 6, "quoted" é'],
      ['c7_label-column', 'Dictionary<Int32, Utf8>', true, 'Label 7, "quoted" é'],
    ],
  );
  const ids = schema.fields.filter((f) => String(f.type).startsWith('Dictionary')).map((f) => (f.type as { id: number }).id);
  assert.equal(new Set(ids).size, 2, 'each dictionary its own id');
});
