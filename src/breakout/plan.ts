/**
 * Dictionary → breakout plan (docs/breakout.md): the tables, columns, types and keys a dictionary
 * breaks out into, independent of the target database. Pure.
 *
 * Tables, in this order (`p` = lower-cased label):
 *
 * | table | key | columns |
 * |---|---|---|
 * | `p_cases` | `case_id` | `case_id`, `case_key`, `case_label`, level-1 id items, `verified`, `revision`, `modified_time`, `breakout_time` |
 * | `p_level_N` (N ≥ 2) | `case_id`, `level_2_occ` … `level_<N-1>_occ`, `occ` | those, then the level's id items |
 * | `p_<record>` level 1 | `case_id`, `occ` | those, then item columns |
 * | `p_<record>` level N ≥ 2 | `case_id`, `level_2_occ` … `level_N_occ`, `occ` | those, then item columns |
 * | `p_notes` | `case_id`, `note_number` | those, `field_name`, `level_key`, `record_occurrence`, `item_occurrence`, `subitem_occurrence`, `content`, `operator_id`, `modified_time` |
 * | `p_cspro_jobs` | `job_id` | `job_id`, `started_time`, `completed_time`, `cases_processed`, `status` |
 * | `p_value_sets`, `p_items` | see planLabelTables | the dictionary's value sets and item labels |
 *
 * `case_key` (the level-1 ids as fixed-width text, kept as the client sent it) and `case_label`
 * are unbounded text, so a key that does not match the dictionary widths never fails a load.
 *
 * Level path: a level-N node (N ≥ 2) is numbered by its 1-based position among its siblings
 * (the `level-N` array of its parent node). In `p_level_N` that number is `occ`; every row
 * below the node repeats it as `level_N_occ`, so `p_level_3 (case_id, level_2_occ, occ)` is
 * referenced by `p_<level-3 record> (case_id, level_2_occ, level_3_occ)`. Record `occ` is the
 * 1-based occurrence of the record inside its level node (inside the case for level 1).
 *
 * Item columns follow item-columns.ts (lower-case name, `name_k` per occurrence, subitems
 * beside their parent, integer/decimal/varchar, binary items as text descriptor JSON); all
 * nullable. `note_number` is the note's 1-based position in the case's notes list (a note has
 * no identity of its own); a note's `modified_time` is nullable (an unreadable time is NULL).
 * Names longer than the limit are shortened (shorten-identifier.ts); two equal final names are
 * a NAME_COLLISION error naming both sources.
 */
import { createHash } from 'node:crypto';
import { isLabelTable, type BreakoutPlan, type ColumnPlan, type ColumnType, type TableKind, type TablePlan } from './plan-model.js';
import type { DictItem, Dictionary } from '../cspro/dictionary/model.js';
import { AppError } from '../shared/errors.js';
import { itemColumns } from './item-columns.js';
import { shortenIdentifier } from './shorten-identifier.js';

/** Bumped when the planner's rules change in a way that changes tables: old targets rebuild. */
const PLAN_FORMAT = 'sds-breakout-plan/1';

const LABEL_PATTERN = /^[A-Za-z][A-Za-z0-9_]*$/;
const MIN_IDENTIFIER_LIMIT = 16;

/** Name of the column holding the occurrence of the level-N ancestor node (N ≥ 2). */
function levelOccColumn(level: number): string {
  return `level_${level}_occ`;
}

const GUID: ColumnType = { kind: 'guid' };
const TEXT: ColumnType = { kind: 'text' };
const TIMESTAMP: ColumnType = { kind: 'timestamp' };
const BOOLEAN: ColumnType = { kind: 'boolean' };
/** Occurrences, note numbers: INTEGER everywhere. */
const COUNT: ColumnType = { kind: 'integer', digits: 9 };
/** Store revisions and case counts: BIGINT, they only grow. */
const BIG_COUNT: ColumnType = { kind: 'integer', digits: 18 };
/** Dictionary and table names in the label tables: within every dialect's key length limits. */
const NAME: ColumnType = { kind: 'varchar', length: 128 };
/**
 * A code of a numeric item as a number, for `BETWEEN` joins: CSPro numeric items have at most 15
 * digits and 9 decimals (docs/cspro-formats.md), well inside DECIMAL(28,9).
 */
