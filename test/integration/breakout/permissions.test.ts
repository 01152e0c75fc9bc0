/**
 * A target whose user lacks the rights to create tables fails the job with the spec's
 * INSUFFICIENT_PERMISSIONS (docs/breakout.md), on the real local PostgreSQL and MariaDB, with a
 * user made for the test that may connect but not create.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTarget } from '../../../src/core/breakout/targets/targets.js';
import { runBreakoutNow } from '../../../src/core/breakout/jobs/jobs.js';
import { tempStore } from '../../helpers/temp-home.js';
import { seedPopstan } from '../../helpers/http-server.js';
import { createMysqlDatabase, createPostgresDatabase, uniqueName, type TestDatabase } from '../../helpers/test-databases.js';

let pgdb: TestDatabase;
let mydb: TestDatabase;
const pgUser = uniqueName('sds_ro').slice(0, 32);
const myUser = uniqueName('sds_ro').slice(0, 32);

before(async () => {
  delete process.env.BREAKOUT_DB_TYPE;
  delete process.env.BREAKOUT_DB_URL;
  [pgdb, mydb] = await Promise.all([createPostgresDatabase(), createMysqlDatabase()]);
  // PostgreSQL 15+ gives PUBLIC no CREATE on schema public; revoking it too keeps older servers right.
  await pgdb.admin(`CREATE ROLE "${pgUser}" LOGIN`);
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: pgdb.config.url });
  await c.connect();
  try {
    await c.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
    await c.query(`GRANT CONNECT ON DATABASE "${pgdb.name}" TO "${pgUser}"`);
  } finally {
    await c.end();
  }
  // MariaDB: may read the database, not create in it.
  await mydb.admin(`CREATE USER '${myUser}'@'%'`);
  await mydb.admin(`GRANT SELECT ON \`${mydb.name}\`.* TO '${myUser}'@'%'`);
});

after(async () => {
  await Promise.allSettled([pgdb.drop(), mydb.drop()]);
  await Promise.allSettled([pgdb.admin(`DROP ROLE IF EXISTS "${pgUser}"`), mydb.admin(`DROP USER IF EXISTS '${myUser}'@'%'`)]);
});

async function failedJob(type: 'postgresql' | 'mysql', url: string, user: string) {
  const t = await tempStore();
  try {
    const dict = await seedPopstan(t.store);
    const u = new URL(url);
    u.username = user;
    await setTarget(t.store, dict, { type, url: u.toString() });
    return await runBreakoutNow(t.store, { dictionary: dict });
  } finally {
    await t.cleanup();
  }
}

test('PostgreSQL: "permission denied for schema public" fails the job with INSUFFICIENT_PERMISSIONS (42501 kept as driverCode)', async () => {
  const reply = await failedJob('postgresql', pgdb.config.url!, pgUser);
  assert.equal(reply.status, 'failed', JSON.stringify(reply));
  assert.equal(reply.error?.code, 'INSUFFICIENT_PERMISSIONS', JSON.stringify(reply.error));
  assert.match(reply.error!.message, /lack of rights: permission denied for schema public/);
  const details = JSON.parse(reply.error!.details) as { diagnostic: string; driverCode: string };
  assert.equal(details.diagnostic, 'INSUFFICIENT_PERMISSIONS');
  assert.equal(details.driverCode, '42501');
});

test('MariaDB: "CREATE command denied" fails the job with INSUFFICIENT_PERMISSIONS', async () => {
  const reply = await failedJob('mysql', mydb.config.url!, myUser);
  assert.equal(reply.status, 'failed', JSON.stringify(reply));
  assert.equal(reply.error?.code, 'INSUFFICIENT_PERMISSIONS', JSON.stringify(reply.error));
  assert.match(reply.error!.message, /lack of rights: CREATE command denied/);
  const details = JSON.parse(reply.error!.details) as { driverCode: string };
  assert.equal(details.driverCode, 'ER_TABLEACCESS_DENIED_ERROR');
});
