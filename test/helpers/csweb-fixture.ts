/**
 * A CSWeb-shaped MariaDB database for tests (docs/migrating-from-csweb.md describes what sds
 * reads): the fixed cspro_* tables, three tables per dictionary, and helpers that write rows as
 * CSWeb 8 writes them: the questionnaire behind the 4-byte marker as zlib JSON, or as plain
 * record lines; GUIDs as 16 bytes; clocks as JSON text; note times as wall time. Each fixture is
 * its own database `csweb_test_<random>`, dropped by `drop()`. An unreachable server fails the
 * test (SDS_TEST_MYSQL_URL, default mysql://root@127.0.0.1:3306/).
 */
import { deflateSync } from 'node:zlib';
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import mysql, { type Connection } from 'mysql2/promise';
import { CSPRO_APPS_DDL } from './csweb-files-fixture.js';
import { PERMISSION_DDL } from './csweb-users-fixture.js';
import { uniqueName } from './test-databases.js';

const ADMIN_URL = process.env.SDS_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';

const FIXED_DDL = [
  `CREATE TABLE cspro_config (name varchar(128) NOT NULL PRIMARY KEY, value varchar(255) NOT NULL,
     modified_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, created_time timestamp NULL)`,
  `CREATE TABLE cspro_dictionaries (id smallint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY,
     dictionary_name varchar(191) NOT NULL UNIQUE, dictionary_label varchar(255) NOT NULL, dictionary_full_content longtext NOT NULL,
     modified_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, created_time timestamp NULL)`,
  `CREATE TABLE cspro_dictionaries_schema (dictionary_id smallint unsigned NOT NULL PRIMARY KEY, host_name varchar(191),
     schema_name varchar(191) UNIQUE, schema_user_name varchar(255), schema_password varbinary(255), additional_config text, map_info text,
     modified_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP, created_time timestamp NULL,
     FOREIGN KEY (dictionary_id) REFERENCES cspro_dictionaries(id) ON DELETE CASCADE)`,
  `CREATE TABLE cspro_sync_history (revision int unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, username varchar(128) NULL,
     device char(32) NOT NULL, dictionary_id smallint unsigned NOT NULL, universe varchar(255) NULL,
     direction enum('put','get','both') NOT NULL, last_case_revision int unsigned NULL, last_case_guid binary(16) NULL,
     created_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP, FOREIGN KEY (dictionary_id) REFERENCES cspro_dictionaries(id))`,
  `CREATE TABLE cspro_roles (id int unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, name varchar(191) NOT NULL UNIQUE,
     modified_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP, created_time timestamp NULL)`,
  `CREATE TABLE cspro_users (username varchar(128) NOT NULL PRIMARY KEY, password varchar(2000) NOT NULL, first_name varchar(255) NOT NULL,
     last_name varchar(255) NOT NULL, email varchar(255) NULL, phone varchar(32) NULL, role int unsigned NOT NULL,
     modified_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP, created_time timestamp NULL, FOREIGN KEY (role) REFERENCES cspro_roles(id))`,
  CSPRO_APPS_DDL,
];

function dictionaryDdl(name: string): string[] {
  return [
    `CREATE TABLE \`${name}\` (id int unsigned NOT NULL AUTO_INCREMENT UNIQUE, guid binary(16) NOT NULL PRIMARY KEY,
       caseids varchar(191) NOT NULL, label varchar(255) NOT NULL DEFAULT '', questionnaire BLOB NOT NULL, revision int unsigned NOT NULL,
       deleted tinyint(1) NOT NULL DEFAULT 0, verified tinyint(1) NOT NULL DEFAULT 0, clock text NOT NULL,
       modified_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, created_time timestamp NULL,
       partial_save_mode varchar(6) NULL, partial_save_field_name varchar(255) NULL, partial_save_level_key varchar(255) NULL,
       partial_save_record_occurrence smallint NULL, partial_save_item_occurrence smallint NULL, partial_save_subitem_occurrence smallint NULL,
       KEY (revision), KEY (caseids), KEY (deleted))`,
    `CREATE TABLE \`${name}_notes\` (id bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, case_guid binary(16) NOT NULL,
       operator_id varchar(255) NOT NULL, field_name varchar(255) NOT NULL, level_key varchar(255) NOT NULL,
       record_occurrence smallint NOT NULL, item_occurrence smallint NOT NULL, subitem_occurrence smallint NOT NULL,
       content text NOT NULL, modified_time datetime NOT NULL, created_time timestamp NULL,
       FOREIGN KEY (case_guid) REFERENCES \`${name}\`(guid) ON DELETE CASCADE)`,
    `CREATE TABLE \`${name}_case_binary_data\` (id bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, case_guid binary(16) NOT NULL,
       binary_data_signature char(32) CHARACTER SET ascii NOT NULL, modified_time datetime NULL, created_time timestamp NULL,
       FOREIGN KEY (case_guid) REFERENCES \`${name}\`(guid) ON DELETE CASCADE)`,
  ];
}