const CODE_NUMBER: ColumnType = { kind: 'decimal', precision: 28, scale: 9 };

/**
 * Plans the breakout tables of `dict` under the table prefix `label` (lower-cased), with every
 * identifier within `limits.maxIdentifierLength` characters. Throws LABEL_INVALID for a label
 * that is not `^[A-Za-z][A-Za-z0-9_]*$` and NAME_COLLISION when two tables, or two columns of
 * one table, would get the same name.
 */
export function planBreakout(dict: Dictionary, label: string, limits: { maxIdentifierLength: number }): BreakoutPlan {
  if (!LABEL_PATTERN.test(label)) {
    throw new AppError(
      'LABEL_INVALID',
      `Label "${label}" is not a valid table prefix: it must start with a letter and hold only letters, digits and _`,
      { label },
    );
  }
  const limit = limits.maxIdentifierLength;
  if (!Number.isInteger(limit) || limit < MIN_IDENTIFIER_LIMIT) {
    throw new AppError('USAGE', `Identifier limit ${limit} is too small (at least ${MIN_IDENTIFIER_LIMIT})`);
  }
  const prefix = label.toLowerCase();
  const tableNames = new NameRegistry('Two breakout tables', limit);
  const tables: TableBuilder[] = [];
  const newTable = (base: string, source: string, kind: TableKind, extra: { level?: number; record?: string } = {}) => {
    const t = new TableBuilder(tableNames.claim(`${prefix}_${base}`, source), kind, limit, extra);
    tables.push(t);
    return t;
  };
  const levels = dict.levels;
  if (levels.length === 0) throw new AppError('DICT_INVALID', `Dictionary ${dict.name} has no levels`);

  const main = newTable('cases', 'the cases table', 'main');
  main.key('case_id', GUID, 'the case id column');
  main.fixed('case_key', TEXT, false, 'the case key column');
  main.fixed('case_label', TEXT, true, 'the case label column');
  main.items(levels[0]!.ids, `id item`);
  main.fixed('verified', BOOLEAN, false, 'the verified column');
  main.fixed('revision', BIG_COUNT, false, 'the revision column');
  main.fixed('modified_time', TIMESTAMP, false, 'the modified time column');
  main.fixed('breakout_time', TIMESTAMP, false, 'the breakout time column');

  for (let n = 2; n <= levels.length; n++) {
    const level = levels[n - 1]!;
    const t = newTable(`level_${n}`, `the table of level ${n} (${level.name})`, 'level', { level: n });
    t.key('case_id', GUID, 'the case id column');
    for (let a = 2; a < n; a++) t.key(levelOccColumn(a), COUNT, `the level ${a} occurrence column`);
    t.key('occ', COUNT, 'the occurrence column');
    t.items(level.ids, `id item of level ${n}`);
  }

  levels.forEach((level, i) => {
    const n = i + 1;
    for (const record of level.records) {
      const t = newTable(record.name.toLowerCase(), `record ${record.name}`, 'record', { level: n, record: record.name });
      t.key('case_id', GUID, 'the case id column');
      for (let a = 2; a <= n; a++) t.key(levelOccColumn(a), COUNT, `the level ${a} occurrence column`);
      t.key('occ', COUNT, 'the occurrence column');
      t.items(record.items, `item of record ${record.name}`);
    }
  });

  const notes = newTable('notes', 'the notes table', 'notes');
  notes.key('case_id', GUID, 'the case id column');
  notes.key('note_number', COUNT, 'the note number column');
  notes.fixed('field_name', TEXT, false, 'the field name column');
  notes.fixed('level_key', TEXT, false, 'the level key column');
  notes.fixed('record_occurrence', COUNT, false, 'the record occurrence column');
  notes.fixed('item_occurrence', COUNT, false, 'the item occurrence column');
  notes.fixed('subitem_occurrence', COUNT, false, 'the subitem occurrence column');
  notes.fixed('content', TEXT, false, 'the content column');
  notes.fixed('operator_id', TEXT, false, 'the operator id column');
  notes.fixed('modified_time', TIMESTAMP, true, 'the modified time column');

  const jobs = newTable('cspro_jobs', 'the jobs table', 'jobs');
  jobs.key('job_id', { kind: 'varchar', length: 64 }, 'the job id column');
  jobs.fixed('started_time', TIMESTAMP, false, 'the started time column');
  jobs.fixed('completed_time', TIMESTAMP, true, 'the completed time column');
  jobs.fixed('cases_processed', BIG_COUNT, false, 'the cases processed column');
  jobs.fixed('status', { kind: 'varchar', length: 16 }, false, 'the status column');

  planLabelTables(prefix, tableNames, (name, kind) => {
    const t = new TableBuilder(name, kind, limit, {});
    tables.push(t);
    return t;
  });

  const planTables = tables.map((t) => t.build());
  return {
    dictionary: dict.name,
    prefix,
    tables: planTables,
    structureHash: structureHash(prefix, limit, planTables, tables),
  };
}

