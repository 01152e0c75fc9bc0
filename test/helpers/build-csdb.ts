/**
 * Writes a schema-3 CSPro `.csdb` file the way CSPro 8 lays one out (docs/cspro-formats.md#csdb-files,
 * and the tables of fixtures/cspro/capi-household.csdb): `meta` with the embedded dictionary text,
 * `file_revisions`, `cases`, `vector_clock`, `notes`, `level-1` with the id columns, and one table
 * per record named after it in lower case, `occ` when it repeats, one column per item occurrence
 * (`name(k)`), numerics as numbers (NULL for blank), alpha padded to the item length.
 * One-level dictionaries only: what the tests need.
 */

import Database from 'better-sqlite3';
import type { DictItem, Dictionary } from '../../src/cspro/dictionary/model.js';
import { itemSlots } from '../../src/cspro/case/item-codec.js';
import type { LevelObject, RecordObject } from '../../src/cspro/case/model.js';

export interface CsdbCase {
  id: string;
  key: string;
  level1: LevelObject;
}

const q = (name: string) => '`' + name.replaceAll('`', '``') + '`';

function columns(items: readonly DictItem[]): { column: string; item: DictItem; k: number; repeating: boolean }[] {
  return itemSlots(items).flatMap((slot) =>
    Array.from({ length: slot.occurrences }, (_, k) => ({
      column: slot.occurrences > 1 ? `${slot.item.name.toLowerCase()}(${k + 1})` : slot.item.name.toLowerCase(),
      item: slot.item,
      k,
      repeating: slot.occurrences > 1,
    })),
  );
}

function columnDefs(items: readonly DictItem[]): string {
  return columns(items)
    .map((c) => `,${q(c.column)} ${c.item.contentType === 'alpha' ? 'TEXT' : 'INTEGER'}`)
    .join('');
}

function values(items: readonly DictItem[], record: RecordObject): unknown[] {
  return columns(items).map((c) => {
    const raw = record[c.item.name];
    const v = c.repeating ? (Array.isArray(raw) ? raw[c.k] : undefined) : raw;
    if (v === undefined || v === '') return null;
    return c.item.contentType === 'alpha' ? String(v).padEnd(c.item.length, ' ') : v;
  });
}

/** Writes `cases` of `dict` to a new `.csdb` at `path`, embedding `dictionaryText` in `meta`. */
export function writeCsdb(path: string, dict: Dictionary, dictionaryText: string, cases: readonly CsdbCase[]): void {
  const level = dict.levels[0];
  if (!level || dict.levels.length !== 1) throw new Error('writeCsdb writes one-level dictionaries');
  const db = new Database(path);
  try {
    db.exec(`CREATE TABLE meta (schema_version INTEGER NOT NULL,cspro_version TEXT NOT NULL,dictionary TEXT NOT NULL,dictionary_structure TEXT NOT NULL,dictionary_timestamp INT NOT NULL);
      CREATE TABLE file_revisions (id INTEGER NOT NULL PRIMARY KEY,device_id TEXT NOT NULL,timestamp INTEGER NOT NULL default (strftime('%s','now')));
      CREATE TABLE cases (id TEXT NOT NULL,\`key\` TEXT NOT NULL,label TEXT,questionnaire TEXT NOT NULL,last_modified_revision INTEGER NOT NULL,deleted INTEGER NOT NULL DEFAULT 0,file_order REAL NOT NULL UNIQUE,verified INTEGER NOT NULL DEFAULT 0,partial_save_mode TEXT NULL,partial_save_field_name TEXT NULL,partial_save_level_key TEXT NULL,partial_save_record_occurrence INTEGER NULL,partial_save_item_occurrence INTEGER NULL,partial_save_subitem_occurrence INTEGER NULL);
      CREATE UNIQUE INDEX \`cases-id\` ON cases(id);
      CREATE TABLE vector_clock (case_id TEXT,device TEXT,revision INTEGER,FOREIGN KEY(case_id) REFERENCES cases(id));
      CREATE TABLE notes (case_id TEXT NOT NULL,field_name TEXT NOT NULL,level_key TEXT NOT NULL,record_occurrence INTEGER NOT NULL,item_occurrence INTEGER NOT NULL,subitem_occurrence INTEGER NOT NULL,content TEXT NOT NULL,operator_id TEXT NOT NULL,modified_time INTEGER NOT NULL);
      CREATE TABLE \`level-1\`(\`level-1-id\` INTEGER PRIMARY KEY NOT NULL,\`case-id\` TEXT NOT NULL${columnDefs(level.ids)});`);
    for (const record of level.records) {
      const name = record.name.toLowerCase();
      db.exec(
        `CREATE TABLE ${q(name)}(${q(`${name}-id`)} INTEGER PRIMARY KEY NOT NULL,\`level-1-id\` INTEGER NOT NULL` +
          `${record.maxOccurrences > 1 ? ',`occ` INTEGER NOT NULL DEFAULT 1' : ''}${columnDefs(record.items)})`,
      );
    }
    db.prepare('INSERT INTO meta VALUES (3, ?, ?, ?, ?)').run('8.0.0', '\uFEFF' + dictionaryText, '0'.repeat(32), 1700000000);
    db.prepare("INSERT INTO file_revisions (id, device_id) VALUES (1, 'test-device')").run();
    const insertCase = db.prepare(
      'INSERT INTO cases (id, `key`, label, questionnaire, last_modified_revision, file_order) VALUES (?, ?, ?, ?, 1, ?)',
    );
    const insertClock = db.prepare("INSERT INTO vector_clock VALUES (?, 'test-device', 1)");
    const idColumns = columns(level.ids).map((c) => q(c.column));
    const insertLevel = db.prepare(
      `INSERT INTO \`level-1\` (\`case-id\`${idColumns.map((c) => ',' + c).join('')}) VALUES (?${idColumns.map(() => ',?').join('')})`,
    );
    db.transaction(() => {
      cases.forEach((c, order) => {
        insertCase.run(c.id, c.key, '', '', order + 1);
        insertClock.run(c.id);
        const levelId = insertLevel.run(c.id, ...values(level.ids, c.level1.id)).lastInsertRowid;
        for (const record of level.records) {
          const raw = c.level1[record.name];
          if (raw === undefined) continue;
          const rows = (Array.isArray(raw) ? raw : [raw]) as RecordObject[];
          const cols = columns(record.items).map((x) => q(x.column));
          const occ = record.maxOccurrences > 1;
          const insert = db.prepare(
            `INSERT INTO ${q(record.name.toLowerCase())} (\`level-1-id\`${occ ? ',`occ`' : ''}${cols.map((x) => ',' + x).join('')}) ` +
              `VALUES (?${occ ? ',?' : ''}${cols.map(() => ',?').join('')})`,
          );
          rows.forEach((row, k) => insert.run(levelId, ...(occ ? [k + 1] : []), ...values(record.items, row)));
        }
      });
    })();
  } finally {
    db.close();
  }
}
