/**
 * Does a `.csdb` file belong to a dictionary? Reading a file with another dictionary does not
 * fail by itself: the schema-3 reader looks columns up by item name, so a file whose items are
 * named otherwise reads as cases with empty records, silently. This check compares the file with
 * the dictionary before any case is read, from both sources the file has:
 *
 *  - the dictionary CSPro embedded in `meta.dictionary` (when it parses): the same dictionary
 *    name; every level, id item, record and item of the file's dictionary in the stored one, with
 *    the same content type, occurrences and decimals, and for text questionnaires (schema ≤ 2,
 *    read by column) the same record types, starts and lengths;
 *  - the tables of a schema-3 file: every level table with every id column of the dictionary,
 *    and no column in a level or record table that no id or item of the dictionary reads.
 *
 * What the dictionary has and the file lacks (an item or record added in a later version of the
 * dictionary) is not a difference: it reads as blank, as CSPro does when it opens older data with
 * a newer dictionary. What the file has and the dictionary lacks would be lost or misread, so it is.
 */

import type Database from 'better-sqlite3';
import { AppError } from '../../shared/errors.js';
import type { DictItem, DictRecord, Dictionary } from '../dictionary/model.js';
import { isBinaryItem, itemSlots } from './item-codec.js';
import { levelKey } from './model.js';

type Db = Database.Database;

/** Names listed in one difference before "and N more". */
const NAMES_SHOWN = 10;
/** Differences named in the error message; details.differences has them all. */
const DIFFERENCES_SHOWN = 5;

function nameList(names: readonly string[]): string {
  const shown = names.slice(0, NAMES_SHOWN).join(', ');
  return names.length > NAMES_SHOWN ? `${shown} and ${names.length - NAMES_SHOWN} more` : shown;
}

function describeItem(item: DictItem, positions: boolean): string {
  const parts: string[] = [item.contentType];
  if (positions) parts.push(`columns ${item.start}-${item.start + item.length * Math.max(1, item.occurrences) - 1}`);
  if (item.occurrences > 1) parts.push(`${item.occurrences} occurrences`);
  if (item.decimals > 0) parts.push(`${item.decimals} decimals`);
  return parts.join(', ');
}

function compareItems(
  where: string,
  fileItems: readonly DictItem[],
  storedItems: readonly DictItem[],
  positions: boolean,
  out: string[],
): void {
  const stored = new Map(storedItems.map((i) => [i.name, i]));
  const unknown: string[] = [];
  for (const item of fileItems) {
    const match = stored.get(item.name);
    if (!match) {
      unknown.push(item.name);
      continue;
    }
    const a = describeItem(item, positions);
    const b = describeItem(match, positions);
    if (a !== b) out.push(`${where} item ${item.name} is ${a} in the file, ${b} in the dictionary`);
  }
  if (unknown.length > 0)
    out.push(`${where} has item${unknown.length > 1 ? 's' : ''} ${nameList(unknown)} in the file that the dictionary does not have`);
}

/**
 * The differences between the stored dictionary and the one embedded in a `.csdb` file that
 * matter for reading the file (see the file comment); empty when it belongs. `positions` is true
 * for text questionnaires (schema ≤ 2), read by column.
 */
export function dictionaryDifferences(stored: Dictionary, file: Dictionary, positions: boolean): string[] {
  const out: string[] = [];
  if (file.name !== stored.name) out.push(`the file was written with dictionary ${file.name}, not ${stored.name}`);
  if (positions && (file.recordType.start !== stored.recordType.start || file.recordType.length !== stored.recordType.length)) {
    out.push(
      `the record type is at columns ${file.recordType.start}-${file.recordType.start + file.recordType.length - 1} in the file, ` +
        `${stored.recordType.start}-${stored.recordType.start + stored.recordType.length - 1} in the dictionary`,
    );
  }
  const storedRecords = new Map<string, { record: DictRecord; depth: number }>();
  stored.levels.forEach((level, depth) => level.records.forEach((record) => storedRecords.set(record.name, { record, depth })));
  file.levels.forEach((level, depth) => {
    const storedLevel = stored.levels[depth];
    if (!storedLevel) {
      out.push(`the file has ${file.levels.length} levels, the dictionary ${stored.levels.length}`);
      return;
    }
    const fileIds = level.ids.map((i) => i.name);
    const storedIds = storedLevel.ids.map((i) => i.name);
    if (fileIds.join() !== storedIds.join()) {
      out.push(
        `the ids of ${levelKey(depth + 1)} are ${nameList(fileIds) || 'none'} in the file, ${nameList(storedIds) || 'none'} in the dictionary`,
      );
    } else {
      // The case key is the ids' text, so their widths matter even where positions do not.
      for (const [k, id] of level.ids.entries()) {
        const match = storedLevel.ids[k] as DictItem;
        const a = `${describeItem(id, positions)}, ${id.length} wide`;
        const b = `${describeItem(match, positions)}, ${match.length} wide`;
        if (a !== b) out.push(`id item ${id.name} is ${a} in the file, ${b} in the dictionary`);
      }
    }
    for (const record of level.records) {
      const match = storedRecords.get(record.name);
      if (!match) {
        out.push(`record ${record.name} of the file is not in the dictionary`);
        continue;
      }
      if (match.depth !== depth)
        out.push(`record ${record.name} is on ${levelKey(depth + 1)} in the file, ${levelKey(match.depth + 1)} in the dictionary`);
      if (positions && record.recordType !== match.record.recordType) {
        out.push(
          `record ${record.name} has record type '${record.recordType}' in the file, '${match.record.recordType}' in the dictionary`,
        );
      }
      compareItems(`record ${record.name}`, record.items, match.record.items, positions, out);
    }
  });
  return out;
}