/**
 * SHA-256 over what shapes the tables and the rows: the plan's tables (names, kinds, levels,
 * records, columns, types, lengths, keys — occurrences show as column counts), the item each
 * column is filled from, the label and the identifier limit. Labels, notes and value sets of
 * the dictionary are not in it, so relabelling does not force a rebuild; nor are the label
 * tables (their shape is fixed, their content is label-sync.ts's business), so a target broken
 * out before they existed only gains them, without a rebuild.
 */
function structureHash(prefix: string, limit: number, planTables: TablePlan[], builders: TableBuilder[]): string {
  const canonical = JSON.stringify({
    format: PLAN_FORMAT,
    prefix,
    limit,
    tables: planTables
      .flatMap((t, i) => (isLabelTable(t) ? [] : [{ t, i }]))
      .map(({ t, i }) => ({
        name: t.name,
        kind: t.kind,
        level: t.level ?? null,
        record: t.record ?? null,
        primaryKey: t.primaryKey,
        columns: t.columns.map((c, j) => [c.name, c.type, c.nullable, builders[i]!.fedBy[j]]),
      })),
  });
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/** Final names already taken in one scope (tables of a plan, columns of a table), with their source. */
class NameRegistry {
  private readonly taken = new Map<string, string>();

  constructor(
    private readonly what: string,
    private readonly limit: number,
    private readonly table?: string,
  ) {}

  /** Whether `name`, once shortened, is still free. */
  free(name: string): boolean {
    return !this.taken.has(shortenIdentifier(name, this.limit));
  }

  /** Shortens `name` to the limit and takes it for `source`, or throws NAME_COLLISION. */
  claim(name: string, source: string): string {
    const final = shortenIdentifier(name, this.limit);
    const first = this.taken.get(final);
    if (first !== undefined) {
      const where = this.table ? ` of table "${this.table}"` : '';
      throw new AppError('NAME_COLLISION', `${this.what}${where} would both be named "${final}": ${first} and ${source}`, {
        ...(this.table ? { table: this.table } : {}),
        name: final,
        first,
        second: source,
      });
    }
    this.taken.set(final, source);
    return final;
  }
}

/** Collects the columns of one table in order, claiming each name in the table's scope. */
class TableBuilder {
  private readonly columns: ColumnPlan[] = [];
  private readonly primaryKey: string[] = [];
  private readonly names: NameRegistry;
  /** Per column, what fills it (for the structure hash): `''` for fixed columns, `ITEM#k:kind` for items. */
  readonly fedBy: string[] = [];

  constructor(
    readonly name: string,
    private readonly kind: TableKind,
    limit: number,
    private readonly extra: { level?: number; record?: string },
  ) {
    this.names = new NameRegistry('Two columns', limit, name);
  }

  key(column: string, type: ColumnType, source: string): void {
    this.primaryKey.push(this.push(column, type, false, source, ''));
  }

  fixed(column: string, type: ColumnType, nullable: boolean, source: string): void {
    this.push(column, type, nullable, source, '');
  }

  /** Item columns (all nullable), in the order item-columns.ts gives. */
  items(items: readonly DictItem[], what: string): void {
    for (const ic of itemColumns(items)) {
      ic.names.forEach((column, k) => {
        const occ = ic.occurrences > 1 ? ` occurrence ${k + 1}` : '';
        this.push(column, ic.type, true, `${what} ${ic.item.name}${occ}`, `${ic.item.name}#${ic.occurrences > 1 ? k + 1 : 0}:${ic.kind}`);
      });
    }
  }

  build(): TablePlan {
    const table: TablePlan = { name: this.name, kind: this.kind, columns: this.columns, primaryKey: this.primaryKey };
    if (this.extra.level !== undefined) table.level = this.extra.level;
    if (this.extra.record !== undefined) table.record = this.extra.record;
    return table;
  }

  private push(column: string, type: ColumnType, nullable: boolean, source: string, fedBy: string): string {
    const name = this.names.claim(column, source);
    this.columns.push({ name, type, nullable });
    this.fedBy.push(fedBy);
    return name;
  }
}

/** Columns of the label tables (docs/breakout.md#value-sets-and-item-labels). */
function planLabelTables(prefix: string, tableNames: NameRegistry, newTable: (name: string, kind: TableKind) => TableBuilder): void {
  const claim = (base: string, source: string): string => {
    // A record named VALUE_SETS or ITEMS keeps the table name it always had; the label table
    // moves to `p_sds_<base>` (docs/decisions.md, "Label tables beside records of the same name").
    const plain = `${prefix}_${base}`;
    return tableNames.claim(tableNames.free(plain) ? plain : `${prefix}_sds_${base}`, source);
  };
  const vs = newTable(claim('value_sets', 'the value sets table'), 'value_sets');
  vs.key('item_name', NAME, 'the item name column');
  vs.key('value_set_order', COUNT, 'the value set order column');
  vs.key('value_order', COUNT, 'the value order column');
  vs.key('pair_order', COUNT, 'the pair order column');
  vs.fixed('value_set_name', NAME, false, 'the value set name column');
  vs.fixed('value_set_label', TEXT, false, 'the value set label column');
  vs.fixed('value_from', TEXT, false, 'the value from column');
  vs.fixed('value_to', TEXT, true, 'the value to column');
  vs.fixed('value_from_num', CODE_NUMBER, true, 'the numeric value from column');
  vs.fixed('value_to_num', CODE_NUMBER, true, 'the numeric value to column');
  vs.fixed('label', TEXT, false, 'the label column');
  vs.fixed('special', { kind: 'varchar', length: 16 }, true, 'the special column');

  const items = newTable(claim('items', 'the items table'), 'items');
  items.key('table_name', NAME, 'the table name column');
  items.key('column_name', NAME, 'the column name column');
  items.fixed('item_name', NAME, false, 'the item name column');
  items.fixed('item_label', TEXT, false, 'the item label column');
  items.fixed('record_name', NAME, true, 'the record name column');
  items.fixed('content_type', { kind: 'varchar', length: 16 }, false, 'the content type column');
  items.fixed('length', COUNT, false, 'the length column');
  items.fixed('decimals', COUNT, false, 'the decimals column');
  items.fixed('occurrence', COUNT, true, 'the occurrence column');
  items.fixed('occurrence_label', TEXT, true, 'the occurrence label column');
  items.fixed('value_set_name', NAME, true, 'the value set name column');
  items.fixed('labels_hash', { kind: 'varchar', length: 64 }, false, 'the labels hash column');
}
