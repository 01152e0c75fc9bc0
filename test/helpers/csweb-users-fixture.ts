/**
 * A throw-away CSWeb-shaped database holding the account tables of CSWeb 8.0.1 (users, roles,
 * permissions, the two role-permission tables and the dictionaries they name), with the columns,
 * keys and seeded rows that docs/migrating-from-csweb.md#users-and-roles relies on. Each call
 * creates its own `csweb_test_<random>` database on the local MariaDB (SDS_TEST_MYSQL_URL, default
 * root@127.0.0.1:3306); `drop` removes it. An unreachable server fails the test.
 */
import mysql, { type Connection } from 'mysql2/promise';
import { hash } from 'bcryptjs';
import { uniqueName } from './test-databases.js';

const MYSQL_ADMIN_URL = process.env.SDS_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/';

const TIMES = `modified_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  created_time timestamp NULL DEFAULT NULL`;

/** Which CSWeb's tables a fixture has: 8.0.1's (schema version 7) or 8.1's (schema version 8). */
export type CswebRelease = '8.0' | '8.1';

/**
 * CSWeb 8.1's permission rows, the Developer role and the built-in roles' default rights, as its
 * setup writes them (setup/configure.php of csprousers/csweb 8.1).
 */
const SEED_81 = [
  `INSERT INTO cspro_roles (id, name) VALUES (3, 'Developer')`,
  `DELETE FROM cspro_permissions`,
  `INSERT INTO cspro_permissions (id, name) VALUES (1,'data'),(10,'apps'),(20,'users'),(30,'roles'),(40,'reports'),(50,'settings'),
    (60,'paradata'),(70,'dictionaries'),(80,'messages'),(90,'files'),(100,'login'),(2,'data.read'),(3,'data.write'),(4,'data.clear'),
    (5,'data.clear.dashboard'),(6,'data.none'),(11,'apps.read'),(12,'apps.write'),(21,'users.read'),(22,'users.write'),(31,'roles.read'),
    (32,'roles.write'),(41,'reports.read'),(42,'reports.write'),(51,'settings.read'),(52,'settings.write'),(61,'paradata.read'),
    (62,'paradata.write'),(71,'dictionaries.read'),(72,'dictionaries.write'),(81,'messages.read'),(82,'messages.write'),(91,'files.read'),
    (92,'files.write')`,
  `INSERT INTO cspro_role_permissions (role_id, permission_id) VALUES (1,2),(1,3),(1,11),(1,61),(1,62),(1,71),(1,81),(1,82),(1,91),(1,92),
    (2,1),(2,10),(2,20),(2,30),(2,40),(2,50),(2,60),(2,70),(2,80),(2,90),(2,100),
    (3,2),(3,3),(3,5),(3,10),(3,20),(3,40),(3,50),(3,60),(3,70),(3,80),(3,90),(3,100)`,
  `ALTER TABLE cspro_users ADD COLUMN uuid varchar(36) NULL UNIQUE FIRST`,
  `CREATE TABLE cspro_messages (id int unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, username varchar(128) NOT NULL,
    device char(32) NOT NULL, name varchar(255) NOT NULL, value longtext NULL, created_time timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP)`,
];

/** What turns a fixture's 8.0 account tables into 8.1's (run after the roles and cspro_users exist). */
export function seedFor(release: CswebRelease): string[] {
  return release === '8.1' ? SEED_81 : [];
}

/**
 * CSWeb's permission tables and their fixed rows (permissions 1-8), which the account import
 * reads: shared with the whole-server fixture of test/helpers/csweb-fixture.ts.
 */
