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
import { PERMISSION_DDL, seedFor, type CswebRelease } from './csweb-users-fixture.js';
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

/** CSWeb 8.1's fixed tables where they differ from 8.0's (setup/configure.php of csweb 8.1). */
const FIXED_DDL_81: Record<string, string> = {
  cspro_dictionaries: `CREATE TABLE cspro_dictionaries (id smallint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY,
     name varchar(191) NOT NULL UNIQUE, dictionary_actual_name varchar(191) NOT NULL, dictionary_label varchar(255) NOT NULL,
     dictionary_full_content longtext NOT NULL, dictionary_key_structure text NOT NULL,
     modified_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, created_time timestamp NULL)`,
  cspro_sync_history: `CREATE TABLE cspro_sync_history (revision int unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, username varchar(128) NULL,
     device char(32) NOT NULL, dictionary_id smallint unsigned NOT NULL, universe varchar(255) NULL,
     direction enum('put','get','both') NOT NULL, last_case_revision int unsigned NULL, last_case_uuid binary(16) NULL,
     created_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP, FOREIGN KEY (dictionary_id) REFERENCES cspro_dictionaries(id))`,
};

/** The fixed tables of a release: 8.1's replace 8.0's of the same name. */
function fixedDdl(release: CswebRelease): string[] {
  if (release === '8.0') return FIXED_DDL;
  return FIXED_DDL.map((ddl) => {
    const table = /CREATE TABLE (\w+)/.exec(ddl)![1]!;
    return FIXED_DDL_81[table] ?? ddl;
  });
}

/** CSWeb 8.1's tables of one dictionary: `uuid`, `key`, the whole case in `questionnaire`, no notes table. */
function dictionaryDdl81(name: string): string[] {
  return [
    `CREATE TABLE \`${name}\` (id int unsigned NOT NULL AUTO_INCREMENT UNIQUE, uuid binary(16) NOT NULL PRIMARY KEY,
       \`key\` varchar(191) NOT NULL, label text NULL, note text NULL, deleted tinyint(1) unsigned NOT NULL DEFAULT 0,
       verified tinyint(1) unsigned NOT NULL DEFAULT 0, partial_save_mode varchar(6) NULL, questionnaire BLOB NOT NULL,
       revision int unsigned NOT NULL, clock text NOT NULL,
       modified_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, created_time timestamp NULL,
       KEY (revision), KEY (\`key\`), KEY (deleted))`,
    `CREATE TABLE \`${name}_case_binary_data\` (id bigint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, case_uuid binary(16) NOT NULL,
       binary_data_signature char(32) CHARACTER SET ascii NOT NULL, modified_time datetime NOT NULL DEFAULT CURRENT_TIMESTAMP,
       created_time timestamp NULL, FOREIGN KEY (case_uuid) REFERENCES \`${name}\`(uuid) ON DELETE CASCADE)`,
  ];
}

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
  /** 8.1 only: the whole case as the 8.1 client sent it (docs/sync.md#v3-case-json), stored as CSWeb 8.1 stores it. */
  v3?: Record<string, unknown>;
}

