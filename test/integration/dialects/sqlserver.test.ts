/**
 * SQL Server target: there is no SQL Server on these machines, so this suite runs only when
 * SDS_TEST_MSSQL_URL names one (e.g. `mssql://sa:pw@127.0.0.1:1433/master?trustServerCertificate=true`).
 * Its DDL and encoders are covered by test/unit/dialects/sqlserver.test.ts either way.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../../src/shared/errors.js';
import { getDialect } from '../../../src/breakout/dialects/index.js';
import { createSqlServerDatabase, MSSQL_ADMIN_URL } from '../../helpers/test-databases.js';
import { describeTargetSuite } from './dialect-suite.js';
import { unusedPort } from './fake-servers.js';

const skip = MSSQL_ADMIN_URL ? false : 'SDS_TEST_MSSQL_URL is not set: no SQL Server to test against';

describeTargetSuite('sqlserver', createSqlServerDatabase, (d) => d, skip);

// Needs no server: tedious itself reports the refused connection.
test('sqlserver: a port with nothing listening -> DB-001', async () => {
  const port = await unusedPort();
  await assert.rejects(
    getDialect('sqlserver').connect({ type: 'sqlserver', host: '127.0.0.1', port, database: 'master', user: 'sa', password: 'x' }),
    (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.equal(err.code, 'DB-001');
      return true;
    },
  );
});

test('sqlserver: a wrong password -> DB-002; a missing database -> DB-003', { skip }, async () => {
  const url = new URL(MSSQL_ADMIN_URL!);
  url.password = 'wrong-password-do-not-print';
  await assert.rejects(getDialect('sqlserver').connect({ type: 'sqlserver', url: url.toString() }), (err: unknown) => {
    assert.ok(err instanceof AppError);
    assert.equal(err.code, 'DB-002');
    assert.ok(!err.message.includes('wrong-password-do-not-print'));
    return true;
  });
  const missing = new URL(MSSQL_ADMIN_URL!);
  missing.pathname = '/sds_no_such_database';
  await assert.rejects(
    getDialect('sqlserver').connect({ type: 'sqlserver', url: missing.toString() }),
    (err: unknown) => err instanceof AppError && err.code === 'DB-003',
  );
});
