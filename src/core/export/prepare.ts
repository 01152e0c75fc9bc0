/**
 * What every export starts with (docs/export.md): the format, the dictionary, the export plan,
 * the case selection and a snapshot of the store, so that a format's two passes (first the
 * table statistics, then the rows) read exactly the same cases.
 */
import { AppError } from '../../shared/errors.js';
import type { DictionaryRecord } from '../../store/dictionaries-repo.js';
import { EXPORT_FORMATS } from '../../export/formats/index.js';
import { planExport, type ExportPlan } from '../../export/export-plan.js';
import type { AnyExportFormat, ExportCell, LabelsMode, TableStats, WriterOptions } from '../../export/model.js';
import { requireDictionary } from '../dictionaries/index.js';
import { limitsOf, openStore, type Store } from '../home/index.js';
import { exportPass, type CaseSelection, type PassResult, type RowSink } from './export-pass.js';

/** What to export (CLI options and HTTP query alike). */
export interface ExportInput {
  dictionary: string;
  format: string;
  /** Record tables by record name or table name without the prefix; absent: every table. */
  records?: string[];
  /** CSV and Parquet: codes (default), their value labels, or both side by side. */
  labels?: LabelsMode;
  /** Only the cases changed after this store revision. */
  sinceRevision?: number;
  /** Deleted cases too, with a `deleted` column in the cases table. */
  includeDeleted?: boolean;
  /** CSV: a UTF-8 byte order mark first. */
  bom?: boolean;
  /** Default true: id items in every record table (docs/export.md#id-items); false: `--no-ids`. */
  ids?: boolean;
  /** GeoJSON: the latitude and longitude items (absent: those set for the dictionary; docs/export.md#geojson). */
  latitude?: string;
  longitude?: string;
  /** GeoJSON: items each point carries as properties. */
  items?: string[];
}

/** Where an export is: `count` while a format that needs statistics reads the cases once, then `write`. */
export interface ExportProgress {
  phase: 'count' | 'write';
  done: number;
  total: number;
}

/** The export formats by name (docs/export.md#formats). */
export function exportFormatNames(): string[] {
  // GeoJSON writes one file of points, not one per table: geojson-export.ts, not a table format.
  return [...Object.keys(EXPORT_FORMATS), 'geojson'];
}

/** The format of that name, loaded, or EXPORT_FORMAT_UNKNOWN. */
async function exportFormat(name: string): Promise<AnyExportFormat> {
  const load = Object.hasOwn(EXPORT_FORMATS, name) ? EXPORT_FORMATS[name as AnyExportFormat['name']] : undefined;
  if (!load) {
    throw new AppError('EXPORT_FORMAT_UNKNOWN', `export format "${name}" is not one of ${exportFormatNames().join(', ')}`, {
      format: name,
    });
  }
  return load();
}

export interface PreparedExport {
  format: AnyExportFormat;
  dict: DictionaryRecord;
  plan: ExportPlan;
  options: WriterOptions;
  input: ExportInput;
}

/** Checks the input and plans the tables; reads no case. */
export async function prepareExport(store: Store, input: ExportInput, alwaysCases = true): Promise<PreparedExport> {
  const format = await exportFormat(input.format);
  if (input.latitude !== undefined || input.longitude !== undefined || (input.items ?? []).length > 0) {
    throw new AppError('USAGE', `latitude, longitude and property items are for a GeoJSON export, not ${format.name}`, { field: 'format' });
  }
  if (input.sinceRevision !== undefined && (!Number.isSafeInteger(input.sinceRevision) || input.sinceRevision < 0)) {
    throw new AppError('USAGE', `the revision to export changes after must be a whole number ≥ 0, not ${input.sinceRevision}`, {
      field: 'since_revision',
    });
  }
  const dict = await requireDictionary(store, input.dictionary);
  const plan = planExport(dict.model, dict.label, {
    records: input.records,
    includeDeleted: input.includeDeleted,
    alwaysCases,
    ids: input.ids !== false,
    labelColumns: input.labels === 'both' && format.labelColumns === true,
  });
  const limits = limitsOf(store);
  const options: WriterOptions = {
    labels: input.labels ?? 'codes',
    rowGroupRows: limits.exportRowGroupRows,
    sheetRows: limits.exportXlsxRows,
  };
  if (input.bom === true) options.bom = true;
  return { format, dict, plan, options, input };
}

