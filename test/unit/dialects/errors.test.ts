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
  // An error that did not come from the server (no severity) is not the target's and passes through.
  const ours = err({ code: '42601' });
  assert.equal(pg.queryError(ours, target), ours);
});

const server = (fields: Record<string, unknown>, message: string): Error => err({ severity: 'ERROR', ...fields }, message);

test('pg statements: 3F000 and 42501 are INSUFFICIENT_PERMISSIONS saying what to grant; any other SQLSTATE is TARGET_DATABASE_ERROR', () => {
  const noSchema = pg.queryError(server({ code: '3F000' }, 'no schema has been selected to create in'), target) as AppError;
  assert.equal(noSchema.code, 'INSUFFICIENT_PERMISSIONS');
  assert.equal(
    noSchema.message,
    "PostgreSQL at db.example:5432/census refused user 'ana' for lack of rights: no schema has been selected to create in; " +
      'the user has no schema to create tables in: grant it USAGE and CREATE on one (GRANT USAGE, CREATE ON SCHEMA public TO "ana") ' +
      'or set its search_path to a schema where it has them (ALTER ROLE "ana" SET search_path = that_schema)',
  );
  assert.deepEqual(noSchema.details, { target: 'db.example:5432/census', driverCode: '3F000' });
  const denied = pg.queryError(server({ code: '42501' }, 'permission denied for schema public'), target) as AppError;
  assert.equal(denied.code, 'INSUFFICIENT_PERMISSIONS');
  assert.match(denied.message, /lack of rights: permission denied for schema public; grant the user the right named/);

  for (const [code, message] of [
    ['25006', 'cannot execute CREATE TABLE in a read-only transaction'],
    ['53100', 'could not extend file: No space left on device'],
    ['XX000', 'internal error of the server'],
  ] as const) {
    const e = pg.queryError(server({ code }, message), target) as AppError;
    assert.ok(e instanceof AppError, code);
    assert.equal(e.code, 'TARGET_DATABASE_ERROR');
    assert.equal(e.message, `PostgreSQL at db.example:5432/census answered a statement with SQLSTATE ${code}: ${message}`);
    assert.deepEqual(e.details, { target: 'db.example:5432/census', driverCode: code });
  }
  // A connection lost during a statement (pg gives it no code) is DB-001.
  assert.equal((pg.queryError(new Error('Connection terminated unexpectedly'), target) as AppError).code, 'DB-001');
});

test('mysql2, tedious and better-sqlite3 statements: an unmapped error of the server is TARGET_DATABASE_ERROR with its own code', () => {
  const my = mysql.queryError(
    err({ errno: 1644, code: 'ER_SIGNAL_EXCEPTION', sqlState: '45000' }, 'the census archive is frozen'),
    target,
  ) as AppError;
  assert.equal(my.code, 'TARGET_DATABASE_ERROR');
  assert.equal(
    my.message,
    'MySQL/MariaDB at db.example:5432/census answered a statement with error 1644 (ER_SIGNAL_EXCEPTION): the census archive is frozen',
  );
  assert.deepEqual(my.details, { target: 'db.example:5432/census', driverCode: 'ER_SIGNAL_EXCEPTION', errno: 1644, sqlState: '45000' });
  // A right the statement lacks keeps its code, with the server's numbers.
  const denied = mysql.queryError(
    err({ errno: 1142, code: 'ER_TABLEACCESS_DENIED_ERROR', sqlState: '42000' }, 'CREATE command denied'),
    target,
  );
  assert.equal((denied as AppError).code, 'INSUFFICIENT_PERMISSIONS');
  assert.equal((denied as AppError).details.errno, 1142);
  // mysql2's own errors (no SQLSTATE from a server) are not the target's.
  const ours = err({ code: 'ER_PARSE_SOMETHING' });
  assert.equal(mysql.queryError(ours, target), ours);

  const ms = mssql.queryError(
    err({ code: 'EREQUEST', number: 9002 }, "The transaction log for database 'census' is full"),
    target,
  ) as AppError;
  assert.equal(ms.code, 'TARGET_DATABASE_ERROR');
  assert.match(ms.message, /^SQL Server at db\.example:5432\/census answered a statement with error 9002: The transaction log/);
  assert.deepEqual(ms.details, { target: 'db.example:5432/census', driverCode: 'EREQUEST', number: 9002 });
  assert.equal(
    (mssql.queryError(err({ code: 'EREQUEST', number: 911 }, 'Database does not exist'), target) as AppError).code,
    'TARGET_DATABASE_ERROR',
  );
  assert.equal(
    (mssql.queryError(err({ code: 'ECLOSE' }, 'Connection closed before request completed.'), target) as AppError).code,
    'DB-001',
  );
  assert.equal(
    (mssql.queryError(err({ code: 'EREQUEST', number: 262 }, 'CREATE TABLE permission denied'), target) as AppError).code,
    'INSUFFICIENT_PERMISSIONS',
  );

  const lite = sqlite.queryError(err({ code: 'SQLITE_FULL' }, 'database or disk is full'), target) as AppError;
  assert.equal(lite.code, 'TARGET_DATABASE_ERROR');
  assert.equal(lite.message, 'SQLite at db.example:5432/census answered a statement with SQLITE_FULL: database or disk is full');
  assert.deepEqual(lite.details, { target: 'db.example:5432/census', driverCode: 'SQLITE_FULL' });
  const plain = new TypeError('not a database error');
  assert.equal(sqlite.queryError(plain, target), plain);
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
