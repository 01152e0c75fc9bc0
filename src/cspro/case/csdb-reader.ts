/**
 * Reader of CSPro `.csdb` data files (SQLite, docs/cspro-formats.md#csdb-files), opened read-only with better-sqlite3.
 * Cases come in `file_order`. Schema ≤ 2 keeps each case as fixed-width text in
 * `cases.questionnaire` (read with text-to-case); schema 3 keeps it in relational tables:
 * `level-N` tables for level nodes (`occ` = position under the parent), one table per record named
 * after the record in lower case (`occ` when the record repeats), item columns in lower case with
 * `name(k)` per occurrence. Numeric columns hold numbers (CSPro's special doubles ≥ 1e50 for
 * unmapped specials, NULL for blank); alpha columns hold text padded to the item length.
 *
 * Case metadata: GUID, key (kept as stored), label, deleted/verified flags, vector clock, notes
 * (epoch seconds → RFC 3339 UTC) and the partial-save state (1/2/3 → add/modify/verify, with the
 * field). A case whose data cannot be read is one `{ ok: false }` result (CASE_INVALID, details:
 * file, index, case key, id); the others are read. A file that is not a CSPro data file throws;
 * so does one written with another dictionary (DICTIONARY_MISMATCH, see csdb-check.ts), before
 * any case is read. A record table the file lacks reads as the record absent.
 *
 * Binary items (image, audio, ...) are not read: the case model has no value for them yet.
 */

import Database from 'better-sqlite3';
import { AppError } from '../../shared/errors.js';
import type { DictItem, DictLevel, DictRecord, Dictionary } from '../dictionary/model.js';
import { caseError, withCaseDetails, type CaseReadResult, type CaseWarning, type ReadPosition } from './case-result.js';
import { caseKeyOf } from './case-key.js';
import { foldOccurrences, itemSlots, normalizeScalar, type ItemSlot } from './item-codec.js';
import {
  levelKey,
  type CaseNote,
  type ClockEntry,
  type LevelObject,
  type PartialSave,
  type RecordObject,
  type ScalarValue,
  type SyncCase,
} from './model.js';
import { textToCase } from './text-to-case.js';
import { csdbMismatchError, dictionaryDifferences, tableDifferences } from './csdb-check.js';
import { parseDictionary } from '../dictionary/parse-dictionary.js';

type Row = Record<string, unknown>;
type Db = Database.Database;

/** What `meta` says about a `.csdb` file. */
export interface CsdbInfo {
  schemaVersion: number;
  csproVersion: string;
  /** The dictionary embedded by CSPro (text `.dcf` or JSON), BOM stripped. */
  dictionaryText: string;
}