/** A note as a test gives it; `modifiedTime` is CSWeb's wall time text. */
export interface FixtureNote {
  operatorId: string;
  field: string;
  levelKey?: string;
  recordOccurrence?: number;
  itemOccurrence?: number;
  subitemOccurrence?: number;
  content: string;
  modifiedTime: string;
}

/** A case as a test writes it to the fixture: `level1` JSON text (7.5+) or record `lines` (pre-7.5), or raw `questionnaire` bytes. */
export interface FixtureCase {
  guid?: string;
  caseids: string;
  label?: string;
  level1?: string;
  lines?: string[];
  questionnaire?: Buffer;
  deleted?: boolean;
  verified?: boolean;
  clock?: { deviceId: string; revision: number }[];
  partialSave?: { mode: string; field?: string; levelKey?: string; record?: number; item?: number; subitem?: number };
  notes?: FixtureNote[];
  /** `<DICT>_case_binary_data` rows: md5 signatures, `modifiedTime` CSWeb's wall time text. */
  binaryItems?: { signature: string; modifiedTime?: string }[];
}

export interface CswebFixture {
  database: string;
  url: string;
  serverDeviceId: string;
  conn: Connection;
  addDictionary(name: string, label: string, content: string): Promise<void>;
  /** Writes cases as one CSWeb upload does: one `put` revision for all, returned. */
  upload(dictionary: string, cases: FixtureCase[], device?: string): Promise<number>;
  /** A sync-history row with no case (an upload whose cases were all skipped). */
  emptyRevision(dictionary: string): Promise<number>;
  drop(): Promise<void>;
}

/** The questionnaire bytes CSWeb stores for level-1 JSON text: the marker, then zlib. */
function markedZlib(text: string): Buffer {
  return Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), deflateSync(Buffer.from(text, 'utf8'))]);
}

const guidBytes = (g: string) => Buffer.from(g.replace(/-/g, ''), 'hex');

