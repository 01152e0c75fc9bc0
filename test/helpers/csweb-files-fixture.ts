/**
 * A CSWeb-shaped source for the import of files and app packages: a throw-away MariaDB database
 * (`csweb_test_<time>_<random>`) holding CSWeb 8.0.1's `cspro_apps` table, and a files folder in a
 * temp dir laid out as CSWeb lays out its FILES_FOLDER (docs/migrating-from-csweb.md#files-and-app-packages).
 * The server is SDS_TEST_MYSQL_URL (default mysql://root@127.0.0.1:3306/); an unreachable server
 * fails the test.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import mysql, { type Connection } from 'mysql2/promise';
import { uniqueName } from './test-databases.js';

const MYSQL_ADMIN_URL = process.env.SDS_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';

/** cspro_apps as CSWeb 8.0.1's setup creates it (utf8mb4, InnoDB); also the whole-server fixture's (csweb-fixture.ts). */
export const CSPRO_APPS_DDL = `CREATE TABLE cspro_apps (
  id int unsigned NOT NULL AUTO_INCREMENT,
  name varchar(128) NOT NULL,
  description varchar(512) DEFAULT NULL,
  build_time datetime NOT NULL,
  path varchar(255) NOT NULL,
  version varchar(16) DEFAULT NULL,
  files text,
  signature char(32) NOT NULL,
  modified_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  created_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (id),
  UNIQUE KEY name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`;

export interface CswebSource {
  /** Open connection to the test database. */
  conn: Connection;
  /** CSWeb's files folder. */
  filesDir: string;
  /** Writes a file under the files folder (making folders), with a modification time. */
  write(path: string, content: Buffer | string, mtime?: Date): void;
  /** Inserts a cspro_apps row. */
  addApp(row: {
    name: string;
    description: string;
    buildTime: string;
    path: string;
    version: string;
    files: string;
    signature: string;
  }): Promise<void>;
  close(): Promise<void>;
}

/** Creates the database with its cspro_apps table and an empty files folder. */
export async function createCswebSource(): Promise<CswebSource> {
  const name = uniqueName('csweb_test');
  const admin = await mysql.createConnection(MYSQL_ADMIN_URL);
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  const url = new URL(MYSQL_ADMIN_URL);
  url.pathname = `/${name}`;
  // Another time zone than the server's UTC, so a build time read through the driver's DATETIME handling would shift.
  const conn = await mysql.createConnection({ uri: url.toString(), timezone: '+05:00' });
  await conn.query(CSPRO_APPS_DDL);
  const filesDir = mkdtempSync(join(tmpdir(), 'sds-csweb-files-'));
  return {
    conn,
    filesDir,
    write(path, content, mtime) {
      const full = join(filesDir, ...path.split('/'));
      mkdirSync(dirname(full), { recursive: true });
      writeFileSync(full, content);
      if (mtime) utimesSync(full, mtime, mtime);
    },
    async addApp(r) {
      await conn.query(
        'INSERT INTO cspro_apps (name, description, build_time, path, version, files, signature) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [r.name, r.description, r.buildTime, r.path, r.version, r.files, r.signature],
      );
    },
    async close() {
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.end();
      rmSync(filesDir, { recursive: true, force: true });
    },
  };
}

/** md5 (hex) of bytes. */
export function md5(b: Buffer | string): string {
  return createHash('md5').update(b).digest('hex');
}

/** A zip of stored (uncompressed) entries, as an application package is a zip of its files. */
export function zipOf(entries: Record<string, Buffer | string>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(entries)) {
    const data = Buffer.from(content);
    const fileName = Buffer.from(name);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(entries).length, 8);
  end.writeUInt16LE(Object.keys(entries).length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/** Random bytes, for a large file whose every byte must survive the copy. */
export function randomContent(bytes: number): Buffer {
  return randomBytes(bytes);
}
