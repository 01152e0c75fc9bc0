/**
 * A target password is hidden where a driver message writes one (a URL's password part, a
 * connection option) and never searched for as text: a one-letter or common-word password must
 * leave the rest of a message as it is (issue 27, item 3; docs/breakout.md#targets).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maskPasswords } from '../../../src/breakout/dialects/mask-passwords.js';
import * as mysql from '../../../src/breakout/dialects/mysql/errors.js';
import * as pg from '../../../src/breakout/dialects/postgresql/errors.js';
import * as mssql from '../../../src/breakout/dialects/sqlserver/errors.js';
import type { ResolvedTarget } from '../../../src/breakout/dialects/target-config.js';

/** Passwords that are letters or words of every driver message. */
const PASSWORDS = ['e', 'the', 'postgres', 'password', 'user', 'a'];

function target(password: string, user = 'postgres'): ResolvedTarget {
  return {
    host: '127.0.0.1',
    port: 5432,
    database: 'census',
    user,
    password,
    file: '',
    params: {},
    tls: { mode: 'disable' },
    label: '127.0.0.1:5432/census',
  };
}

const err = (fields: Record<string, unknown>, message: string): Error => Object.assign(new Error(message), fields);

test('the password part of a URL is masked, whatever the scheme; a URL without a password is left as it is', () => {
  assert.equal(
    maskPasswords('at postgresql://ana:e@db:5432/census?sslmode=require'),
    'at postgresql://ana:***@db:5432/census?sslmode=require',
  );
  // An unencoded @ inside the password: hidden up to the host.
  assert.equal(maskPasswords('mysql://root:p@ss@db/x failed'), 'mysql://root:***@db/x failed');
  assert.equal(maskPasswords('mssql://sa:the@127.0.0.1:1433/master'), 'mssql://sa:***@127.0.0.1:1433/master');
  assert.equal(maskPasswords('postgres://u:%40e@h/d'), 'postgres://u:***@h/d');
  for (const plain of ['postgresql://ana@db:5432/census', 'mysql://db:3306/census', 'see http://h:8080/path@x for the password']) {
    assert.equal(maskPasswords(plain), plain);
  }
});

test('the value of a password option is masked: libpq, ODBC, URL query, JSON', () => {
  assert.equal(maskPasswords('host=db password=e dbname=census'), 'host=db password=*** dbname=census');
  assert.equal(maskPasswords("host=db password = 'the pw' dbname=census"), "host=db password = '***' dbname=census");
  assert.equal(maskPasswords('Server=db;UID=sa;PWD={a;b};Database=x'), 'Server=db;UID=sa;PWD={***};Database=x');
  assert.equal(maskPasswords('Server=db;Password=postgres;Encrypt=true'), 'Server=db;Password=***;Encrypt=true');
  assert.equal(maskPasswords('?user=ana&password=e&sslmode=disable'), '?user=ana&password=***&sslmode=disable');
  assert.equal(maskPasswords('{"user":"ana","password":"the"}'), '{"user":"ana","password":"***"}');
  assert.equal(maskPasswords('db_password=e, next'), 'db_password=***, next');
});

test('the password is never searched for as text: one-letter and common-word passwords leave messages whole', () => {
  const messages = [
    'password authentication failed for user "postgres"',
    'role "the_user" does not exist',
    "Access denied for user 'user'@'127.0.0.1' (using password: YES)",
    "Login failed for user 'sa'.",
  ];
  for (const m of messages) assert.equal(maskPasswords(m), m);
});

test('driver errors of each dialect keep their whole message with any password of the target', () => {
  for (const password of PASSWORDS) {
    const p = pg.connectError(err({ code: '28P01' }, 'password authentication failed for user "postgres"'), target(password));
    assert.equal(
      p.message,
      `PostgreSQL at 127.0.0.1:5432/census refused the login of user 'postgres': password authentication failed for user "postgres"`,
      `password ${password}`,
    );
    const m = mysql.connectError(
      err({ errno: 1045, code: 'ER_ACCESS_DENIED_ERROR' }, "Access denied for user 'user'@'127.0.0.1' (using password: YES)"),
      target(password, 'user'),
    );
    assert.equal(
      m.message,
      `MySQL/MariaDB at 127.0.0.1:5432/census refused the login of user 'user': Access denied for user 'user'@'127.0.0.1' (using password: YES)`,
      `password ${password}`,
    );
    const s = mssql.connectError(err({ code: 'ELOGIN', number: 18456 }, "Login failed for user 'sa'."), target(password, 'sa'));
    assert.equal(s.message, `SQL Server at 127.0.0.1:5432/census refused the login of user 'sa': Login failed for user 'sa'.`);
  }
});

test('a driver message that echoes a connection string has its password masked, and only that', () => {
  const e = pg.connectError(
    err({ code: 'ENOTFOUND' }, 'getaddrinfo ENOTFOUND for postgresql://postgres:the@nohost:5432/census'),
    target('the'),
  );
  assert.equal(
    e.message,
    'cannot connect to PostgreSQL at 127.0.0.1:5432/census: getaddrinfo ENOTFOUND for postgresql://postgres:***@nohost:5432/census',
  );
});
