/** Driver errors -> DB-00x codes, per driver, from the error shapes each driver produces. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../../src/shared/errors.js';
import { loadDriver } from '../../../src/breakout/dialects/driver-loader.js';
import * as mysql from '../../../src/breakout/dialects/mysql/errors.js';
import * as pg from '../../../src/breakout/dialects/postgresql/errors.js';
import * as sqlite from '../../../src/breakout/dialects/sqlite/errors.js';
import * as mssql from '../../../src/breakout/dialects/sqlserver/errors.js';
import type { ResolvedTarget } from '../../../src/breakout/dialects/target-config.js';

const target: ResolvedTarget = {
  host: 'db.example',
  port: 5432,
  database: 'census',
  user: 'ana',
  password: 'hunter2-secret',
  file: '',
  params: {},
  tls: { mode: 'disable' },
  label: 'db.example:5432/census',
};

function err(fields: Record<string, unknown>, message = 'driver says no'): Error {
  return Object.assign(new Error(message), fields);
}

test('pg: socket codes, SQLSTATEs 28P01/28000, 3D000, 53300, 57P03', () => {
  const refused = new AggregateError([err({ code: 'ECONNREFUSED' }), err({ code: 'ECONNREFUSED' })], 'connect failed');
  assert.equal(pg.connectError(refused, target).code, 'DB-001');
  assert.equal(pg.connectError(err({ code: 'ENOTFOUND' }), target).code, 'DB-001');
  assert.equal(pg.connectError(err({ code: '57P03' }), target).code, 'DB-001');
  assert.equal(pg.connectError(err({ code: '28P01' }), target).code, 'DB-002');
  assert.equal(pg.connectError(err({ code: '28000' }), target).code, 'DB-002');
  assert.equal(pg.connectError(err({ code: '3D000' }), target).code, 'DB-003');
  assert.equal(pg.connectError(err({ code: '53300' }), target).code, 'DB-005');
  assert.equal(pg.connectError(err({ code: 'XX000' }), target).code, 'DB_CONNECTION_ERROR');
  // A SQL error of a statement is not a connection problem and passes through.
  const syntax = err({ code: '42601' });
  assert.equal(pg.queryError(syntax, target), syntax);
});

test('mysql2: socket codes, errno 1045/1044/1698, 1049, 1040/1203/1226', () => {
  assert.equal(mysql.connectError(err({ code: 'ECONNREFUSED', errno: -111 }), target).code, 'DB-001');
  assert.equal(mysql.connectError(err({ code: 'ETIMEDOUT' }), target).code, 'DB-001');
  for (const errno of [1045, 1044, 1698]) assert.equal(mysql.connectError(err({ errno }), target).code, 'DB-002');
  assert.equal(mysql.connectError(err({ errno: 1049, code: 'ER_BAD_DB_ERROR' }), target).code, 'DB-003');
  for (const errno of [1040, 1203, 1226]) assert.equal(mysql.connectError(err({ errno }), target).code, 'DB-005');
  assert.equal(mysql.isLocalInfileRefused(err({ errno: 4166 })), true);
  assert.equal(mysql.isLocalInfileRefused(err({ errno: 1148 })), true);
  assert.equal(mysql.isLocalInfileRefused(err({ errno: 1062 })), false);
});

test('tedious: ESOCKET/ETIMEOUT, ELOGIN with the server error number or message', () => {
  assert.equal(mssql.connectError(err({ code: 'ESOCKET' }, 'Failed to connect to h:1433 - connect ECONNREFUSED'), target).code, 'DB-001');
  assert.equal(mssql.connectError(err({ code: 'ETIMEOUT' }), target).code, 'DB-001');
  assert.equal(mssql.connectError(err({ code: 'ELOGIN', number: 18456 }, "Login failed for user 'ana'."), target).code, 'DB-002');
  assert.equal(mssql.connectError(err({ code: 'ELOGIN' }, "Login failed for user 'ana'."), target).code, 'DB-002');
  assert.equal(
    mssql.connectError(err({ code: 'ELOGIN', number: 4060 }, 'Cannot open database "census" requested by the login.'), target).code,
    'DB-003',
  );
  assert.equal(mssql.connectError(err({ code: 'ELOGIN' }, 'Cannot open database "census" requested by the login.'), target).code, 'DB-003');
  assert.equal(mssql.connectError(err({ code: 'ELOGIN', number: 17809 }), target).code, 'DB-005');
});

test('better-sqlite3: a file that cannot be opened or is no database -> DB-003', () => {
  assert.equal(sqlite.connectError(err({ code: 'SQLITE_CANTOPEN' }), target).code, 'DB-003');
  assert.equal(sqlite.connectError(err({ code: 'SQLITE_NOTADB' }), target).code, 'DB-003');
  assert.equal(sqlite.connectError(err({ code: 'SQLITE_BUSY' }), target).code, 'DB_CONNECTION_ERROR');
});

test('messages name host:port/database and the user, never the password', () => {
  // A driver echoing a connection string: its password part is masked (mask-passwords.ts).
  const e = pg.connectError(
    err({ code: '28P01' }, 'password authentication failed (postgresql://ana:hunter2-secret@db.example/census)'),
    target,
  );
  assert.ok(e instanceof AppError);
  assert.match(e.message, /db\.example:5432\/census/);
  assert.match(e.message, /'ana'/);
  assert.ok(!e.message.includes('hunter2-secret'));
  assert.ok(!JSON.stringify(e.details).includes('hunter2-secret'));
  assert.deepEqual(e.details, { target: 'db.example:5432/census', driverCode: '28P01' });
});

test('a driver module that cannot be loaded -> DB-004 naming the module', async () => {
  await assert.rejects(
    loadDriver('no-such-driver', () => import('no-such-driver-module-for-sds' as string)),
    (e: unknown) => e instanceof AppError && e.code === 'DB-004' && /'no-such-driver'/.test(e.message),
  );
  assert.equal(await loadDriver('ok', async () => 42), 42);
});