function openCsdb(path: string): Db {
  try {
    return new Database(path, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new AppError('IO_ERROR', `cannot open ${path}: ${(err as Error).message}`, { file: path }, { cause: err });
  }
}

function readInfo(db: Db, path: string): CsdbInfo {
  let row: Row | undefined;
  try {
    // Only the columns every schema version has (old 7.x files lack dictionary_structure).
    row = db.prepare('SELECT schema_version, cspro_version, dictionary FROM meta').get() as Row | undefined;
  } catch (err) {
    throw new AppError(
      'FILE_FORMAT_UNKNOWN',
      `${path} is not a CSPro .csdb data file: ${(err as Error).message}`,
      { file: path },
      { cause: err },
    );
  }
  if (!row) throw new AppError('FILE_FORMAT_UNKNOWN', `${path} has an empty meta table`, { file: path });
  const text = String(row.dictionary ?? '');
  return {
    schemaVersion: Number(row.schema_version),
    csproVersion: String(row.cspro_version ?? ''),
    dictionaryText: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text,
  };
}

/**
 * Reads `meta` of a `.csdb` file: schema version, CSPro version and the embedded dictionary
 * text, so the caller can parse it or warn when it differs from the stored dictionary.
 */
export function readCsdbInfo(path: string): CsdbInfo {
  const db = openCsdb(path);
  try {
    return readInfo(db, path);
  } finally {
    db.close();
  }
}

/** The dictionary text embedded in a `.csdb` file (`meta.dictionary`, BOM stripped). */
export function readCsdbDictionaryText(path: string): string {
  return readCsdbInfo(path).dictionaryText;
}

/** The embedded dictionary parsed, or undefined when it is absent or does not parse. */
function embeddedDictionary(info: CsdbInfo): Dictionary | undefined {
  if (info.dictionaryText.trim() === '') return undefined;
  try {
    return parseDictionary(info.dictionaryText);
  } catch {
    // Not every CSPro version's dictionary parses; the tables are still checked.
    return undefined;
  }
}

/** Throws DICTIONARY_MISMATCH when the open file was not written with `dict` (csdb-check.ts). */
function assertBelongs(db: Db, info: CsdbInfo, path: string, dict: Dictionary): void {
  const embedded = embeddedDictionary(info);
  const differences = [
    ...(embedded ? dictionaryDifferences(dict, embedded, info.schemaVersion < 3) : []),
    ...(info.schemaVersion === 3 ? tableDifferences(db, dict) : []),
  ];
  if (differences.length > 0) throw csdbMismatchError(path, dict, differences);
}

function assertSchema(info: CsdbInfo, path: string): void {
  if (!(info.schemaVersion >= 1 && info.schemaVersion <= 3)) {
    throw new AppError('FILE_FORMAT_UNKNOWN', `${path} has .csdb schema version ${info.schemaVersion}; sds reads 1 to 3`, { file: path });
  }
}

/**
 * Checks that a `.csdb` file was written with `dict`, from its embedded dictionary and its tables
 * (csdb-check.ts), without reading a case: an import checks every file before it stores anything.
 * Throws DICTIONARY_MISMATCH naming the differences, or IO_ERROR / FILE_FORMAT_UNKNOWN.
 */
export function checkCsdbFile(path: string, dict: Dictionary): void {
  const db = openCsdb(path);
  try {
    const info = readInfo(db, path);
    assertSchema(info, path);
    assertBelongs(db, info, path, dict);
  } finally {
    db.close();
  }
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function columnsOf(db: Db, table: string): Set<string> {
  const rows = db.prepare(`PRAGMA table_info(${quote(table)})`).all() as Row[];
  return new Set(rows.map((r) => String(r.name)));
}

/** Prepared statements for the relational (schema 3) layout, checked against the dictionary up front. */
class RelationalLayout {
  private readonly levelStatements: Database.Statement[] = [];
  private readonly recordStatements = new Map<DictRecord, Database.Statement>();

  constructor(
    db: Db,
    private readonly dict: Dictionary,
    path: string,
  ) {
    const missing = (what: string) =>
      new AppError('CASE_INVALID', `${path} has no table ${what}: the dictionary does not match the file's`, { file: path });
    dict.levels.forEach((level, depth) => {
      const table = levelKey(depth + 1);
      if (columnsOf(db, table).size === 0) throw missing(table);
      const where = depth === 0 ? '"case-id" = ?' : `${quote(`${levelKey(depth)}-id`)} = ? ORDER BY occ`;
      this.levelStatements.push(db.prepare(`SELECT * FROM ${quote(table)} WHERE ${where}`));
      for (const record of level.records) {
        const name = record.name.toLowerCase();
        const columns = columnsOf(db, name);
        // A record added to the dictionary after the file was written: absent in every case.
        if (columns.size === 0) continue;
        const order = columns.has('occ') ? 'occ' : quote(`${name}-id`);
        this.recordStatements.set(
          record,
          db.prepare(`SELECT * FROM ${quote(name)} WHERE ${quote(`${levelKey(depth + 1)}-id`)} = ? ORDER BY ${order}`),
        );
      }
    });
  }

  /** The level tree of one case, or undefined when the case has no level-1 row. */
  case(caseId: string, warnings: CaseWarning[]): LevelObject | undefined {
    const row = this.levelStatements[0]?.get(caseId) as Row | undefined;
    return row ? this.level(row, 0, warnings) : undefined;
  }

  private level(row: Row, depth: number, warnings: CaseWarning[]): LevelObject {
    const level = this.dict.levels[depth] as DictLevel;
    const nodeId = row[`${levelKey(depth + 1)}-id`];
    const out: LevelObject = { id: rowToRecord(level.ids, row, 'id', warnings) };
    for (const record of level.records) {
      const statement = this.recordStatements.get(record);
      if (!statement) continue;
      const rows = statement.all(nodeId) as Row[];
      if (rows.length === 0) continue;
      let objects = rows.map((r) => rowToRecord(record.items, r, record.name, warnings));
      if (objects.length > record.maxOccurrences) {
        warnings.push({
          kind: 'too-many-records',
          message: `record ${record.name} has ${objects.length} rows, more than ${record.maxOccurrences}; the extra ones are dropped`,
          record: record.name,
        });
        objects = objects.slice(0, record.maxOccurrences);
      }
      out[record.name] = record.maxOccurrences > 1 ? objects : (objects[0] as RecordObject);
    }
    const childStatement = this.levelStatements[depth + 1];
    if (childStatement) {
      const children = childStatement.all(nodeId) as Row[];
      if (children.length > 0) out[levelKey(depth + 2)] = children.map((child) => this.level(child, depth + 1, warnings));
    }
    return out;
  }
}

/** Column of occurrence `k` (0-based) of a slot: `name`, or `name(k)` when the slot repeats. */
function columnName(slot: ItemSlot, k: number): string {
  const name = slot.item.name.toLowerCase();
  return slot.occurrences > 1 ? `${name}(${k + 1})` : name;
}

function rowToRecord(items: readonly DictItem[], row: Row, record: string, warnings: CaseWarning[]): RecordObject {
  const out: RecordObject = {};
  for (const slot of itemSlots(items)) {
    const values: (ScalarValue | undefined)[] = [];
    for (let k = 0; k < slot.occurrences; k++) {
      const raw = row[columnName(slot, k)];
      const check = normalizeScalar(slot.item, raw);
      if (check.ok) values.push(check.value);
      else {
        // A numeric column holding text that is not a number reads as DEFAULT, as in CSPro.
        warnings.push({
          kind: 'invalid-value',
          message: `item ${slot.item.name} holds ${JSON.stringify(raw)}, not a number; read as DEFAULT`,
          record,
          item: slot.item.name,
          ...(slot.occurrences > 1 ? { occurrence: k + 1 } : {}),
          value: String(raw),
        });
        values.push(normalizeScalarDefault(slot.item));
      }
    }
    const value = foldOccurrences(values, slot.occurrences > 1);
    if (value !== undefined) out[slot.item.name] = value;
  }
  return out;
}

function normalizeScalarDefault(item: DictItem): ScalarValue | undefined {
  const check = normalizeScalar(item, 'DEFAULT');
  return check.ok ? check.value : 'DEFAULT';
}

function rfc3339(epochSeconds: unknown): string {
  const ms = Number(epochSeconds) * 1000;
  return Number.isFinite(ms) ? new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z') : '';
}

const PARTIAL_MODES: Record<string, PartialSave['mode']> = { '1': 'add', '2': 'modify', '3': 'verify' };

function partialSaveOf(row: Row): PartialSave | undefined {
  const mode = row.partial_save_mode;
  if (mode === null || mode === undefined) return undefined;
  const name = PARTIAL_MODES[String(mode)];
  if (!name) return undefined;
  const field = row.partial_save_field_name;
  if (typeof field !== 'string' || field === '') return { mode: name };
  return {
    mode: name,
    field: {
      name: field,
      levelKey: String(row.partial_save_level_key ?? ''),
      recordOccurrence: Number(row.partial_save_record_occurrence ?? 0),
      itemOccurrence: Number(row.partial_save_item_occurrence ?? 0),
      subitemOccurrence: Number(row.partial_save_subitem_occurrence ?? 0),
    },
  };
}

/**
 * A `vector_clock` row, read with SQLite's 64-bit integers as they are (bigint): a revision past
 * 2^53 - 1 would not be exact as a number, so it is refused naming the value the file holds.
 */
function clockEntryOf(row: Row, k: number): ClockEntry {
  const raw = row.revision;
  const revision = typeof raw === 'bigint' && raw >= 0n && raw <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(revision)) {
    throw caseError(`clock[${k}].revision must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, got ${String(raw)}`, {
      path: `clock[${k}].revision`,
    });
  }
  return { deviceId: String(row.device), revision };
}

function noteOf(row: Row): CaseNote {
  return {
    content: String(row.content ?? ''),
    field: {
      name: String(row.field_name ?? ''),
      levelKey: String(row.level_key ?? ''),
      recordOccurrence: Number(row.record_occurrence ?? 0),
      itemOccurrence: Number(row.item_occurrence ?? 0),
      subitemOccurrence: Number(row.subitem_occurrence ?? 0),
    },
    operatorId: String(row.operator_id ?? ''),
    modifiedTime: rfc3339(row.modified_time),
  };
}

/**
 * Reads the cases of a `.csdb` file in file order (see the file comment). `dict` is the
 * dictionary to read the data with (the stored one). Throws IO_ERROR / FILE_FORMAT_UNKNOWN for a
 * file that cannot be read at all, DICTIONARY_MISMATCH when it was written with another dictionary.
 */
export async function* readCsdbFile(path: string, dict: Dictionary, onPosition?: ReadPosition): AsyncGenerator<CaseReadResult> {
  const db = openCsdb(path);
  try {
    const info = readInfo(db, path);
    assertSchema(info, path);
    assertBelongs(db, info, path, dict);
    const relational = info.schemaVersion === 3 ? new RelationalLayout(db, dict, path) : undefined;
    const caseColumns = columnsOf(db, 'cases');
    const hasNotes = columnsOf(db, 'notes').size > 0;
    const hasClock = columnsOf(db, 'vector_clock').size > 0;
    const clockStatement = hasClock
      ? db.prepare('SELECT device, revision FROM vector_clock WHERE case_id = ? ORDER BY rowid').safeIntegers(true)
      : undefined;
    const notesStatement = hasNotes ? db.prepare('SELECT * FROM notes WHERE case_id = ? ORDER BY rowid') : undefined;
    const order = caseColumns.has('file_order') ? 'file_order' : 'rowid';
    const cases = db.prepare(`SELECT * FROM cases ORDER BY ${order}`);

    const total = onPosition ? Number((db.prepare('SELECT count(*) AS n FROM cases').get() as Row).n) : 0;
    let index = 0;
    // iterate() streams rows; nested statements are fine on a read-only connection.
    for (const row of cases.iterate() as IterableIterator<Row>) {
      const at = index++;
      onPosition?.(at, total);
      const id = String(row.id ?? '');
      const storedKey = typeof row.key === 'string' ? row.key : undefined;
      try {
        const warnings: CaseWarning[] = [];
        let level1: LevelObject | undefined;
        if (relational) {
          level1 = relational.case(id, warnings);
          if (!level1) throw caseError('the case has no row in table level-1');
        } else {
          const text = textToCase(dict, String(row.questionnaire ?? '').split(/\r\n|\n|\r/));
          level1 = text.level1;
          warnings.push(...text.warnings);
        }
        const syncCase: SyncCase = { id: id.toLowerCase(), caseids: storedKey || caseKeyOf(dict, level1) } as SyncCase;
        if (typeof row.label === 'string' && row.label !== '') syncCase.label = row.label;
        if (Number(row.deleted) === 1) syncCase.deleted = true;
        if (Number(row.verified) === 1) syncCase.verified = true;
        const notes = notesStatement ? (notesStatement.all(id) as Row[]).map(noteOf) : [];
        if (notes.length > 0) syncCase.notes = notes;
        syncCase.clock = clockStatement ? (clockStatement.all(id) as Row[]).map(clockEntryOf) : [];
        const partial = partialSaveOf(row);
        if (partial) syncCase.partialSave = partial;
        syncCase['level-1'] = level1;
        yield { ok: true, case: syncCase, warnings, index: at };
      } catch (err) {
        yield { ok: false, error: withCaseDetails(err, { file: path, index: at, ...(storedKey ? { case: storedKey } : {}), id }) };
      }
    }
  } finally {
    db.close();
  }
}
