/**
 * Dictionary → export plan (docs/export.md): which files an export writes and, for each, its
 * columns with export names, labels, types and value sets. It starts from the breakout plan
 * (src/breakout/plan.ts) planned with SQLite's identifier limit, so the tables, their order, the
 * columns and their order are those of a SQLite breakout of the same dictionary, and the rows the
 * breakout flattener makes fill them as they are. Pure.
 */
import type { BreakoutPlan, TableKind } from '../breakout/plan-model.js';
import { isLabelTable } from '../breakout/plan-model.js';
import { planBreakout } from '../breakout/plan.js';
import { itemColumns } from '../breakout/item-columns.js';
import type { DictItem, Dictionary } from '../cspro/dictionary/model.js';
import { labelOf } from '../cspro/dictionary/model.js';
import { AppError } from '../shared/errors.js';
import { ExportNames } from './export-names.js';
import type { ExportColumn, ExportTable } from './model.js';
import { withLabelColumns } from './label-columns.js';
import { exportValueSet } from './value-sets.js';

/**
 * Identifier limit of the underlying breakout plan: SQLite's, so file names and `source` column
 * names are those of a SQLite breakout (export names are then made from them).
 */
const EXPORT_PLAN_IDENTIFIER_LIMIT = 128;

/**
 * Tables of cases: not the jobs table (bookkeeping of a target) nor the value set and item tables,
 * whose content the codebook carries (docs/export.md#the-codebook).
 */
function holdsCases(t: { kind: TableKind }): boolean {
  return t.kind !== 'jobs' && !isLabelTable(t);
}

/** One exported table: the breakout table whose rows fill it, and its export description. */
export interface ExportTablePlan {
  /** Index in `breakout.tables` (and in the flattener's rows). */
  planIndex: number;
  kind: TableKind;
  /** Record name for record tables. */
  record?: string;
  table: ExportTable;
  /**
   * Id items copied into this table right after `case_id` (docs/export.md#id-items): those of
   * levels 1 … `idLevels`, each from its level's row. 0 or absent: none.
   */
  idLevels?: number;
}

/**
 * Where the id items of one level are in the flattener's rows: the breakout table holding them
 * (the cases table for level 1, `level_N` for level N) and their first column and count there.
 */
export interface IdSource {
  level: number;
  planIndex: number;
  offset: number;
  count: number;
}

export interface ExportPlan {
  dictionary: string;
  breakout: BreakoutPlan;
  /** The tables to write, in breakout order; the cases table first. */
  tables: ExportTablePlan[];
  /** True when the cases table ends with a `deleted` column (deleted cases are exported too). */
  deletedColumn: boolean;
  /** Id items of each level (index 0 = level 1), where tables with `idLevels` take them from. */
  idSources: IdSource[];
}

export interface ExportPlanOptions {
  /**
   * Record tables to export, by record name or table name without the prefix (`PERSON`,
   * `notes`, `level_2`), any case; absent or empty: every table. The cases table always comes.
   */
  records?: readonly string[];
  /** Adds the `deleted` column to the cases table. */
  includeDeleted?: boolean;
  /**
   * False: with `records`, only the tables named (`cases` names the cases table), for a download
   * of one file. Default true: the cases table always comes, so the files join on `case_id`.
   */
  alwaysCases?: boolean;
  /**
   * Default true: every record table (and level-N table) gets the id items of its level and of
   * the levels above it right after `case_id`, as CSPro's Export Data does. False: `--no-ids`.
   */
  ids?: boolean;
  /**
   * `--labels both` in a format without value labels of its own: a label column after each
   * coded column (label-columns.ts, docs/export.md#codes-and-labels-side-by-side).
   */
  labelColumns?: boolean;
}

/** Descriptions of the columns a breakout table has besides its items. */
const BOOKKEEPING: Record<string, string> = {
  case_id: 'Case id (GUID)',
  case_key: 'Case key (the level-1 id items as text)',
  case_label: 'Case label',
  verified: 'Case verified (1 = yes)',
  revision: 'Store revision of the last change to the case',
  modified_time: 'Time the case was last modified (UTC)',
  breakout_time: 'Time of this export (UTC)',
  occ: 'Occurrence (1-based)',
  note_number: 'Note number in the case (1-based)',
  field_name: 'Item or field the note is on',
  level_key: 'Level key of the note',
  record_occurrence: 'Record occurrence of the note',
  item_occurrence: 'Item occurrence of the note',
  subitem_occurrence: 'Subitem occurrence of the note',
  content: 'Note text',
  operator_id: 'Operator id of the note',
  deleted: 'Case deleted (1 = yes)',
};
const NOTE_TIME = 'Time the note was last modified (UTC)';

