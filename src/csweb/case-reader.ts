/**
 * Reading a CSWeb database: its dictionaries, the highest revision, and the cases of one
 * dictionary changed after a cursor, in keyset pages ordered by (revision, guid) as CSWeb's own
 * download orders them, with each page's notes and binary-item rows fetched per page. Never
 * more than one page is in memory (docs/migrating-from-csweb.md#how-the-import-runs).
 */
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { guidText } from './questionnaire.js';
import type { CswebBinaryRow, CswebCaseRow, CswebNoteRow } from './case-rows.js';
import type { CswebLayout } from './layout.js';

/** A row of cspro_dictionaries. */
export interface CswebDictionary {
  /** The dictionary's own name: sds's name for it (8.1's `dictionary_actual_name`, 8.0's `dictionary_name`). */
  name: string;
  /** The name of its case tables: 8.1's `name` (the syncable name), else the dictionary's name. */
  table: string;
  /** 8.1's syncable name when it differs from the dictionary's own (docs/sync.md#syncable-names); undefined otherwise. */
  syncName?: string;
  label: string;
  /** dictionary_full_content as stored: the uploaded `.dcf` text. */
  content: string;
}

/** Every dictionary of the source, by name. */
export async function readCswebDictionaries(conn: Connection, layout: CswebLayout): Promise<CswebDictionary[]> {
  const own = layout.ownNameColumn ?? layout.tableNameColumn;
  const [rows] = await conn.query<RowDataPacket[]>(
    `SELECT ${quote(own)} AS name, ${quote(layout.tableNameColumn)} AS tbl, dictionary_label AS label, dictionary_full_content AS content
       FROM cspro_dictionaries ORDER BY ${quote(own)}`,
  );
  return rows.map((r) => {
    const name = String(r.name);
    const table = String(r.tbl);
    return {
      name,
      table,
      ...(table !== name ? { syncName: table } : {}),
      label: String(r.label ?? ''),
      content: String(r.content),
    };
  });
}

/** MAX(cspro_sync_history.revision): the counter sds continues above (0 when empty). */
export async function readHighestRevision(conn: Connection): Promise<number> {
  const [rows] = await conn.query<RowDataPacket[]>('SELECT COALESCE(MAX(revision), 0) AS r FROM cspro_sync_history');
  return Number(rows[0]!.r);
}

/** A position in a dictionary's (revision, guid) order. */
export interface CaseCursor {
  revision: number;
  /** The GUID in text form; '' before the first case of a revision. */
  guid: string;
}

const quote = (name: string) => `\`${name.replace(/`/g, '``')}\``;
const guidBytes = (text: string) => Buffer.from(text.replace(/-/g, ''), 'hex');

/** Counts the cases of a dictionary (its case table) in (after, upTo] without reading them (for progress and --dry-run). */
export async function countCswebCases(
  conn: Connection,
  layout: CswebLayout,
  dictionary: string,
  after: CaseCursor,
  upTo: number,
): Promise<number> {
  const g = quote(layout.guidColumn);
  const [rows] = await conn.query<RowDataPacket[]>(
    `SELECT COUNT(*) AS n FROM ${quote(dictionary)} WHERE (revision > ? OR (revision = ? AND ${g} > ?)) AND revision <= ?`,
    [after.revision, after.revision, guidBytes(after.guid), upTo],
  );
  return Number(rows[0]!.n);
}

/**
 * Pages of the cases of `dictionary` after `after` and at most `upTo`, `pageSize` at a time.
 * The cursor is the last (revision, guid) of the previous page, so a case rewritten during the
 * read moves past the snapshot and is left for the next run.
 */
