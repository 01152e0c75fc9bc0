/**
 * The PostgreSQL store's schema matches the SQLite store's, table by table: a SQLite database
 * built by applying src/store/migrations/*.sql with better-sqlite3 against a PostgreSQL database
 * migrated with src/store/migrations/postgresql/. A migration written for one store only fails
 * here (docs/decisions.md, "One set of migrations per store database").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Database } from 'better-sqlite3';
import type pg from 'pg';
import { migratePostgres, postgresVersion } from '../../../src/store/postgresql/migrate.js';
import { createPgStoreDatabase, sqliteAtLatest } from './pg-store-helpers.js';

/** What both stores must agree on for one table. */
interface TableShape {
  /** `name` plus ` NOT NULL` and ` DEFAULT` flags, in column order. */
  columns: string[];
  /** `name(col, …)` of the named indexes, `UNIQUE`/`WHERE` flagged; SQLite NOCASE reads lower(col). */
  indexes: string[];
  /** The primary key and the UNIQUE constraints, as column lists. */
  keys: string[];
  /** `(cols) -> table(cols) ON DELETE action`. */
  foreignKeys: string[];
  triggers: string[];
}

/**
 * Tables of one store only: SQLite's own, the version row of the PostgreSQL store, and the
 * PostgreSQL file store's (migration 0026: a SQLite store keeps its files in the home's folders).
 */
const OWN_TABLES = new Set(['sqlite_sequence', 'sds_schema', 'file_blobs', 'file_blob_chunks', 'file_entries']);

const columnShape = (name: string, notNull: boolean, hasDefault: boolean) =>
  `${name}${notNull ? ' NOT NULL' : ''}${hasDefault ? ' DEFAULT' : ''}`;
const indexShape = (name: string, unique: boolean, partial: boolean, cols: string[]) =>
  `${unique ? 'UNIQUE ' : ''}${name}(${cols.join(', ')})${partial ? ' WHERE' : ''}`;

function sqliteShapes(db: Database): Map<string, TableShape> {
  const shapes = new Map<string, TableShape>();
  const tables = db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`).all() as { name: string }[];
  for (const { name: table } of tables) {
    if (OWN_TABLES.has(table)) continue;
    const info = db.pragma(`table_info(${table})`) as { name: string; notnull: number; dflt_value: unknown; pk: number }[];
    const indexList = db.pragma(`index_list(${table})`) as { name: string; unique: number; origin: string; partial: number }[];
    const keyColumns = (index: string) =>
      (db.pragma(`index_xinfo(${index})`) as { name: string; key: number; coll: string }[])
        .filter((c) => c.key === 1)
        .map((c) => (c.coll === 'NOCASE' ? `lower(${c.name})` : c.name));
    const pk = info
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    const fks = db.pragma(`foreign_key_list(${table})`) as { id: number; table: string; from: string; to: string; on_delete: string }[];
    const fkIds = [...new Set(fks.map((f) => f.id))];
    shapes.set(table, {
      // A primary key column is NOT NULL on PostgreSQL; SQLite reports notnull 0 unless declared.
      columns: info.map((c) => columnShape(c.name, c.notnull === 1 || c.pk > 0, c.dflt_value !== null)),
      indexes: indexList
        .filter((i) => i.origin === 'c')
        .map((i) => indexShape(i.name, i.unique === 1, i.partial === 1, keyColumns(i.name)))
        .sort(),
      keys: [
        ...(pk.length > 0 ? [`PRIMARY KEY (${pk.join(', ')})`] : []),
        ...indexList.filter((i) => i.origin === 'u').map((i) => `UNIQUE (${keyColumns(i.name).join(', ')})`),
      ].sort(),
      foreignKeys: fkIds
        .map((id) => {
          const parts = fks.filter((f) => f.id === id);
          const onDelete = parts[0]!.on_delete;
          return `(${parts.map((f) => f.from).join(', ')}) -> ${parts[0]!.table}(${parts.map((f) => f.to).join(', ')}) ON DELETE ${onDelete}`;
        })
        .sort(),
      triggers: (
        db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ? ORDER BY name`).all(table) as { name: string }[]
      )
        .map((r) => r.name)
        .sort(),
    });
  }
  return shapes;
}

const ON_DELETE: Record<string, string> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' };