interface ColumnInfo {
  item?: DictItem;
  occurrence?: number;
  label: string;
}

/**
 * Plans the export of `dict` under the table prefix `label`. Throws EXPORT_RECORD_UNKNOWN for a
 * name in `records` that is no record or table of the dictionary, and the breakout planner's
 * errors (LABEL_INVALID, NAME_COLLISION) as they are.
 */
export function planExport(dict: Dictionary, label: string, opts: ExportPlanOptions = {}): ExportPlan {
  const breakout = planBreakout(dict, label, { maxIdentifierLength: EXPORT_PLAN_IDENTIFIER_LIMIT });
  const includeDeleted = opts.includeDeleted === true;
  const chosen = chooseTables(dict, breakout, opts.records ?? [], opts.alwaysCases ?? true);
  const idSources = planIdSources(dict, breakout);
  const withIds = opts.ids ?? true;
  const tables: ExportTablePlan[] = [];
  breakout.tables.forEach((t, planIndex) => {
    if (!holdsCases(t) || !chosen.has(planIndex)) return;
    const infos = columnInfos(dict, t.kind, t.level, t.record);
    const plannedColumns = t.columns.map((c) => ({ name: c.name, type: c.type }));
    const idLevels = !withIds ? 0 : t.kind === 'record' ? t.level! : t.kind === 'level' ? t.level! - 1 : 0;
    let idCount = 0;
    if (idLevels > 0) {
      // Right after case_id (column 0): the same columns, names and labels as in the tables
      // they come from (docs/export.md#id-items).
      const idColumns = idSources
        .slice(0, idLevels)
        .flatMap((src) => breakout.tables[src.planIndex]!.columns.slice(src.offset, src.offset + src.count));
      const idInfos = idSources.slice(0, idLevels).flatMap((src) => items(dict.levels[src.level - 1]!.ids));
      plannedColumns.splice(1, 0, ...idColumns.map((c) => ({ name: c.name, type: c.type })));
      idCount = idColumns.length;
      infos.splice(1, 0, ...idInfos);
    }
    if (t.kind === 'main' && includeDeleted) {
      plannedColumns.push({ name: 'deleted', type: { kind: 'boolean' } });
      infos.push({ label: BOOKKEEPING.deleted! });
    }
    if (infos.length !== plannedColumns.length) {
      throw new AppError('INTERNAL', `export plan of ${t.name}: ${infos.length} column descriptions for ${plannedColumns.length} columns`);
    }
    // The table's own columns claim their names first, so that an id item named like a key
    // (`occ`) never renames the key: the id column gets the `_2` (docs/export.md#names).
    const names = new ExportNames();
    const isId = (j: number) => j >= 1 && j <= idCount;
    const claimed = new Map<number, string>();
    plannedColumns.forEach((c, j) => {
      if (!isId(j)) claimed.set(j, names.claim(c.name));
    });
    plannedColumns.forEach((c, j) => {
      if (isId(j)) claimed.set(j, names.claim(c.name));
    });
    const coded: ExportColumn[] = plannedColumns.map((c, j) => {
      const info = infos[j]!;
      const col: ExportColumn = { name: claimed.get(j)!, source: c.name, label: info.label, type: c.type };
      if (info.item) {
        col.item = info.item.name;
        const vs = exportValueSet(info.item);
        if (vs) col.valueSet = vs;
      }
      if (info.occurrence !== undefined) col.occurrence = info.occurrence;
      return col;
    });
    const columns = opts.labelColumns === true ? withLabelColumns(coded, names) : coded;
    const entry: ExportTablePlan = {
      planIndex,
      kind: t.kind,
      table: { name: t.name, label: tableLabel(dict, t.kind, t.level, t.record), columns },
    };
    if (t.record !== undefined) entry.record = t.record;
    if (idLevels > 0) entry.idLevels = idLevels;
    tables.push(entry);
  });
  return { dictionary: dict.name, breakout, tables, deletedColumn: includeDeleted, idSources };
}

/**
 * Where each level's id items are in the breakout rows: after `case_id, case_key, case_label` in
 * the cases table, after `case_id, level_2_occ … occ` in `level_N` (plan.ts).
 */