export async function* readCswebCasePages(
  conn: Connection,
  layout: CswebLayout,
  dictionary: string,
  after: CaseCursor,
  upTo: number,
  pageSize: number,
): AsyncGenerator<CswebCaseRow[]> {
  let cursor = after;
  const table = quote(dictionary);
  const g = quote(layout.guidColumn);
  // 8.1 keeps partial save and notes inside the case JSON; its rows give NULL for these.
  const partial =
    layout.caseForm === 'columns'
      ? `partial_save_mode, partial_save_field_name, partial_save_level_key,
         partial_save_record_occurrence, partial_save_item_occurrence, partial_save_subitem_occurrence`
      : `NULL AS partial_save_mode, NULL AS partial_save_field_name, NULL AS partial_save_level_key,
         NULL AS partial_save_record_occurrence, NULL AS partial_save_item_occurrence, NULL AS partial_save_subitem_occurrence`;
  for (;;) {
    const [rows] = await conn.query<RowDataPacket[]>(
      `SELECT ${g} AS guid, ${quote(layout.keyColumn)} AS caseids, label, questionnaire, revision, deleted, verified, clock, ${partial}
         FROM ${table}
        WHERE (revision > ? OR (revision = ? AND ${g} > ?)) AND revision <= ?
        ORDER BY revision, ${g} LIMIT ?`,
      [cursor.revision, cursor.revision, guidBytes(cursor.guid), upTo, pageSize],
    );
    if (rows.length === 0) return;
    const guids = rows.map((r) => r.guid as Buffer);
    const notes = layout.notesColumns === null ? new Map<string, CswebNoteRow[]>() : await notesOf(conn, dictionary, guids);
    const binary = await binaryItemsOf(conn, layout, dictionary, guids);
    const page = rows.map((r): CswebCaseRow => {
      const guid = guidText(r.guid as Buffer);
      const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
      return {
        form: layout.caseForm,
        guid,
        caseids: String(r.caseids ?? ''),
        label: String(r.label ?? ''),
        questionnaire: r.questionnaire as Buffer,
        revision: Number(r.revision),
        deleted: Number(r.deleted) === 1,
        verified: Number(r.verified) === 1,
        clock: String(r.clock ?? ''),
        partialSaveMode: (r.partial_save_mode as string | null) ?? null,
        partialSaveFieldName: (r.partial_save_field_name as string | null) ?? null,
        partialSaveLevelKey: (r.partial_save_level_key as string | null) ?? null,
        partialSaveRecordOccurrence: num(r.partial_save_record_occurrence),
        partialSaveItemOccurrence: num(r.partial_save_item_occurrence),
        partialSaveSubitemOccurrence: num(r.partial_save_subitem_occurrence),
        notes: notes.get(guid) ?? [],
        binaryItems: binary.get(guid) ?? [],
      };
    });
    yield page;
    const last = page[page.length - 1]!;
    cursor = { revision: last.revision, guid: last.guid };
    if (rows.length < pageSize) return;
  }
}

async function notesOf(conn: Connection, dictionary: string, guids: Buffer[]): Promise<Map<string, CswebNoteRow[]>> {
  const [rows] = await conn.query<RowDataPacket[]>(
    `SELECT case_guid, operator_id, field_name, level_key, record_occurrence, item_occurrence, subitem_occurrence, content, modified_time
       FROM ${quote(`${dictionary}_notes`)} WHERE case_guid IN (?) ORDER BY id`,
    [guids],
  );
  const out = new Map<string, CswebNoteRow[]>();
  for (const r of rows) {
    const guid = guidText(r.case_guid as Buffer);
    if (!out.has(guid)) out.set(guid, []);
    out.get(guid)!.push({
      operatorId: String(r.operator_id ?? ''),
      fieldName: String(r.field_name ?? ''),
      levelKey: String(r.level_key ?? ''),
      recordOccurrence: Number(r.record_occurrence ?? 0),
      itemOccurrence: Number(r.item_occurrence ?? 0),
      subitemOccurrence: Number(r.subitem_occurrence ?? 0),
      content: String(r.content ?? ''),
      modifiedTime: String(r.modified_time),
    });
  }
  return out;
}

async function binaryItemsOf(
  conn: Connection,
  layout: CswebLayout,
  dictionary: string,
  guids: Buffer[],
): Promise<Map<string, CswebBinaryRow[]>> {
  const c = quote(layout.caseGuidColumn);
  const [rows] = await conn.query<RowDataPacket[]>(
    `SELECT ${c} AS case_guid, binary_data_signature, modified_time FROM ${quote(`${dictionary}_case_binary_data`)}
      WHERE ${c} IN (?) ORDER BY id`,
    [guids],
  );
  const out = new Map<string, CswebBinaryRow[]>();
  for (const r of rows) {
    const guid = guidText(r.case_guid as Buffer);
    if (!out.has(guid)) out.set(guid, []);
    out.get(guid)!.push({
      signature: String(r.binary_data_signature).trim().toLowerCase(),
      modifiedTime: r.modified_time === null || r.modified_time === undefined ? null : String(r.modified_time),
    });
  }
  return out;
}