function columnsOf(db: Db, table: string): string[] {
  const rows = db.prepare(`PRAGMA table_info("${table.replaceAll('"', '""')}")`).all() as { name: string }[];
  return rows.map((r) => String(r.name));
}

/** The columns CSPro writes for items (`name`, `name(k)`, binary `name-signature`/`-metadata`), lower case. */
function itemColumns(items: readonly DictItem[]): Set<string> {
  const out = new Set<string>();
  for (const slot of itemSlots(items)) {
    const name = slot.item.name.toLowerCase();
    if (slot.occurrences > 1) for (let k = 1; k <= slot.occurrences; k++) out.add(`${name}(${k})`);
    else out.add(name);
  }
  for (const item of items) {
    if (isBinaryItem(item)) for (const suffix of ['-signature', '-metadata']) out.add(item.name.toLowerCase() + suffix);
  }
  return out;
}

/**
 * The differences between the stored dictionary and the tables of a schema-3 `.csdb` file:
 * level tables and their id columns, and columns of level and record tables that no id or item
 * of the dictionary reads. A record table the file lacks is not one (the record reads absent).
 */
export function tableDifferences(db: Db, dict: Dictionary): string[] {
  const out: string[] = [];
  dict.levels.forEach((level, depth) => {
    const table = levelKey(depth + 1);
    const columns = columnsOf(db, table);
    if (columns.length === 0) {
      out.push(`the file has no table ${table}`);
      return;
    }
    const ids = itemColumns(level.ids);
    const have = new Set(columns.map((c) => c.toLowerCase()));
    const missing = [...ids].filter((c) => !have.has(c));
    if (missing.length > 0) out.push(`table ${table} has no column for id${missing.length > 1 ? 's' : ''} ${nameList(missing)}`);
    const own = new Set([`${table}-id`, 'case-id', 'occ', ...(depth > 0 ? [`${levelKey(depth)}-id`] : [])]);
    const extra = columns.filter((c) => !own.has(c.toLowerCase()) && !ids.has(c.toLowerCase()));
    if (extra.length > 0)
      out.push(`table ${table} has column${extra.length > 1 ? 's' : ''} ${nameList(extra)} that no id of the dictionary reads`);
    for (const record of level.records) {
      const name = record.name.toLowerCase();
      const recordColumns = columnsOf(db, name);
      if (recordColumns.length === 0) continue;
      const items = itemColumns(record.items);
      const own = new Set([`${name}-id`, `${table}-id`, 'occ']);
      const extra = recordColumns.filter((c) => !own.has(c.toLowerCase()) && !items.has(c.toLowerCase()));
      if (extra.length > 0) {
        out.push(
          `table ${name} of record ${record.name} has column${extra.length > 1 ? 's' : ''} ${nameList(extra)} that no item of the dictionary reads`,
        );
      }
    }
  });
  return out;
}

/** DICTIONARY_MISMATCH for a file and its differences: the first few in the message, all in the details. */
export function csdbMismatchError(path: string, dict: Dictionary, differences: string[]): AppError {
  const shown = differences.slice(0, DIFFERENCES_SHOWN).join('; ');
  const more = differences.length > DIFFERENCES_SHOWN ? `; and ${differences.length - DIFFERENCES_SHOWN} more differences` : '';
  return new AppError('DICTIONARY_MISMATCH', `${path} was not written with dictionary ${dict.name}: ${shown}${more}`, {
    file: path,
    dictionary: dict.name,
    differences,
  });
}