function planIdSources(dict: Dictionary, breakout: BreakoutPlan): IdSource[] {
  return dict.levels.map((level, i) => {
    const n = i + 1;
    const count = items(level.ids).length;
    const planIndex = breakout.tables.findIndex((t) => (n === 1 ? t.kind === 'main' : t.kind === 'level' && t.level === n));
    return { level: n, planIndex, offset: n === 1 ? 3 : n, count };
  });
}

/** Plan indexes of the tables to export: the cases table and the chosen ones (all by default). */
function chooseTables(dict: Dictionary, breakout: BreakoutPlan, records: readonly string[], alwaysCases: boolean): Set<number> {
  const all = new Set(breakout.tables.map((_, i) => i));
  if (records.length === 0) return all;
  const byName = new Map<string, number>();
  const prefix = `${breakout.prefix}_`;
  breakout.tables.forEach((t, i) => {
    if (!holdsCases(t)) return;
    if (t.record !== undefined) byName.set(t.record.toLowerCase(), i);
    byName.set(t.name.startsWith(prefix) ? t.name.slice(prefix.length) : t.name, i);
  });
  const chosen = new Set<number>(alwaysCases ? [breakout.tables.findIndex((t) => t.kind === 'main')] : []);
  for (const r of records) {
    const i = byName.get(r.toLowerCase());
    if (i === undefined) {
      const known = dict.levels.flatMap((l) => l.records.map((rec) => rec.name));
      throw new AppError(
        'EXPORT_RECORD_UNKNOWN',
        `Dictionary ${dict.name} has no record or table "${r}"; its records: ${known.join(', ')} (also: notes${dict.levels.length > 1 ? ', level_2 …' : ''})`,
        { dictionary: dict.name, record: r },
      );
    }
    chosen.add(i);
  }
  return chosen;
}

function tableLabel(dict: Dictionary, kind: TableKind, level?: number, record?: string): string {
  if (kind === 'main') return `Cases of ${labelOf(dict) || dict.name}`;
  if (kind === 'notes') return `Notes of ${labelOf(dict) || dict.name}`;
  if (kind === 'level') return labelOf(dict.levels[level! - 1]!) || `Level ${level}`;
  for (const l of dict.levels) for (const r of l.records) if (r.name === record) return labelOf(r) || r.name;
  return record ?? '';
}

/** Labels (and items) of a breakout table's columns, in the planner's order (plan.ts). */
function columnInfos(dict: Dictionary, kind: TableKind, level?: number, record?: string): ColumnInfo[] {
  const fixed = (name: string): ColumnInfo => ({ label: BOOKKEEPING[name] ?? name });
  const levelOccs = (upTo: number): ColumnInfo[] => {
    const out: ColumnInfo[] = [];
    for (let a = 2; a <= upTo; a++) out.push({ label: `Occurrence of the level ${a} (${labelOf(dict.levels[a - 1]!)}) node` });
    return out;
  };
  switch (kind) {
    case 'main':
      return [
        ...['case_id', 'case_key', 'case_label'].map(fixed),
        ...items(dict.levels[0]!.ids),
        ...['verified', 'revision', 'modified_time', 'breakout_time'].map(fixed),
      ];
    case 'level':
      return [
        fixed('case_id'),
        ...levelOccs(level! - 1),
        { label: `Occurrence of this level ${level} node (1-based)` },
        ...items(dict.levels[level! - 1]!.ids),
      ];
    case 'record': {
      const rec = dict.levels[level! - 1]!.records.find((r) => r.name === record)!;
      return [fixed('case_id'), ...levelOccs(level!), { label: 'Occurrence of the record (1-based)' }, ...items(rec.items)];
    }
    case 'notes':
      return [
        ...[
          'case_id',
          'note_number',
          'field_name',
          'level_key',
          'record_occurrence',
          'item_occurrence',
          'subitem_occurrence',
          'content',
          'operator_id',
        ].map(fixed),
        { label: NOTE_TIME },
      ];
    default:
      return [];
  }
}

/** One entry per item column (item-columns.ts order): the item, its occurrence, its label. */
function items(list: readonly DictItem[]): ColumnInfo[] {
  const out: ColumnInfo[] = [];
  for (const ic of itemColumns(list)) {
    const base = labelOf(ic.item) || ic.item.name;
    if (ic.occurrences === 1) {
      out.push({ item: ic.item, label: base });
      continue;
    }
    for (let k = 1; k <= ic.occurrences; k++) {
      const occ = ic.item.occurrenceLabels.find((o) => o.occurrence === k);
      const occLabel = occ ? labelOf(occ) : '';
      out.push({ item: ic.item, occurrence: k, label: `${base} (${occLabel || k})` });
    }
  }
  return out;
}
