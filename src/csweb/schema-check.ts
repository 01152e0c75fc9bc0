/**
 * Refuses a database that is not CSWeb 8.0's or 8.1's (docs/migrating-from-csweb.md#what-is-checked):
 * the `cspro_config` version must be 7 or 8 and every table and column the import reads in that
 * version's layout (layout.ts) must be there, so a wrong database fails before anything is
 * written, naming what is missing, or the version when it is older or newer.
 */
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { AppError } from '../shared/errors.js';
import { CSWEB_80_LAYOUT, CSWEB_LAYOUTS, OLDEST_SCHEMA_VERSION, layoutOf, type CswebLayout } from './layout.js';

const KNOWN = CSWEB_LAYOUTS.map((l) => `${l.schemaVersion} (${l.release})`).join(' and ');

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
  /** Where this version keeps what the import reads. */
  layout: CswebLayout;
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

function missingOf(tables: Map<string, Set<string>>, table: string, columns: readonly string[]): string[] {
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
  if (!tables.has('cspro_config') && !tables.has('cspro_dictionaries')) {
    throw new AppError(
      'CSWEB_NOT_A_CSWEB_DATABASE',
      `database ${database} is not a CSWeb database: it has no cspro_config, cspro_dictionaries table`,
      {
        database,
        missing: ['cspro_config', 'cspro_dictionaries'],
      },
    );
  }
  const versionText = await schemaVersionText(conn, tables);
  const version = versionText === undefined || versionText.trim() === '' ? undefined : Number(versionText);
  // A version given picks its layout; none (or an unknown one) is checked against 8.0's, so what
  // is missing is named as before.
  const layout = layoutOf(version) ?? CSWEB_80_LAYOUT;
  const missing = Object.entries(layout.fixed).flatMap(([t, cols]) => missingOf(tables, t, cols));
  if (version !== undefined && Number.isFinite(version) && version < OLDEST_SCHEMA_VERSION) {
    throw new AppError(
      'CSWEB_SCHEMA_TOO_OLD',
      `database ${database}: CSWeb schema version ${version}; sds reads ${OLDEST_SCHEMA_VERSION} and later (the databases of CSWeb 8)`,
      { database, version, oldest: OLDEST_SCHEMA_VERSION, missing },
    );
  }
  // A version given that sds does not know is refused as such: its tables are not 8.0's or 8.1's.
  if (version !== undefined && layoutOf(version) === undefined) {
    throw new AppError(
      'CSWEB_SCHEMA_UNKNOWN',
      `database ${database} has CSWeb schema version ${versionText ?? '(none)'}; sds knows versions ${KNOWN}`,
      { database, version: versionText ?? null, missing: [] },
    );
  }
  if (missing.length > 0) {
    throw new AppError('CSWEB_SCHEMA_UNKNOWN', `database ${database} lacks what a ${layout.release} database has: ${missing.join(', ')}`, {
      database,
      missing,
    });
  }
  if (version === undefined) {
    throw new AppError('CSWEB_SCHEMA_UNKNOWN', `database ${database} has no CSWeb schema version; sds knows versions ${KNOWN}`, {
      database,
      version: null,
      missing: [],
    });
  }
  const [config] = await conn.query<RowDataPacket[]>("SELECT value FROM cspro_config WHERE name = 'server_device_id'");
  const deviceId = config[0]?.value as string | undefined;
  if (!deviceId) {
    throw new AppError('CSWEB_SCHEMA_UNKNOWN', `database ${database} has no server_device_id in cspro_config`, {
      database,
      missing: ['cspro_config server_device_id'],
    });
  }
  return { schemaVersion: layout.schemaVersion, serverDeviceId: deviceId.toLowerCase(), database, layout };
}

/** Checks the tables of one dictionary (named as its case table is); returns what is missing (empty when all is there). */
export async function missingDictionaryTables(conn: Connection, table: string, layout: CswebLayout): Promise<string[]> {
  const tables = await columnsOf(conn);
  return [
    ...missingOf(tables, table, layout.caseColumns),
    ...(layout.notesColumns === null ? [] : missingOf(tables, `${table}_notes`, layout.notesColumns)),
    ...missingOf(tables, `${table}_case_binary_data`, layout.binaryColumns),
  ];
}
