/**
 * Target URL rules and TLS settings, pure: every dialect's URL parameters in the shared TLS
 * vocabulary, and the driver options they become. SQL Server has no server here, so its mapping
 * to tedious' options is checked here only (docs/breakout.md, "TLS").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getDialect } from '../../../src/breakout/dialects/index.js';
import type { TargetConfig } from '../../../src/breakout/dialects/dialect.js';
import { checkTargetConfig, resolveTarget } from '../../../src/breakout/dialects/target-config.js';
import { attempts, pgSsl } from '../../../src/breakout/dialects/postgresql/tls.js';
import { identityCheckHost, mysqlSsl } from '../../../src/breakout/dialects/mysql/tls.js';
import { tdsTlsOptions } from '../../../src/breakout/dialects/sqlserver/tls.js';
import { describeTls } from '../../../src/breakout/dialects/tls.js';
import { AppError } from '../../../src/shared/errors.js';

const ca = Buffer.from('ca');
const tlsOf = (config: TargetConfig) => resolveTarget(config, getDialect(config.type), { user: '', database: '' }).tls;

function refusal(code: string, message: RegExp): (e: unknown) => boolean {
  return (e: unknown) => {
    assert.ok(e instanceof AppError, String(e));
    assert.equal(e.code, code, e.message);
    assert.match(e.message, message);
    return true;
  };
}

test('SQL Server: encrypt and trustServerCertificate become a mode, and the mode tedious options', () => {
  const mssql = (q: string, tls?: TargetConfig['tls']): TargetConfig => ({ type: 'sqlserver', url: `mssql://sa@db:1433/census${q}`, tls });
  assert.deepEqual(tlsOf(mssql('')), { mode: 'verify-full' });
  assert.deepEqual(tlsOf(mssql('?trustServerCertificate=true')), { mode: 'require' });
  assert.deepEqual(tlsOf(mssql('?encrypt=true&trustServerCertificate=false')), { mode: 'verify-full' });
  assert.deepEqual(tlsOf(mssql('?encrypt=false')), { mode: 'disable' });
  assert.deepEqual(tlsOf(mssql('?encrypt=no&trustServerCertificate=yes')), { mode: 'disable' });
  assert.deepEqual(tdsTlsOptions({ mode: 'verify-full' }, {}), { encrypt: true, trustServerCertificate: false });
  assert.deepEqual(tdsTlsOptions({ mode: 'verify-full', ca: '/ca.pem' }, { ca }), {
    encrypt: true,
    trustServerCertificate: false,
    cryptoCredentialsDetails: { ca },
  });
  assert.deepEqual(tdsTlsOptions({ mode: 'require' }, {}), { encrypt: true, trustServerCertificate: true });
  assert.deepEqual(tdsTlsOptions({ mode: 'disable' }, {}), { encrypt: false, trustServerCertificate: false });
  assert.throws(() => tlsOf(mssql('?encrypt=maybe')), refusal('TARGET_TLS_INVALID', /^encrypt=maybe is not true or false$/));
  assert.throws(
    () => tlsOf(mssql('', { mode: 'verify-ca' })),
    refusal('TARGET_TLS_INVALID', /cannot use the TLS mode verify-ca \(it takes disable, require, verify-full\)/),
  );
  assert.throws(
    () => tlsOf(mssql('', { cert: '/c.pem', key: '/k.pem' })),
    refusal('TARGET_TLS_INVALID', /cannot present a client certificate/),
  );
});

test('PostgreSQL: libpq sslmode words, files, and the pg ssl option of each attempt', () => {
  const url = 'postgresql://u@db/census?sslmode=verify-full&sslrootcert=/etc/ca.pem&sslcert=/c.pem&sslkey=/k.pem';
  assert.deepEqual(tlsOf({ type: 'postgresql', url }), { mode: 'verify-full', ca: '/etc/ca.pem', cert: '/c.pem', key: '/k.pem' });
  // Fields win over the URL.
  assert.equal(tlsOf({ type: 'postgresql', url, tls: { mode: 'verify-ca' } }).mode, 'verify-ca');
  assert.deepEqual(tlsOf({ type: 'postgresql', url: 'postgresql://u@db/census' }), { mode: 'disable' });
  assert.throws(
    () => tlsOf({ type: 'postgresql', url: 'postgresql://u@db/census?sslmode=on' }),
    refusal('TARGET_TLS_INVALID', /^sslmode=on is not one of disable, allow, prefer, require, verify-ca, verify-full$/),
  );
  assert.throws(
    () => tlsOf({ type: 'postgresql', url: 'postgresql://u@db/c?sslmode=require&sslcert=/c.pem' }),
    refusal('TARGET_TLS_INVALID', /needs its key/),
  );
  assert.throws(
    () => tlsOf({ type: 'postgresql', url: 'postgresql://u@db/c?sslrootcert=/ca.pem' }),
    refusal('TARGET_TLS_INVALID', /mode is disable/),
  );

  assert.equal(pgSsl({ mode: 'require' }, {}, 'plain'), false);
  assert.deepEqual(pgSsl({ mode: 'require' }, {}, 'tls'), { rejectUnauthorized: false });
  const verifyCa = pgSsl({ mode: 'verify-ca' }, { ca }, 'tls') as {
    ca: Buffer;
    rejectUnauthorized: boolean;
    checkServerIdentity: () => unknown;
  };
  assert.equal(verifyCa.rejectUnauthorized, true);
  assert.equal(verifyCa.ca, ca);
  assert.equal(verifyCa.checkServerIdentity(), undefined);
  // libpq: require with a root certificate verifies the chain, as verify-ca.
  assert.equal((pgSsl({ mode: 'require', ca: '/ca.pem' }, { ca }, 'tls') as { rejectUnauthorized: boolean }).rejectUnauthorized, true);
  assert.deepEqual(pgSsl({ mode: 'verify-full' }, { ca }, 'tls'), { ca, rejectUnauthorized: true });
  assert.deepEqual(attempts('disable'), ['plain']);
  assert.deepEqual(attempts('allow'), ['plain', 'tls']);
  assert.deepEqual(attempts('prefer'), ['tls', 'plain']);
  assert.deepEqual(attempts('verify-full'), ['tls']);
});

test('MySQL/MariaDB: ssl-mode words, refused PREFERRED, and the mysql2 ssl option', () => {
  const url = 'mysql://root@db/census?ssl-mode=verify_identity&ssl-ca=/ca.pem';
  assert.deepEqual(tlsOf({ type: 'mysql', url }), { mode: 'verify-full', ca: '/ca.pem' });
  assert.throws(
    () => tlsOf({ type: 'mysql', url: 'mysql://root@db/census?ssl-mode=PREFERRED' }),
    refusal('TARGET_TLS_INVALID', /cannot use the TLS mode prefer \(it takes disable, require, verify-ca, verify-full\)/),
  );
  assert.throws(
    () => tlsOf({ type: 'mysql', url: 'mysql://root@db/census?ssl-mode=SOMETIMES' }),
    refusal('TARGET_TLS_INVALID', /^ssl-mode=SOMETIMES is not one of DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY$/),
  );
  assert.equal(mysqlSsl({ mode: 'disable' }, {}, false), undefined);
  assert.deepEqual(mysqlSsl({ mode: 'require' }, {}, false), { rejectUnauthorized: false, verifyIdentity: false });
  assert.deepEqual(mysqlSsl({ mode: 'verify-ca' }, { ca }, false), { ca, rejectUnauthorized: true, verifyIdentity: false });
  assert.deepEqual(mysqlSsl({ mode: 'verify-full' }, { ca }, false), { ca, rejectUnauthorized: true, verifyIdentity: true });
  // An IP address is checked by the session, not by mysql2 (which would check `localhost`).
  assert.deepEqual(mysqlSsl({ mode: 'verify-full' }, { ca }, true), { ca, rejectUnauthorized: true, verifyIdentity: false });
  assert.equal(identityCheckHost({ mode: 'verify-full' }, '10.0.0.5', true), '10.0.0.5');
  assert.equal(identityCheckHost({ mode: 'verify-full' }, 'db', false), undefined);
  assert.equal(identityCheckHost({ mode: 'verify-ca' }, '10.0.0.5', true), undefined);
});

test('SQLite takes no TLS; describeTls names the mode and files', () => {
  assert.deepEqual(tlsOf({ type: 'sqlite', file: '/t.db' }), { mode: 'disable' });
  assert.throws(
    () => tlsOf({ type: 'sqlite', file: '/t.db', tls: { mode: 'require' } }),
    refusal('TARGET_TLS_INVALID', /sqlite target cannot use the TLS mode require/),
  );
  assert.equal(describeTls({ mode: 'disable' }), 'disable');
  assert.equal(
    describeTls({ mode: 'verify-full', ca: '/ca.pem', cert: '/c.pem', key: '/k.pem' }),
    'verify-full (CA /ca.pem, certificate /c.pem, key /k.pem)',
  );
});

test('URL rules: the scheme matches the type, every parameter is known, a database is named', () => {
  const check = (config: TargetConfig) => checkTargetConfig(config, getDialect(config.type));
  for (const url of ['postgres://u@db/c', 'postgresql://u@db/c', 'POSTGRESQL://u@db/c'])
    assert.equal(check({ type: 'postgresql', url }).database, 'c');
  assert.equal(check({ type: 'mysql', url: 'mariadb://root@db/c' }).database, 'c');
  assert.equal(check({ type: 'sqlserver', url: 'sqlserver://sa@db/c' }).database, 'c');
  assert.throws(
    () => check({ type: 'postgresql', url: 'mysql://root@db/c' }),
    refusal('TARGET_URL_INVALID', /^a postgresql target URL must start with postgresql:\/\/ or postgres:\/\/, not mysql:\/\/$/),
  );
  assert.throws(
    () => check({ type: 'mysql', url: 'http://db/c' }),
    refusal('TARGET_URL_INVALID', /must start with mysql:\/\/ or mariadb:\/\/, not http:\/\//),
  );
  assert.throws(
    () => check({ type: 'sqlite', url: 'postgresql://u@db/c' }),
    refusal(
      'TARGET_URL_INVALID',
      /^a sqlite target URL must start with sqlite:\/\/, not postgresql:\/\/; give the file as the database setting$/,
    ),
  );
  assert.throws(() => check({ type: 'postgresql', url: 'not a url' }), refusal('TARGET_URL_INVALID', /not a valid URL/));
  assert.throws(
    () => check({ type: 'postgresql', url: 'postgresql://u@db/c?foo=1' }),
    refusal(
      'TARGET_PARAM_UNKNOWN',
      /^the postgresql target URL parameter "foo" is not one sds honours \(known: sslmode, sslrootcert, sslcert, sslkey\)$/,
    ),
  );
  assert.throws(
    () => check({ type: 'mysql', url: 'mysql://root@db/c?sslmode=require' }),
    refusal('TARGET_PARAM_UNKNOWN', /"sslmode" is not one sds honours \(known: local_infile, ssl-mode, ssl-ca, ssl-cert, ssl-key\)/),
  );
  assert.throws(
    () => check({ type: 'postgresql', url: 'postgresql://u@db' }),
    refusal('TARGET_DATABASE_MISSING', /^a postgresql target needs a database name/),
  );
  assert.throws(
    () => check({ type: 'mysql', url: 'mysql://root@db/' }),
    refusal('TARGET_DATABASE_MISSING', /mysql target needs a database name/),
  );
  assert.throws(
    () => check({ type: 'sqlserver', host: 'db' }),
    refusal('TARGET_DATABASE_MISSING', /sqlserver target needs a database name/),
  );
  assert.equal(check({ type: 'postgresql', host: 'db', database: 'c' }).database, 'c');
  assert.equal(check({ type: 'sqlite', url: 'sqlite:///srv/t.db?busy_timeout=100' }).params.busy_timeout, '100');
});