async function postgresShapes(client: pg.Client): Promise<Map<string, TableShape>> {
  const rows = async <T extends object>(sql: string, params: unknown[] = []) => (await client.query<T>(sql, params)).rows;
  const shapes = new Map<string, TableShape>();
  const tables = await rows<{ oid: number; name: string }>(
    `SELECT oid::integer AS oid, relname AS name FROM pg_class WHERE relkind = 'r' AND relnamespace = current_schema()::regnamespace ORDER BY relname`,
  );
  for (const { oid, name: table } of tables) {
    if (OWN_TABLES.has(table)) continue;
    const columns = await rows<{ name: string; notnull: boolean; hasdef: boolean }>(
      `SELECT attname AS name, attnotnull AS notnull, atthasdef AS hasdef FROM pg_attribute
        WHERE attrelid = $1 AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
      [oid],
    );
    // Indexes that back a primary key or UNIQUE constraint are SQLite's autoindexes: compared as keys.
    const indexes = await rows<{ name: string; unique: boolean; partial: boolean; cols: string[] }>(
      `SELECT c.relname AS name, i.indisunique AS unique, i.indpred IS NOT NULL AS partial,
              array(SELECT pg_get_indexdef(i.indexrelid, k, true) FROM generate_series(1, i.indnkeyatts) AS k) AS cols
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid = $1
          AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.conrelid = $1 AND k.contype IN ('p', 'u'))`,
      [oid],
    );
    const constraints = await rows<{ type: string; cols: string[]; ftable: string | null; fcols: string[] | null; ondelete: string }>(
      `SELECT contype AS type,
              array(SELECT attname::text FROM unnest(conkey) WITH ORDINALITY AS k(n, o) JOIN pg_attribute a ON a.attrelid = conrelid AND a.attnum = k.n ORDER BY o) AS cols,
              confrelid::regclass::text AS ftable,
              array(SELECT attname::text FROM unnest(confkey) WITH ORDINALITY AS k(n, o) JOIN pg_attribute a ON a.attrelid = confrelid AND a.attnum = k.n ORDER BY o) AS fcols,
              confdeltype AS ondelete
         FROM pg_constraint WHERE conrelid = $1 AND contype IN ('p', 'u', 'f')`,
      [oid],
    );
    const triggers = await rows<{ name: string }>(`SELECT tgname AS name FROM pg_trigger WHERE tgrelid = $1 AND NOT tgisinternal`, [oid]);
    shapes.set(table, {
      columns: columns.map((c) => columnShape(c.name, c.notnull, c.hasdef)),
      // pg_get_indexdef quotes a column named by a keyword ("position").
      indexes: indexes
        .map((i) =>
          indexShape(
            i.name,
            i.unique,
            i.partial,
            i.cols.map((c) => c.replaceAll(`"`, ``)),
          ),
        )
        .sort(),
      keys: constraints
        .filter((c) => c.type !== 'f')
        .map((c) => `${c.type === 'p' ? 'PRIMARY KEY' : 'UNIQUE'} (${c.cols.join(', ')})`)
        .sort(),
      foreignKeys: constraints
        .filter((c) => c.type === 'f')
        .map((c) => `(${c.cols.join(', ')}) -> ${c.ftable}(${c.fcols!.join(', ')}) ON DELETE ${ON_DELETE[c.ondelete]}`)
        .sort(),
      triggers: triggers.map((r) => r.name).sort(),
    });
  }
  return shapes;
}

test('the PostgreSQL schema has the tables, columns, indexes, keys and triggers of the SQLite schema', async (t) => {
  const db = await createPgStoreDatabase();
  t.after(() => db.drop());
  const client = await db.connect();
  await migratePostgres(client);
  const sqlite = sqliteAtLatest();
  t.after(() => sqlite.close());

  assert.equal(await postgresVersion(client), sqlite.pragma('user_version', { simple: true }), 'both sets end at the same version');
  const pgShapes = await postgresShapes(client);
  const sqliteShapesByTable = sqliteShapes(sqlite);
  assert.deepEqual([...pgShapes.keys()].sort(), [...sqliteShapesByTable.keys()].sort(), 'the same tables');
  for (const [table, shape] of sqliteShapesByTable) {
    assert.deepEqual(pgShapes.get(table), shape, `table ${table}`);
  }
});

test('every text column of the PostgreSQL store compares byte-wise (COLLATE "C"), as SQLite does', async (t) => {
  const db = await createPgStoreDatabase();
  t.after(() => db.drop());
  const client = await db.connect();
  await migratePostgres(client);
  const other = await client.query<{ column: string; collation: string | null }>(
    `SELECT c.relname || '.' || a.attname AS column, co.collname AS collation
       FROM pg_attribute a
       JOIN pg_class c ON c.oid = a.attrelid AND c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace
       LEFT JOIN pg_collation co ON co.oid = a.attcollation
      WHERE a.attnum > 0 AND NOT a.attisdropped AND a.attcollation <> 0 AND co.collname IS DISTINCT FROM 'C'
      ORDER BY 1`,
  );
  assert.deepEqual(other.rows, []);
});

test('a new store holds the same rows on both databases', async (t) => {
  const db = await createPgStoreDatabase();
  t.after(() => db.drop());
  const client = await db.connect();
  await migratePostgres(client);
  const sqlite = sqliteAtLatest();
  t.after(() => sqlite.close());

  for (const table of sqliteShapes(sqlite).keys()) {
    const sqliteRows = (sqlite.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all() as object[]).map((r) => ({ ...r }));
    const pgRows = (await client.query(`SELECT * FROM ${table} ORDER BY 1, 2`)).rows.map((r: object) => ({ ...r }));
    assert.deepEqual(pgRows, sqliteRows, `rows of ${table}`);
  }
});
