/**
 * Refuses a database that is not CSWeb 8's (docs/migrating-from-csweb.md#what-is-checked): the
 * `cspro_config` version must be 7 and every table and column the import reads must be there,
 * so a wrong database fails before anything is written, naming what is missing, or the version
 * when it is older.
 */
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { AppError } from '../shared/errors.js';

/** The only schema version whose layout the import knows (CSWeb 8.0); an older one is refused as such. */
const KNOWN_SCHEMA_VERSION = 7;

/** The fixed tables and the columns of them that the import reads. */
const FIXED: Record<string, string[]> = {
  cspro_config: ['name', 'value'],
  cspro_dictionaries: ['id', 'dictionary_name', 'dictionary_label', 'dictionary_full_content'],
  cspro_sync_history: ['revision', 'dictionary_id'],
};

/** The columns of the per-dictionary tables the import reads. */
const CASE_TABLE_COLUMNS = [
  'guid',
  'caseids',
  'label',
  'questionnaire',
  'revision',
  'deleted',
  'verified',
  'clock',
  'partial_save_mode',
  'partial_save_field_name',
  'partial_save_level_key',
  'partial_save_record_occurrence',
  'partial_save_item_occurrence',
  'partial_save_subitem_occurrence',
];
const NOTES_TABLE_COLUMNS = [
  'case_guid',
  'operator_id',
  'field_name',
  'level_key',
  'record_occurrence',
  'item_occurrence',
  'subitem_occurrence',
  'content',
  'modified_time',
];
const BINARY_TABLE_COLUMNS = ['case_guid', 'binary_data_signature'];

/** The name of the database the connection is in (the one `--from` named). */
export async function currentDatabase(conn: Connection): Promise<string> {
  return (await conn.query<RowDataPacket[]>('SELECT DATABASE() AS d'))[0][0]!.d as string;
}

/** What the schema check learnt about the source. */
export interface CswebSource {
  schemaVersion: number;
  /** CSWeb's own device id in vector clocks (cspro_config server_device_id), lower case. */
  serverDeviceId: string;
  database: string;
}

async function columnsOf(conn: Connection): Promise<Map<string, Set<string>>> {
  const [rows] = await conn.query<RowDataPacket[]>(
    'SELECT TABLE_NAME AS t, COLUMN_NAME AS c FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()',
  );
  const out = new Map<string, Set<string>>();
  for (const r of rows) {
    const t = String(r.t);
    if (!out.has(t)) out.set(t, new Set());
    out.get(t)!.add(String(r.c).toLowerCase());
  }
  return out;
}

function missingOf(tables: Map<string, Set<string>>, table: string, columns: string[]): string[] {
  const have = tables.get(table);
  if (!have) return [table];
  return columns.filter((c) => !have.has(c)).map((c) => `${table}.${c}`);
}

/** The schema version cspro_config holds, as text; undefined when the table or row is not there to read. */
async function schemaVersionText(conn: Connection, tables: Map<string, Set<string>>): Promise<string | undefined> {
  const config = tables.get('cspro_config');
  if (!config?.has('name') || !config.has('value')) return undefined;
  const [rows] = await conn.query<RowDataPacket[]>("SELECT value FROM cspro_config WHERE name = 'schema_version'");
  return rows[0]?.value as string | undefined;
}

/**
 * Checks the fixed tables and the version, and returns CSWeb's server device id. Throws
 * CSWEB_NOT_A_CSWEB_DATABASE when none of CSWeb's tables are there; CSWEB_SCHEMA_TOO_OLD for a
 * version below the known one, whatever else that older layout lacks (the version says why it
 * lacks it); CSWEB_SCHEMA_UNKNOWN for another version or a missing table or column (details:
 * missing).
 */
export async function checkCswebSchema(conn: Connection, database: string): Promise<CswebSource> {
  const tables = await columnsOf(conn);
  const missing = Object.entries(FIXED).flatMap(([t, cols]) => missingOf(tables, t, cols));
  if (!tables.has('cspro_config') && !tables.has('cspro_dictionaries')) {
    throw new AppError(
      'CSWEB_NOT_A_CSWEB_DATABASE',
      `database ${database} is not a CSWeb database: it has no ${missing.filter((m) => !m.includes('.')).join(', ')} table`,
      { database, missing },
    );
  }
  const versionText = await schemaVersionText(conn, tables);
  const version = versionText === undefined || versionText.trim() === '' ? undefined : Number(versionText);
  if (version !== undefined && Number.isFinite(version) && version < KNOWN_SCHEMA_VERSION) {
    throw new AppError(
      'CSWEB_SCHEMA_TOO_OLD',
      `database ${database}: CSWeb schema version ${version}; sds reads ${KNOWN_SCHEMA_VERSION} and later (the databases of CSWeb 8)`,
      { database, version, oldest: KNOWN_SCHEMA_VERSION, missing },
    );
  }
  if (missing.length > 0) {
    throw new AppError('CSWEB_SCHEMA_UNKNOWN', `database ${database} lacks what a CSWeb 8 database has: ${missing.join(', ')}`, {
      database,
      missing,
    });
  }
  if (version !== KNOWN_SCHEMA_VERSION) {
    throw new AppError(
      'CSWEB_SCHEMA_UNKNOWN',
      `database ${database} has CSWeb schema version ${versionText ?? '(none)'}; only version ${KNOWN_SCHEMA_VERSION} (CSWeb 8) is known`,
      { database, version: versionText ?? null, missing: [] },
    );
  }
  const [config] = await conn.query<RowDataPacket[]>("SELECT value FROM cspro_config WHERE name = 'server_device_id'");
  const deviceId = config[0]?.value as string | undefined;
  if (!deviceId) {
    throw new AppError('CSWEB_SCHEMA_UNKNOWN', `database ${database} has no server_device_id in cspro_config`, {
      database,
      missing: ['cspro_config server_device_id'],
    });
  }
  return { schemaVersion: version, serverDeviceId: deviceId.toLowerCase(), database };
}

/** Checks the three tables of one dictionary; returns what is missing (empty when all is there). */
export async function missingDictionaryTables(conn: Connection, name: string): Promise<string[]> {
  const tables = await columnsOf(conn);
  return [
    ...missingOf(tables, name, CASE_TABLE_COLUMNS),
    ...missingOf(tables, `${name}_notes`, NOTES_TABLE_COLUMNS),
    ...missingOf(tables, `${name}_case_binary_data`, BINARY_TABLE_COLUMNS),
  ];
}