export interface CswebFixture {
  database: string;
  url: string;
  serverDeviceId: string;
  conn: Connection;
  release: CswebRelease;
  /** Adds a dictionary; `syncName` (8.1) is its `name` column, the name of its tables, beside its own name. */
  addDictionary(name: string, label: string, content: string, syncName?: string): Promise<void>;
  /** 8.1: a message as CSWeb 8.1 stores one (`value` the JSON text); returns its id. */
  addMessage(m: { username: string; device: string; name: string; value: string | null; createdTime?: string }): Promise<number>;
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

/**
 * Creates a CSWeb-shaped database: CSWeb 8.0.1's (schema_version 7) or, with `release` '8.1',
 * CSWeb 8.1's (schema_version 8); a random server device id.
 */
export async function createCswebFixture(opts: { schemaVersion?: string; release?: CswebRelease } = {}): Promise<CswebFixture> {
  const release = opts.release ?? '8.0';
  const v81 = release === '8.1';
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
  for (const ddl of fixedDdl(release)) await conn.query(ddl);
  for (const ddl of PERMISSION_DDL) await conn.query(ddl);
  const serverDeviceId = randomUUID().replace(/-/g, '');
  await conn.query('INSERT INTO cspro_config (name, value) VALUES (?, ?), (?, ?)', [
    'schema_version',
    opts.schemaVersion ?? (v81 ? '8' : '7'),
    'server_device_id',
    serverDeviceId,
  ]);
  await conn.query("INSERT INTO cspro_roles (id, name) VALUES (1, 'Standard User'), (2, 'Administrator')");
  for (const sql of seedFor(release)) await conn.query(sql);
  // The name of the case tables and of the dictionary in URLs: 8.0's dictionary_name, 8.1's name.
  const nameColumn = v81 ? 'name' : 'dictionary_name';
  const dictId = async (name: string) => {
    const [rows] = await conn.query<mysql.RowDataPacket[]>(`SELECT id FROM cspro_dictionaries WHERE ${nameColumn} = ?`, [name]);
    return rows[0]!.id as number;
  };
  const url = `mysql://${admin.username || 'root'}@${admin.hostname}:${admin.port || 3306}/${database}`;
  /** One case as CSWeb 8.1 writes it: the whole case JSON behind the marker, flags and key in columns. */
  const put81 = async (dictionary: string, c: FixtureCase, revision: number, device: string) => {
    const guid = c.guid ?? randomUUID();
    const body: Record<string, unknown> = { ...(c.v3 ?? {}), uuid: guid, key: c.caseids };
    await conn.query(
      `INSERT INTO \`${dictionary}\` (uuid, \`key\`, label, deleted, verified, partial_save_mode, questionnaire, revision, clock)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON DUPLICATE KEY UPDATE \`key\` = VALUES(\`key\`), label = VALUES(label), deleted = VALUES(deleted), verified = VALUES(verified),
         partial_save_mode = VALUES(partial_save_mode), questionnaire = VALUES(questionnaire), revision = VALUES(revision), clock = VALUES(clock)`,
      [
        guidBytes(guid),
        c.caseids,
        c.label ?? '',
        c.deleted ? 1 : 0,
        c.verified ? 1 : 0,
        c.partialSave?.mode ?? null,
        c.questionnaire ?? markedZlib(JSON.stringify(body)),
        revision,
        JSON.stringify(c.clock ?? body.clock ?? [{ deviceId: device, revision: 1 }]),
      ],
    );
    await conn.query(`DELETE FROM \`${dictionary}_case_binary_data\` WHERE case_uuid = ?`, [guidBytes(guid)]);
    for (const b of c.binaryItems ?? []) {
      await conn.query(
        `INSERT INTO \`${dictionary}_case_binary_data\` (case_uuid, binary_data_signature, modified_time) VALUES (?, ?, ?)`,
        [guidBytes(guid), b.signature, b.modifiedTime ?? '2024-06-01 12:00:00'],
      );
    }
  };
  return {
    database,
    url,
    serverDeviceId,
    conn,
    release,
    async addDictionary(name, label, content, syncName) {
      if (v81) {
        const table = syncName ?? name;
        await conn.query(
          `INSERT INTO cspro_dictionaries (name, dictionary_actual_name, dictionary_label, dictionary_full_content, dictionary_key_structure)
           VALUES (?, ?, ?, ?, '') ON DUPLICATE KEY UPDATE dictionary_label = VALUES(dictionary_label),
             dictionary_full_content = VALUES(dictionary_full_content)`,
          [table, name, label, content],
        );
        for (const ddl of dictionaryDdl81(table)) await conn.query(ddl.replace('CREATE TABLE', 'CREATE TABLE IF NOT EXISTS'));
        return;
      }
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
      if (v81) {
        for (const c of cases) await put81(dictionary, c, revision, device);
        return revision;
      }
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
    async addMessage(m) {
      const [res] = await conn.query<mysql.ResultSetHeader>(
        'INSERT INTO cspro_messages (username, device, name, value, created_time) VALUES (?, ?, ?, ?, COALESCE(?, CURRENT_TIMESTAMP))',
        [m.username, m.device, m.name, m.value, m.createdTime ?? null],
      );
      return res.insertId;
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