/** Creates a CSWeb-shaped database (schema_version 7, a random server device id). */
export async function createCswebFixture(opts: { schemaVersion?: string } = {}): Promise<CswebFixture> {
  const database = uniqueName('csweb_test');
  const admin = new URL(ADMIN_URL);
  const server = await mysql.createConnection({
    host: admin.hostname,
    port: Number(admin.port || 3306),
    user: decodeURIComponent(admin.username),
  });
  await server.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await server.end();
  const conn = await mysql.createConnection({
    host: admin.hostname,
    port: Number(admin.port || 3306),
    user: decodeURIComponent(admin.username),
    database,
    dateStrings: true,
  });
  for (const ddl of FIXED_DDL) await conn.query(ddl);
  for (const ddl of PERMISSION_DDL) await conn.query(ddl);
  const serverDeviceId = randomUUID().replace(/-/g, '');
  await conn.query('INSERT INTO cspro_config (name, value) VALUES (?, ?), (?, ?)', [
    'schema_version',
    opts.schemaVersion ?? '7',
    'server_device_id',
    serverDeviceId,
  ]);
  await conn.query("INSERT INTO cspro_roles (id, name) VALUES (1, 'Standard User'), (2, 'Administrator')");
  const dictId = async (name: string) => {
    const [rows] = await conn.query<mysql.RowDataPacket[]>('SELECT id FROM cspro_dictionaries WHERE dictionary_name = ?', [name]);
    return rows[0]!.id as number;
  };
  const url = `mysql://${admin.username || 'root'}@${admin.hostname}:${admin.port || 3306}/${database}`;
  return {
    database,
    url,
    serverDeviceId,
    conn,
    async addDictionary(name, label, content) {
      const [rows] = await conn.query<mysql.RowDataPacket[]>('SELECT id FROM cspro_dictionaries WHERE dictionary_name = ?', [name]);
      if (rows.length > 0) {
        await conn.query('UPDATE cspro_dictionaries SET dictionary_label = ?, dictionary_full_content = ? WHERE dictionary_name = ?', [
          label,
          content,
          name,
        ]);
        return;
      }
      await conn.query('INSERT INTO cspro_dictionaries (dictionary_name, dictionary_label, dictionary_full_content) VALUES (?, ?, ?)', [
        name,
        label,
        content,
      ]);
      for (const ddl of dictionaryDdl(name)) await conn.query(ddl);
    },
    async upload(dictionary, cases, device = 'a1b2c3d4e5f6') {
      const [res] = await conn.query<mysql.ResultSetHeader>(
        "INSERT INTO cspro_sync_history (username, device, dictionary_id, universe, direction) VALUES ('interviewer', ?, ?, '', 'put')",
        [device, await dictId(dictionary)],
      );
      const revision = res.insertId;
      for (const c of cases) {
        const guid = c.guid ?? randomUUID();
        const q = c.questionnaire ?? (c.level1 !== undefined ? markedZlib(c.level1) : Buffer.from((c.lines ?? []).join('\n'), 'utf8'));
        const ps = c.partialSave;
        await conn.query(
          `INSERT INTO \`${dictionary}\` (guid, caseids, label, questionnaire, revision, deleted, verified, clock,
             partial_save_mode, partial_save_field_name, partial_save_level_key, partial_save_record_occurrence,
             partial_save_item_occurrence, partial_save_subitem_occurrence)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
           ON DUPLICATE KEY UPDATE caseids = VALUES(caseids), label = VALUES(label), questionnaire = VALUES(questionnaire),
             revision = VALUES(revision), deleted = VALUES(deleted), verified = VALUES(verified), clock = VALUES(clock),
             partial_save_mode = VALUES(partial_save_mode), partial_save_field_name = VALUES(partial_save_field_name),
             partial_save_level_key = VALUES(partial_save_level_key), partial_save_record_occurrence = VALUES(partial_save_record_occurrence),
             partial_save_item_occurrence = VALUES(partial_save_item_occurrence), partial_save_subitem_occurrence = VALUES(partial_save_subitem_occurrence)`,
          [
            guidBytes(guid),
            c.caseids,
            c.label ?? '',
            q,
            revision,
            c.deleted ? 1 : 0,
            c.verified ? 1 : 0,
            JSON.stringify(c.clock ?? [{ deviceId: device, revision: 1 }]),
            ps?.mode ?? null,
            ps ? (ps.field ?? null) : null,
            ps ? (ps.field === undefined ? '' : (ps.levelKey ?? '')) : null,
            ps ? (ps.record ?? 0) : null,
            ps ? (ps.item ?? 0) : null,
            ps ? (ps.subitem ?? 0) : null,
          ],
        );
        // CSWeb deletes a case's notes and writes those sent, on every upload of it.
        await conn.query(`DELETE FROM \`${dictionary}_notes\` WHERE case_guid = ?`, [guidBytes(guid)]);
        for (const n of c.notes ?? []) {
          await conn.query(
            `INSERT INTO \`${dictionary}_notes\` (case_guid, operator_id, field_name, level_key, record_occurrence, item_occurrence,
               subitem_occurrence, content, modified_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            [
              guidBytes(guid),
              n.operatorId,
              n.field,
              n.levelKey ?? '',
              n.recordOccurrence ?? 1,
              n.itemOccurrence ?? 1,
              n.subitemOccurrence ?? 0,
              n.content,
              n.modifiedTime,
            ],
          );
        }
        // Binary items too: CSWeb rebuilds the case's rows on every upload.
        await conn.query(`DELETE FROM \`${dictionary}_case_binary_data\` WHERE case_guid = ?`, [guidBytes(guid)]);
        for (const b of c.binaryItems ?? []) {
          await conn.query(
            `INSERT INTO \`${dictionary}_case_binary_data\` (case_guid, binary_data_signature, modified_time, created_time)
             VALUES (?, ?, ?, CURRENT_TIMESTAMP)`,
            [guidBytes(guid), b.signature, b.modifiedTime ?? '2024-06-01 12:00:00'],
          );
        }
      }
      return revision;
    },
    async emptyRevision(dictionary) {
      const [res] = await conn.query<mysql.ResultSetHeader>(
        "INSERT INTO cspro_sync_history (username, device, dictionary_id, universe, direction) VALUES ('interviewer', 'a1b2c3d4e5f6', ?, '', 'put')",
        [await dictId(dictionary)],
      );
      return res.insertId;
    },
    async drop() {
      await conn.query(`DROP DATABASE \`${database}\``);
      await conn.end();
    },
  };
}

/**
 * Writes a binary item's content where CSWeb keeps it, `<files>/binary-items/<dictionary, lower
 * case>/<md5>`, and returns the md5 (its signature).
 */
export function writeCswebBinaryItem(filesDir: string, dictionary: string, content: Buffer): string {
  const signature = createHash('md5').update(content).digest('hex');
  const dir = join(filesDir, 'binary-items', dictionary.toLowerCase());
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, signature), content);
  return signature;
}

/** The simpleCAPI dictionary (JSON form) with an image item PHOTO at the end of HOUSING_REC. */
export function simpleCapiWithPhoto(dcfPath: string): string {
  const d = JSON.parse(readFileSync(dcfPath, 'utf8')) as { levels: { records: { name: string; items: unknown[] }[] }[] };
  d.levels[0]!.records.find((r) => r.name === 'HOUSING_REC')!.items.push({
    name: 'PHOTO',
    labels: [{ text: 'Photo' }],
    contentType: 'image',
  });
  return JSON.stringify(d);
}

/** A binary item's descriptor as a CSPro 8.0 case JSON carries it. */
export function photoDescriptor(guid: string, content: Buffer): Record<string, unknown> {
  return {
    metadata: { filename: 'house.jpg', mediaType: 'image/jpeg' },
    caseid: guid,
    signature: createHash('md5').update(content).digest('hex'),
    length: content.length,
  };
}
