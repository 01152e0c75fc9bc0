/** SQLite target: the shared suite on a temporary file, plus how opening failures map to codes. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { AppError } from '../../../src/shared/errors.js';
import { getDialect } from '../../../src/breakout/dialects/index.js';
import { createSqliteFile } from '../../helpers/test-databases.js';
import { describeTargetSuite, oddText, oddTextRows } from './dialect-suite.js';

describeTargetSuite('sqlite', async () => createSqliteFile());

test('sqlite: a path under a regular file cannot be opened -> DB-003', async () => {
  const db = createSqliteFile();
  try {
    writeFileSync(db.name, 'not a directory');
    await assert.rejects(getDialect('sqlite').connect({ type: 'sqlite', file: `${db.name}/inside.sqlite` }), (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.equal(err.code, 'DB-003');
      return true;
    });
  } finally {
    await db.drop();
  }
});

test('sqlite: a file that is not a database -> DB-003', async () => {
  const db = createSqliteFile();
  try {
    writeFileSync(db.name, 'this is not a SQLite database, just some text long enough to have a header....'.repeat(20));
    await assert.rejects(
      (async () => {
        const s = await getDialect('sqlite').connect(db.config);
        await s.close();
      })(),
      (err: unknown) => err instanceof AppError && err.code === 'DB-003',
    );
  } finally {
    await db.drop();
  }
});

test('sqlite: a target with lone surrogates and NUL in alpha values is valid UTF-8 for other readers (Python sqlite3)', async () => {
  const db = createSqliteFile();
  try {
    const session = await getDialect('sqlite').connect(db.config);
    const rows = oddTextRows();
    try {
      await session.createTables([oddText]);
      await session.bulkLoad(oddText, rows.input);
    } finally {
      await session.close();
    }
    // Python's sqlite3 decodes TEXT as strict UTF-8: invalid bytes raise OperationalError
    // ("Could not decode to UTF-8 column"), as the rows of a raw lone surrogate did.
    const script = [
      'import json, sqlite3, sys',
      'c = sqlite3.connect(sys.argv[1])',
      `rows = c.execute('SELECT occ, alpha, long_alpha, hex(alpha) FROM ${oddText.name} ORDER BY occ').fetchall()`,
      'print(json.dumps(rows))',
    ].join('\n');
    const out = JSON.parse(execFileSync('python3', ['-c', script, db.name], { encoding: 'utf8' })) as [number, string, string, string][];
    assert.deepEqual(
      out.map((r) => r.slice(0, 3)),
      rows.expected.map((r) => r.slice(1)),
    );
    // The bytes themselves: U+FFFD is EF BF BD, and no 00 byte is stored.
    assert.equal(out[0]![3], Buffer.from('a\uFFFDb').toString('hex').toUpperCase());
    for (const r of out) assert.doesNotMatch(r[3], /^(?:..)*00/);
  } finally {
    await db.drop();
  }
});

test('sqlite: a target connection commits without fsync (synchronous = NORMAL in WAL mode); makeDurable fsyncs the WAL (docs/durability.md)', async () => {
  const db = createSqliteFile();
  try {
    const session = await getDialect('sqlite').connect(db.config);
    try {
      // Read back on the session's own connection: the setting belongs to the connection.
      const read = (session as unknown as { rows(sql: string): Promise<unknown[][]> }).rows.bind(session);
      assert.deepEqual(await read('PRAGMA synchronous'), [[1n]]);
      assert.deepEqual(await read('PRAGMA journal_mode'), [['wal']]);
      await session.createTables([oddText]);
      // The WAL the breakout fsyncs is the one SQLite writes: it exists next to the file.
      assert.ok(existsSync(`${db.name}-wal`));
      await session.makeDurable();
    } finally {
      await session.close();
    }
  } finally {
    await db.drop();
  }
});

test('sqlite: a target opened through a symbolic link fsyncs the WAL SQLite writes, next to the real file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sds-sqlite-link-'));
  try {
    mkdirSync(join(dir, 'real'));
    mkdirSync(join(dir, 'link'));
    const real = join(dir, 'real', 't.sqlite');
    const link = join(dir, 'link', 't.sqlite');
    const first = await getDialect('sqlite').connect({ type: 'sqlite', file: real });
    await first.close();
    symlinkSync(real, link);
    const session = await getDialect('sqlite').connect({ type: 'sqlite', file: link });
    try {
      await session.createTables([oddText]);
      // SQLite resolves the link: the WAL is beside the real file, none beside the link, and
      // makeDurable (which fails on a missing WAL) finds it.
      assert.ok(existsSync(`${real}-wal`));
      assert.ok(!existsSync(`${link}-wal`));
      await session.makeDurable();
    } finally {
      await session.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
