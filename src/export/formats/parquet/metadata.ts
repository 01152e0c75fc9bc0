/**
 * The file's key-value metadata (docs/export.md#parquet): Parquet has no variable or value labels,
 * so the table and column labels, value sets and special codes travel as JSON under `sds.*` keys
 * that any reader can list (`parquet_kv_metadata` in DuckDB, `pyarrow.parquet.read_metadata`).
 */
import type { ExportTable, LabelsMode } from '../../model.js';
import { holdsLabels, type ParquetEncoding } from './schema.js';

/** The keys, fixed: tools that read sds exports look them up by name. */
const KV_KEYS = {
  version: 'sds.version',
  table: 'sds.table',
  columns: 'sds.columns',
} as const;

/** Bumped when the JSON under the keys changes shape. */
const METADATA_VERSION = '1';

/** The key-value pairs of one table's file. */
export function keyValueMetadata(
  table: ExportTable,
  encodings: readonly ParquetEncoding[],
  labels: LabelsMode,
): { key: string; value: string }[] {
  const columns = table.columns.map((c, i) => ({
    name: c.name,
    source: c.source,
    ...(c.item !== undefined ? { item: c.item } : {}),
    ...(c.occurrence !== undefined ? { occurrence: c.occurrence } : {}),
    label: c.label,
    type: c.type,
    // `labels` when the column holds value labels instead of codes (`--labels labels`, and the
    // label columns of `--labels both`, which name their code column in `labelsOf`).
    values: holdsLabels(encodings[i]!) ? 'labels' : 'codes',
    ...(c.labelsOf !== undefined ? { labelsOf: c.labelsOf } : {}),
    ...(c.valueSet ? { valueSet: c.valueSet } : {}),
  }));
  return [
    { key: KV_KEYS.version, value: METADATA_VERSION },
    { key: KV_KEYS.table, value: JSON.stringify({ name: table.name, label: table.label, labels }) },
    { key: KV_KEYS.columns, value: JSON.stringify(columns) },
  ];
}
