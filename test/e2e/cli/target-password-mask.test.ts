/**
 * A failed `sds target test` with a one-letter or common-word password (issue 27, item 3): the
 * message of the real PostgreSQL and MariaDB servers reaches the operator whole, since the
 * password is masked only where one is written (docs/breakout.md#targets), never as letters of
 * other words ("Postgr***SQL … r***fus***d th*** login" with `e`).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { createMysqlDatabase, createPostgresDatabase, uniqueName, type TestDatabase } from '../../helpers/test-databases.js';

const DICT = 'CEN2000';
const PW_VAR = 'CENSUS_PW';
const NO_DEFAULT = { BREAKOUT_DB_TYPE: undefined, BREAKOUT_DB_URL: undefined };
/** One letter, and words every message of the servers holds. */
const PASSWORDS = ['e', 'the', 'postgres', 'password', 'user', 'a'];

let home: Awaited<ReturnType<typeof tempHome>>;
let pg: TestDatabase;
let my: TestDatabase;
const myUser = uniqueName('sds_pw').slice(0, 32);

before(async () => {
  home = await tempHome();
  [pg, my] = await Promise.all([createPostgresDatabase(), createMysqlDatabase()]);
  await my.admin(`CREATE USER '${myUser}'@'%' IDENTIFIED BY 'the-right-one'`);
  const up = await sds(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan']);
  assert.equal(up.code, 0, show(up));
});

after(async () => {
  await my?.admin(`DROP USER IF EXISTS '${myUser}'@'%'`);
  await home?.cleanup();
  await Promise.all([pg?.drop(), my?.drop()]);
});

/** `sds target test --json` with each password; every reply must be the same, masked nowhere. */
async function testWithEach(): Promise<{ message: string; details: Record<string, unknown> }> {
  const runs = await Promise.all(
    PASSWORDS.map((pw) => sds(home.root, ['target', 'test', DICT, '--json'], { env: { ...NO_DEFAULT, [PW_VAR]: pw } })),
  );
  const first = runs[0]!.json() as { error: string; message: string; details: Record<string, unknown> };
  runs.forEach((r, i) => {
    assert.equal(r.code, 5, show(r));
    assert.deepEqual(r.json(), first, `password ${PASSWORDS[i]}`);
  });
  assert.equal(first.error, 'DB_CONNECTION_ERROR');
  assert.ok(!first.message.includes('***'), first.message);
  return first;
}

test('PostgreSQL: a refused login reads whole whatever the password (e, the, postgres, password, …)', async () => {
  // The servers here trust 127.0.0.1, so the refusal is an unknown role: a message full of e's.
  const role = uniqueName('postgres_nobody').slice(0, 40);
  const set = await sds(home.root, [
    'target',
    'set',
    DICT,
    '--type',
    'postgresql',
    '--url',
    `postgresql://${role}@127.0.0.1:5432/${pg.name}`,
    '--password-env',
    PW_VAR,
  ]);
  assert.equal(set.code, 0, show(set));
  const e = await testWithEach();
  assert.equal(e.message, `PostgreSQL at 127.0.0.1:5432/${pg.name} refused the login of user '${role}': role "${role}" does not exist`);
  assert.deepEqual(e.details, { diagnostic: 'DB-002', target: `127.0.0.1:5432/${pg.name}`, driverCode: '28000' });
  // Humans read the same line.
  const human = await sds(home.root, ['target', 'test', DICT], { env: { ...NO_DEFAULT, [PW_VAR]: 'e' } });
  assert.equal(human.stderr, `sds: DB_CONNECTION_ERROR (DB-002): ${e.message}\n`);
});

test('MariaDB: a wrong password reads whole whatever it is ("using password: YES" included)', async () => {
  const set = await sds(home.root, [
    'target',
    'set',
    DICT,
    '--type',
    'mysql',
    '--url',
    `mysql://${myUser}@127.0.0.1:3306/${my.name}`,
    '--password-env',
    PW_VAR,
  ]);
  assert.equal(set.code, 0, show(set));
  const e = await testWithEach();
  assert.match(
    e.message,
    new RegExp(
      `^MySQL/MariaDB at 127\\.0\\.0\\.1:3306/${my.name} refused the login of user '${myUser}': Access denied for user '${myUser}'@'[^']+' \\(using password: YES\\)$`,
    ),
  );
  assert.deepEqual(e.details, { diagnostic: 'DB-002', target: `127.0.0.1:3306/${my.name}`, driverCode: 'ER_ACCESS_DENIED_ERROR' });
});
