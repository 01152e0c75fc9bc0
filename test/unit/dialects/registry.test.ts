/** The dialect registry, capabilities, target configuration and the shared SQL builders. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../../src/shared/errors.js';
import { caseIdIndexName } from '../../../src/breakout/dialects/ddl-common.js';
import { DIALECT_NAMES, getDialect } from '../../../src/breakout/dialects/index.js';
import { deleteCaseRowsSql, insertSql, selectSql } from '../../../src/breakout/dialects/queries-common.js';
import { style as pgStyle } from '../../../src/breakout/dialects/postgresql/queries.js';
import { style as msStyle } from '../../../src/breakout/dialects/sqlserver/queries.js';
import { resolveTarget } from '../../../src/breakout/dialects/target-config.js';
import { notesTable } from './fixture.js';

test('getDialect returns each dialect by its exact name', () => {
  assert.deepEqual(DIALECT_NAMES, ['postgresql', 'mysql', 'sqlserver', 'sqlite']);
  for (const name of DIALECT_NAMES) assert.equal(getDialect(name).name, name);
});

test('getDialect refuses anything but the exact names with CONFIG_INVALID', () => {
  for (const bad of ['postgres', 'MySQL', 'mssql', '', '__proto__', 'toString']) {
    assert.throws(
      () => getDialect(bad),
      (err: unknown) => err instanceof AppError && err.code === 'CONFIG_INVALID',
      bad,
    );
  }
});

test('capabilities: identifier and parameter limits and bulk paths per database', () => {
  const caps = Object.fromEntries(DIALECT_NAMES.map((n) => [n, getDialect(n).capabilities]));
  assert.deepEqual(
    Object.fromEntries(Object.entries(caps).map(([n, c]) => [n, [c.maxIdentifierLength, c.maxBindParams, c.bulkPath, c.transactionalDdl]])),
    {
      postgresql: [63, 65_535, 'copy', true],
      mysql: [64, 65_535, 'load-data-local', false],
      sqlserver: [128, 2_100, 'tds-bulk', true],
      sqlite: [128, 32_766, 'prepared-insert', true],
    },
  );
});

test('resolveTarget merges URL and fields (fields win) and labels without the password', () => {
  const caps = getDialect('postgresql');
  const t = resolveTarget(
    { type: 'postgresql', url: 'postgresql://ana%40nso:p%40ss%2Fword@db.example:6543/census?sslmode=require' },
    caps,
    { user: 'postgres', database: 'postgres' },
  );
  assert.deepEqual(
    { ...t },
    {
      host: 'db.example',
      port: 6543,
      database: 'census',
      user: 'ana@nso',
      password: 'p@ss/word',
      file: '',
      params: {},
      tls: { mode: 'require' },
      label: 'db.example:6543/census',
    },
  );
  const f = resolveTarget({ type: 'postgresql', url: 'postgresql://u@h/db', database: 'other', port: 5433 }, caps, {
    user: 'postgres',
    database: 'postgres',
  });
  assert.equal(f.label, 'h:5433/other');
  const d = resolveTarget({ type: 'mysql' }, getDialect('mysql'), { user: 'root', database: '' });
  assert.equal(d.label, '127.0.0.1:3306/');
});

test('resolveTarget checks ports and SQLite files', () => {
  const caps = getDialect('postgresql');
  assert.throws(
    () => resolveTarget({ type: 'postgresql', port: 70_000 }, caps, { user: 'u', database: 'd' }),
    (e: unknown) => e instanceof AppError && e.code === 'CONFIG_INVALID',
  );
  assert.throws(() => resolveTarget({ type: 'sqlite' }, getDialect('sqlite'), { user: '', database: '' }), /needs a file/);
  assert.equal(
    resolveTarget({ type: 'sqlite', url: 'sqlite:///var/sds/t.db' }, getDialect('sqlite'), { user: '', database: '' }).file,
    '/var/sds/t.db',
  );
});

test('index names are shortened to the identifier limit with a hash, deterministically', () => {
  assert.equal(caseIdIndexName('p_notes', 63), 'p_notes_case_id_idx');
  const long = `p_${'x'.repeat(60)}`;
  const name = caseIdIndexName(long, 63);
  assert.equal(name.length, 63);
  assert.equal(name, caseIdIndexName(long, 63));
  assert.notEqual(name, caseIdIndexName(`${long}y`, 63));
});

test('shared DML builders: placeholders and row limits per dialect style', () => {
  assert.equal(insertSql(pgStyle, notesTable, 2), 'INSERT INTO "p_notes" ("case_id", "content") VALUES ($1, $2), ($3, $4)');
  assert.equal(deleteCaseRowsSql(msStyle, 'p_notes', 3), 'DELETE FROM [p_notes] WHERE [case_id] IN (@p0, @p1, @p2)');
  assert.deepEqual(selectSql(msStyle, notesTable, { where: { content: 'x' }, orderBy: [{ column: 'case_id', desc: true }], limit: 5 }), {
    sql: 'SELECT TOP (5) [case_id], [content] FROM [p_notes] WHERE [content] = @p0 ORDER BY [case_id] DESC',
    params: ['x'],
  });
  assert.equal(selectSql(pgStyle, notesTable, { limit: 1 }).sql, 'SELECT "case_id", "content" FROM "p_notes" LIMIT 1');
});
