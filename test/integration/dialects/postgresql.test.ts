/**
 * PostgreSQL target: the shared suite on a fresh database, plus how connection failures map to
 * DB-00x codes. The local server trusts every connection from 127.0.0.1 (pg_hba `trust`), so a
 * wrong password is accepted there; DB-002 is shown with an unknown role and a NOLOGIN role
 * (SQLSTATE 28000) on the real server, and with a wrong password (28P01) on a stand-in server
 * that answers the startup packet exactly as PostgreSQL does with password authentication.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../../src/shared/errors.js';
import { getDialect } from '../../../src/breakout/dialects/index.js';
import type { TargetConfig } from '../../../src/breakout/dialects/dialect.js';
import { createPostgresDatabase, uniqueName, type TestDatabase } from '../../helpers/test-databases.js';
import { describeTargetSuite } from './dialect-suite.js';
import { fakePostgresServer, unusedPort } from './fake-servers.js';

describeTargetSuite('postgresql', createPostgresDatabase);

async function connectError(config: TargetConfig): Promise<AppError> {
  try {
    const s = await getDialect('postgresql').connect(config);
    await s.close();
  } catch (err) {
    assert.ok(err instanceof AppError, `expected an AppError, got ${String(err)}`);
    return err;
  }
  assert.fail('the connection should have failed');
}

describe('postgresql connection errors', () => {
  let db: TestDatabase;
  const role = uniqueName('sds_role');
  const password = 'S3cret-pw-do-not-print';

  before(async () => {
    db = await createPostgresDatabase();
    await db.admin(`CREATE ROLE "${role}" NOLOGIN PASSWORD '${password}'`);
  });

  after(async () => {
    await db.admin(`DROP ROLE IF EXISTS "${role}"`).catch(() => undefined);
    await db.drop();
  });

  test('a port with nothing listening -> DB-001 naming host:port/database', async () => {
    const port = await unusedPort();
    const err = await connectError({ type: 'postgresql', host: '127.0.0.1', port, database: db.name, user: 'postgres' });
    assert.equal(err.code, 'DB-001');
    assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${port}/${db.name}`));
  });

  test('an unknown host -> DB-001', async () => {
    const err = await connectError({ type: 'postgresql', host: 'no-such-host.invalid', database: db.name });
    assert.equal(err.code, 'DB-001');
  });

  test('an unknown role -> DB-002', async () => {
    const err = await connectError({ type: 'postgresql', host: '127.0.0.1', database: db.name, user: `${role}_missing`, password });
    assert.equal(err.code, 'DB-002');
    assert.ok(!err.message.includes(password));
  });

  test('a role that may not log in -> DB-002, and the password is never printed', async () => {
    const err = await connectError({ type: 'postgresql', url: `postgresql://${role}:${password}@127.0.0.1:5432/${db.name}` });
    assert.equal(err.code, 'DB-002');
    assert.ok(!err.message.includes(password));
    assert.ok(!JSON.stringify(err.details).includes(password));
  });

  test('a wrong password (SQLSTATE 28P01 from the server) -> DB-002', async () => {
    const server = await fakePostgresServer('28P01', `password authentication failed for user "${role}"`);
    try {
      const err = await connectError({ type: 'postgresql', host: '127.0.0.1', port: server.port, database: db.name, user: role, password });
      assert.equal(err.code, 'DB-002');
      assert.ok(!err.message.includes(password));
    } finally {
      await server.close();
    }
  });

  test('a database that does not exist -> DB-003', async () => {
    const err = await connectError({ type: 'postgresql', host: '127.0.0.1', database: `${db.name}_missing` });
    assert.equal(err.code, 'DB-003');
    assert.match(err.message, /_missing/);
  });

  test('a role over its connection limit -> DB-005', async () => {
    const limited = uniqueName('sds_limited');
    await db.admin(`CREATE ROLE "${limited}" LOGIN CONNECTION LIMIT 0`);
    try {
      const err = await connectError({ type: 'postgresql', host: '127.0.0.1', database: db.name, user: limited });
      assert.equal(err.code, 'DB-005');
    } finally {
      await db.admin(`DROP ROLE IF EXISTS "${limited}"`);
    }
  });
});
