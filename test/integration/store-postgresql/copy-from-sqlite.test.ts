/**
 * The copy of `sds store copy` keeps every kind of value SQLite holds (docs/decisions.md, "Moving
 * a home to PostgreSQL"): texts with quotes, commas, line breaks, backslashes and emoji through
 * COPY's CSV, an empty text apart from NULL, U+0000 as U+FFFD, whole numbers past 2^53, doubles
 * of every magnitude, blobs of every byte, duplicate rows of a table without a key; and the
 * checksums tell NULL from an empty text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { initHome } from '../../../src/core/home/index.js';
import { compareStores, copyStore, openSqliteExclusive, openSqliteSnapshot } from '../../../src/store/postgresql/move-store.js';
import { tempDir } from '../../helpers/temp-home.js';
import { createPgStoreDatabase } from './pg-store-helpers.js';

const TEXTS: Record<string, string> = {
  quotes: 'a "quoted", comma\nnew line\r\n\\back\\slash \\x41 \\N ∑ 😀',
  empty: '',
  comma: ',',
  quote: '"',
  nul: 'a\u0000b',
};
const DOUBLES: Record<string, number> = { tiny: 1e-7, tenth: 0.1, huge: 1e21, long: 123456789.12345679, negative: -2.5, third: 1 / 3 };
const BIG = 9007199254740993n; // 2^53 + 1: not a double

test('a copy keeps texts, NULLs, big integers, doubles and blobs exactly; the checksums see a NULL made empty', async () => {
  const home = tempDir();
  const pgdb = await createPgStoreDatabase();
  try {
    await initHome(home);
    const d = new Database(home.db);
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    d.prepare(
      `INSERT INTO dictionaries (name, label, version, source, source_format, model, created_at, updated_at)
       VALUES ('BYTES', 'b', '8.0', ?, 'text', '{}', 't', 't')`,
    ).run(bytes);
    const setting = d.prepare('INSERT INTO settings (name, value) VALUES (?, ?)');
    for (const [k, v] of Object.entries(TEXTS)) setting.run(k, v);
    const counter = d.prepare(`INSERT INTO metric_counters (name, label, value) VALUES (?, '', ?)`);
    for (const [k, v] of Object.entries(DOUBLES)) counter.run(k, v);
    const hit = d.prepare('INSERT INTO rate_limit_hits (key, at_ms) VALUES (?, ?)');
    hit.run('big', BIG);
    hit.run('twice', 1);
    hit.run('twice', 1);
    d.prepare(
      `INSERT INTO users (username, role, password_hash, created_at, updated_at, last_login_at, uuid) VALUES ('u', 'API', 'h', 't', 't', NULL, 'x')`,
    ).run();
    d.close();

    const source = openSqliteExclusive(home);
    let copied;
    try {
      copied = await copyStore(source, pgdb.database.config.url!, 'test');
    } finally {
      source.close();
    }
    assert.deepEqual(
      copied.tables.filter((t) => !t.equal),
      [],
    );
    assert.equal(copied.tables.find((t) => t.table === 'rate_limit_hits')?.postgresql_rows, 3, 'duplicate rows are rows');

    const c = await pgdb.connect();
    const settings = Object.fromEntries(
      (await c.query<{ name: string; value: string }>('SELECT name, value FROM settings')).rows.map((r) => [r.name, r.value]),
    );
    assert.deepEqual(settings, { ...TEXTS, nul: 'a\ufffdb' });
    const doubles = Object.fromEntries(
      (await c.query<{ name: string; value: number }>(`SELECT name, value FROM metric_counters WHERE name NOT LIKE 'breakout%'`)).rows.map(
        (r) => [r.name, r.value],
      ),
    );
    assert.deepEqual(doubles, DOUBLES);
    const big = await c.query<{ at: string }>(`SELECT at_ms::text AS at FROM rate_limit_hits WHERE key = 'big'`);
    assert.equal(big.rows[0]?.at, BIG.toString());
    const blob = await c.query<{ source: Buffer }>(`SELECT source FROM dictionaries WHERE name = 'BYTES'`);
    assert.deepEqual(blob.rows[0]?.source, bytes);
    const user = await c.query<{ last_login_at: string | null }>(`SELECT last_login_at FROM users`);
    assert.equal(user.rows[0]?.last_login_at, null);

    // NULL and an empty text are different rows to the checksum.
    await c.query(`UPDATE users SET last_login_at = ''`);
    const snapshot = openSqliteSnapshot(home);
    try {
      const compared = await compareStores(snapshot, pgdb.database.config.url!, 'test');
      assert.deepEqual(
        compared.tables.filter((t) => !t.equal).map((t) => t.table),
        ['users'],
      );
    } finally {
      snapshot.close();
    }
  } finally {
    home.cleanup();
    await pgdb.drop();
  }
});