/** A read snapshot of the store and the selection of cases in it. */
export interface ExportSnapshot {
  store: Store;
  selection: CaseSelection;
  /** Cases the selection holds (for progress). */
  total: number;
  close(): Promise<void>;
}

/**
 * Opens a second, read-only connection to the store and starts a read transaction on it: the
 * export sees the store as it was at this moment, whatever is synced or imported meanwhile
 * (WAL mode keeps that snapshot; the WAL file cannot be checkpointed past it until `close`).
 */
export async function openSnapshot(store: Store, prepared: Pick<PreparedExport, 'dict' | 'input'>): Promise<ExportSnapshot> {
  const snap = await openStore(store.home, { readonly: true });
  try {
    const reading = await snap.beginReadSnapshot();
    const id = prepared.dict.id;
    const upTo = await snap.cases.maxRevision(id);
    // A guid above every stored one: the keyset starts after all cases of revision N.
    const after =
      prepared.input.sinceRevision === undefined ? { revision: 0, guid: '' } : { revision: prepared.input.sinceRevision, guid: '\uffff' };
    const activeOnly = prepared.input.includeDeleted !== true;
    const selection: CaseSelection = { dictionaryId: id, after, upTo, activeOnly, pageSize: limitsOf(store).exportPageCases };
    const total = await snap.cases.countChanged(id, after, upTo, activeOnly);
    return {
      store: snap,
      selection,
      total,
      async close() {
        await reading.end();
        await snap.close();
      },
    };
  } catch (err) {
    await snap.close();
    throw err;
  }
}

/** The first pass of a format that needs it: rows and longest UTF-8 string per column of each table. */
export async function gatherStats(
  prepared: PreparedExport,
  snapshot: ExportSnapshot,
  exportTime: string,
  opts: { onProgress?: (p: ExportProgress) => void; signal?: AbortSignal },
): Promise<TableStats[]> {
  const stats = prepared.plan.tables.map((t) => ({
    rows: 0,
    maxBytes: t.table.columns.map(() => 0),
    maxAbs: t.table.columns.map(() => 0),
  })) satisfies TableStats[];
  const onRow: RowSink = (t, row) => {
    const s = stats[t]!;
    s.rows += 1;
    const max = s.maxBytes;
    const abs = s.maxAbs;
    for (let i = 0; i < row.length; i++) {
      const v = row[i];
      if (typeof v === 'string') {
        const n = Buffer.byteLength(v, 'utf8');
        if (n > max[i]!) max[i] = n;
      } else if (typeof v === 'number') {
        const a = Number.isSafeInteger(v) ? Math.abs(v) : Number.POSITIVE_INFINITY;
        if (a > abs[i]!) abs[i] = a;
      }
    }
  };
  opts.onProgress?.({ phase: 'count', done: 0, total: snapshot.total });
  await exportPass(snapshot.store, prepared.dict.model, prepared.plan, snapshot.selection, exportTime, onRow, {
    signal: opts.signal,
    onCases: (done) => opts.onProgress?.({ phase: 'count', done, total: snapshot.total }),
  });
  return stats;
}

/** The writing pass: every row to its table's writer; returns the rows per table. */
export async function writeRows(
  prepared: PreparedExport,
  snapshot: ExportSnapshot,
  exportTime: string,
  write: (tableIndex: number, row: ExportCell[]) => Promise<void>,
  opts: { onProgress?: (p: ExportProgress) => void; signal?: AbortSignal },
): Promise<{ rows: number[]; pass: PassResult }> {
  const rows = prepared.plan.tables.map(() => 0);
  opts.onProgress?.({ phase: 'write', done: 0, total: snapshot.total });
  const pass = await exportPass(
    snapshot.store,
    prepared.dict.model,
    prepared.plan,
    snapshot.selection,
    exportTime,
    (t, row) => {
      rows[t]! += 1;
      return write(t, row);
    },
    { signal: opts.signal, onCases: (done) => opts.onProgress?.({ phase: 'write', done, total: snapshot.total }) },
  );
  return { rows, pass };
}
