/**
 * TLS against the real local servers, which scripts/ensure-databases.sh runs with TLS on and a
 * certificate for `localhost` only signed by a test CA (TLS_DIR): `localhost` is the right host
 * name and `127.0.0.1` a wrong one. Servers without TLS are started for the test
 * (plain-servers.ts). Every failure is DB_CONNECTION_ERROR naming TLS (docs/breakout.md, "TLS").
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { getDialect } from '../../../src/breakout/dialects/index.js';
import type { TargetConfig, TargetSession } from '../../../src/breakout/dialects/dialect.js';
import { AppError } from '../../../src/shared/errors.js';
import { startPlainMariadb, startPlainPostgres, type PlainServer } from '../../helpers/plain-servers.js';
import { testCaFile } from '../../helpers/test-databases.js';

const TLS_VERSION = /^TLSv1\.[23]$/;
let ca: string;
let plainPg: PlainServer;
let plainMaria: PlainServer;

before(async () => {
  ca = testCaFile();
  [plainPg, plainMaria] = await Promise.all([startPlainPostgres(), startPlainMariadb()]);
});

after(async () => {
  await Promise.all([plainPg?.stop(), plainMaria?.stop()]);
});

async function tlsOf(config: TargetConfig): Promise<string | null | undefined> {
  const session: TargetSession = await getDialect(config.type).connect({ connectTimeoutMs: 10_000, ...config });
  try {
    await session.serverVersion();
    return await session.tlsVersion();
  } finally {
    await session.close();
  }
}

async function refused(config: TargetConfig, message: RegExp, code = 'DB_CONNECTION_ERROR'): Promise<void> {
  await assert.rejects(tlsOf(config), (e: unknown) => {
    assert.ok(e instanceof AppError, String(e));
    assert.equal(e.code, code, e.message);
    assert.match(e.message, message);
    return true;
  });
}

const pg = (host: string, query: string, extra: Partial<TargetConfig> = {}): TargetConfig => ({
  type: 'postgresql',
  url: `postgresql://postgres@${host}:5432/postgres${query}`,
  ...extra,
});
const maria = (host: string, query: string, extra: Partial<TargetConfig> = {}): TargetConfig => ({
  type: 'mysql',
  url: `mysql://root@${host}:3306/mysql${query}`,
  ...extra,
});

test('PostgreSQL: no sslmode is plain; require and prefer negotiate TLS and report its version', async () => {
  assert.equal(await tlsOf(pg('127.0.0.1', '')), null);
  assert.equal(await tlsOf(pg('127.0.0.1', '?sslmode=disable')), null);
  assert.match(String(await tlsOf(pg('127.0.0.1', '?sslmode=require'))), TLS_VERSION);
  assert.match(String(await tlsOf(pg('127.0.0.1', '?sslmode=prefer'))), TLS_VERSION);
  // allow starts in plain and stays there when the server accepts it, as libpq does.
  assert.equal(await tlsOf(pg('127.0.0.1', '?sslmode=allow')), null);
});

test('PostgreSQL: verify-full with the CA passes on the right host name and fails on a wrong one', async () => {
  assert.match(String(await tlsOf(pg('localhost', `?sslmode=verify-full&sslrootcert=${ca}`))), TLS_VERSION);
  // The same through the --tls-* fields instead of the URL.
  assert.match(String(await tlsOf(pg('localhost', '', { tls: { mode: 'verify-full', ca } }))), TLS_VERSION);
  await refused(
    pg('127.0.0.1', `?sslmode=verify-full&sslrootcert=${ca}`),
    /^TLS \(verify-full\) with PostgreSQL at 127\.0\.0\.1:5432\/postgres failed: .*(localhost|altnames)/i,
  );
  // verify-ca checks the chain, not the name.
  assert.match(String(await tlsOf(pg('127.0.0.1', `?sslmode=verify-ca&sslrootcert=${ca}`))), TLS_VERSION);
});

test('PostgreSQL: verify-full and verify-ca without the CA fail (the test CA is not a system CA)', async () => {
  await refused(pg('localhost', '?sslmode=verify-full'), /^TLS \(verify-full\) with PostgreSQL .*failed: .*certificate/i);
  await refused(pg('localhost', '?sslmode=verify-ca'), /^TLS \(verify-ca\) with PostgreSQL .*failed: .*certificate/i);
});

test('PostgreSQL: require fails against a server without TLS; prefer falls back to plain there', async () => {
  const url = (q: string): TargetConfig => ({ type: 'postgresql', url: `postgresql://postgres@127.0.0.1:${plainPg.port}/postgres${q}` });
  await refused(
    url('?sslmode=require'),
    /^TLS \(require\) with PostgreSQL at 127\.0\.0\.1:\d+\/postgres failed: The server does not support SSL connections$/,
  );
  await refused(url(`?sslmode=verify-full&sslrootcert=${ca}`), /does not support SSL/);
  assert.equal(await tlsOf(url('?sslmode=prefer')), null);
  assert.equal(await tlsOf(url('')), null);
});

test('MariaDB: no ssl-mode is plain; REQUIRED negotiates TLS and reports its version', async () => {
  assert.equal(await tlsOf(maria('127.0.0.1', '')), null);
  assert.match(String(await tlsOf(maria('127.0.0.1', '?ssl-mode=REQUIRED'))), TLS_VERSION);
  assert.match(String(await tlsOf(maria('127.0.0.1', '', { tls: { mode: 'require' } }))), TLS_VERSION);
});

test('MariaDB: VERIFY_IDENTITY with the CA passes on the right host name and fails on a wrong one (host name or IP address)', async () => {
  assert.match(String(await tlsOf(maria('localhost', `?ssl-mode=VERIFY_IDENTITY&ssl-ca=${ca}`))), TLS_VERSION);
  // An IP address: mysql2 alone would check `localhost` and pass; sds checks the address itself.
  await refused(
    maria('127.0.0.1', `?ssl-mode=VERIFY_IDENTITY&ssl-ca=${ca}`),
    /^TLS \(verify-full\) with MySQL\/MariaDB at 127\.0\.0\.1:3306\/mysql failed: .*127\.0\.0\.1/,
  );
  // VERIFY_CA checks the chain only.
  assert.match(String(await tlsOf(maria('127.0.0.1', `?ssl-mode=VERIFY_CA&ssl-ca=${ca}`))), TLS_VERSION);
});

test('MariaDB: VERIFY_IDENTITY and VERIFY_CA without the CA fail', async () => {
  await refused(maria('localhost', '?ssl-mode=VERIFY_IDENTITY'), /^TLS \(verify-full\) with MySQL\/MariaDB .*failed: .*certificate/i);
  await refused(maria('localhost', '?ssl-mode=VERIFY_CA'), /^TLS \(verify-ca\) with MySQL\/MariaDB .*failed: .*certificate/i);
});

test('MariaDB: REQUIRED fails against a server without TLS', async () => {
  const url = (q: string): TargetConfig => ({ type: 'mysql', url: `mysql://root@127.0.0.1:${plainMaria.port}/mysql${q}` });
  await refused(
    url('?ssl-mode=REQUIRED'),
    /^TLS \(require\) with MySQL\/MariaDB at 127\.0\.0\.1:\d+\/mysql failed: Server does not support secure connection$/,
  );
  assert.equal(await tlsOf(url('')), null);
});

test('a TLS file that is missing is TLS_FILE_UNREADABLE naming the file, before any connection', async () => {
  await refused(
    pg('localhost', '?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem'),
    /^the TLS CA certificate file \/nonexistent\/ca\.pem cannot be read \(ENOENT\)$/,
    'TLS_FILE_UNREADABLE',
  );
  await refused(
    maria('localhost', '', { tls: { mode: 'verify-full', ca: '/nonexistent/ca.pem' } }),
    /\/nonexistent\/ca\.pem cannot be read/,
    'TLS_FILE_UNREADABLE',
  );
});