export const PERMISSION_DDL = [
  `CREATE TABLE cspro_permissions (
    id int unsigned NOT NULL PRIMARY KEY,
    name varchar(191) NOT NULL UNIQUE,
    ${TIMES}
  ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
  `CREATE TABLE cspro_role_permissions (
    role_id int unsigned NOT NULL,
    permission_id int unsigned NOT NULL,
    ${TIMES},
    FOREIGN KEY (role_id) REFERENCES cspro_roles (id) ON DELETE CASCADE,
    FOREIGN KEY (permission_id) REFERENCES cspro_permissions (id) ON DELETE CASCADE
  ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
  `CREATE TABLE cspro_role_dictionary_permissions (
    role_id int unsigned NOT NULL,
    dictionary_id smallint unsigned NOT NULL,
    permission_id int unsigned NOT NULL,
    ${TIMES},
    FOREIGN KEY (role_id) REFERENCES cspro_roles (id) ON DELETE CASCADE,
    FOREIGN KEY (dictionary_id) REFERENCES cspro_dictionaries (id) ON DELETE CASCADE,
    FOREIGN KEY (permission_id) REFERENCES cspro_permissions (id) ON DELETE CASCADE
  ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
  `INSERT INTO cspro_permissions (id, name) VALUES (1, 'data_all'), (2, 'apps_all'), (3, 'users_all'), (4, 'roles_all'),
    (5, 'reports_all'), (6, 'dictionary_sync_upload'), (7, 'dictionary_sync_download'), (8, 'settings_all')`,
];

const DDL = [
  `CREATE TABLE cspro_dictionaries (
    id smallint unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY,
    dictionary_name varchar(191) NOT NULL UNIQUE,
    dictionary_label varchar(255) NOT NULL,
    dictionary_full_content longtext NOT NULL,
    ${TIMES}
  ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
  `CREATE TABLE cspro_roles (
    id int unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY,
    name varchar(191) NOT NULL UNIQUE,
    ${TIMES}
  ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
  ...PERMISSION_DDL,
  `CREATE TABLE cspro_users (
    username varchar(128) NOT NULL PRIMARY KEY,
    password varchar(2000) NOT NULL,
    first_name varchar(255) NOT NULL,
    last_name varchar(255) NOT NULL,
    email varchar(255) NULL,
    phone varchar(32) NULL,
    role int unsigned NOT NULL,
    ${TIMES},
    FOREIGN KEY (role) REFERENCES cspro_roles (id)
  ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`,
  `INSERT INTO cspro_roles (id, name) VALUES (1, 'Standard User'), (2, 'Administrator')`,
];

/** A CSWeb-shaped database with an open connection to it. */
export interface CswebUsersDb {
  name: string;
  conn: Connection;
  /** Closes the connection and drops the database. */
  drop(): Promise<void>;
}

/** Creates `csweb_test_<random>` with CSWeb's account tables and their seeded rows (roles 1-2, permissions 1-8). */
export async function createCswebUsersDb(): Promise<CswebUsersDb> {
  const name = uniqueName('csweb_test');
  const admin = await mysql.createConnection(MYSQL_ADMIN_URL);
  try {
    await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } finally {
    await admin.end();
  }
  const url = new URL(MYSQL_ADMIN_URL);
  url.pathname = `/${name}`;
  const conn = await mysql.createConnection(url.toString());
  for (const sql of DDL) await conn.query(sql);
  return {
    name,
    conn,
    async drop() {
      await conn.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await conn.end();
    },
  };
}

/** A bcrypt hash as PHP's password_hash writes it: bcryptjs's `$2b$` written as `$2y$`, the same algorithm. */
export async function phpBcrypt(password: string, cost: number): Promise<string> {
  return (await hash(password, cost)).replace(/^\$2b\$/, '$2y$');
}

/** Adds a CSWeb user with role `role` (1 Standard User, 2 Administrator, 3+ custom; 8.1: 3 Developer); `uuid` for an 8.1 database. */
export async function addCswebUser(
  conn: Connection,
  u: {
    username: string;
    password: string;
    role: number;
    first?: string;
    last?: string;
    email?: string | null;
    phone?: string | null;
    uuid?: string;
  },
): Promise<void> {
  const values = [u.username, u.password, u.first ?? 'First', u.last ?? 'Last', u.email ?? null, u.phone ?? null, u.role];
  await conn.query(
    u.uuid === undefined
      ? 'INSERT INTO cspro_users (username, password, first_name, last_name, email, phone, role, created_time) VALUES (?, ?, ?, ?, ?, ?, ?, NOW())'
      : 'INSERT INTO cspro_users (username, password, first_name, last_name, email, phone, role, uuid, created_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NOW())',
    u.uuid === undefined ? values : [...values, u.uuid],
  );
}

/** Adds a dictionary row (content is not read by the account import) and returns its id. */
export async function addCswebDictionary(conn: Connection, name: string): Promise<number> {
  const [r] = await conn.query<mysql.ResultSetHeader>(
    'INSERT INTO cspro_dictionaries (dictionary_name, dictionary_label, dictionary_full_content, created_time) VALUES (?, ?, ?, NOW())',
    [name, `${name} label`, '{}'],
  );
  return r.insertId;
}

/** Adds a custom role with global rights (permission ids) and per-dictionary sync rights; returns its id. */
export async function addCswebRole(
  conn: Connection,
  name: string,
  global: number[],
  perDictionary: { dictionaryId: number; permissionId: number }[],
): Promise<number> {
  const [r] = await conn.query<mysql.ResultSetHeader>('INSERT INTO cspro_roles (name, created_time) VALUES (?, NOW())', [name]);
  const id = r.insertId;
  for (const p of global) await conn.query('INSERT INTO cspro_role_permissions (role_id, permission_id) VALUES (?, ?)', [id, p]);
  for (const d of perDictionary) {
    await conn.query('INSERT INTO cspro_role_dictionary_permissions (role_id, dictionary_id, permission_id) VALUES (?, ?, ?)', [
      id,
      d.dictionaryId,
      d.permissionId,
    ]);
  }
  return id;
}
