/**
 * `sds check-database-drivers` through the compiled CLI: every driver loads with the version of
 * the installed package, and each dictionary's target is tried for real (a live PostgreSQL, a
 * live MariaDB, a port where nothing listens, a password variable that is not set, the embedded
 * SQLite file). Exit 5 while a target does not answer, 0 when all do or there are none.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { createMysqlDatabase, createPostgresDatabase, type TestDatabase } from '../../helpers/test-databases.js';
import { openQuery } from '../../helpers/breakout-helpers.js';
import { table } from '../../../src/cli/render.js';

const homes: Awaited<ReturnType<typeof tempHome>>[] = [];
const databases: TestDatabase[] = [];
after(async () => {
  for (const h of homes) await h.cleanup();
  await Promise.all(databases.map((d) => d.drop()));
});

/** The installed version of a package, from its own package.json. */
function installed(pkg: string): string {
  return (JSON.parse(readFileSync(new URL(`../../../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')) as { version: string })
    .version;
}

const DRIVERS = [
  { driver: 'pdo_pgsql', database: 'PostgreSQL', type: 'postgresql', module: 'pg', available: true, version: installed('pg'), error: null },
  {
    driver: 'pdo_mysql',
    database: 'MySQL/MariaDB',
    type: 'mysql',
    module: 'mysql2',
    available: true,
    version: installed('mysql2'),
    error: null,
  },
  {
    driver: 'pdo_sqlsrv',
    database: 'SQL Server',
    type: 'sqlserver',
    module: 'tedious',
    available: true,
    version: installed('tedious'),
    error: null,
  },
  {
    driver: 'pdo_sqlite',
    database: 'SQLite',
    type: 'sqlite',
    module: 'better-sqlite3',
    available: true,
    version: installed('better-sqlite3'),
    error: null,
  },
];
// stdout is a pipe here, so tables are tab-separated (docs/cli.md, "Tables").
const DRIVER_TABLE = table(
  ['driver', 'database', 'module', 'available', 'version'],
  DRIVERS.map((d) => [d.driver, d.database, d.module, 'yes', d.version]),
  true,
);
const NO_DEFAULT = { BREAKOUT_DB_TYPE: undefined, BREAKOUT_DB_URL: undefined, SDS_TEST_UNSET_PW: undefined };

test('no dictionaries: the four drivers load with their installed versions, no targets, exit 0', async () => {
  const home = await tempHome();
  homes.push(home);
  assert.deepEqual(
    DRIVERS.map((d) => d.version),
    ['pg', 'mysql2', 'tedious', 'better-sqlite3'].map((p) => installed(p)),
  );
  for (const d of DRIVERS) assert.match(d.version, /^\d+\.\d+\.\d+$/);
  const [h, j, alias] = await Promise.all([
    sds(home.root, ['check-database-drivers'], { env: NO_DEFAULT }),
    sds(home.root, ['check-database-drivers', '--json'], { env: NO_DEFAULT }),
    sds(home.root, ['service:check-database-drivers', '--json'], { env: NO_DEFAULT }),
  ]);
  assert.equal(h.code, 0, show(h));
  assert.equal(h.stdout, `${DRIVER_TABLE}\nno dictionaries, so no targets to check\n`);
  // The specification's driver names, each in the text and the JSON, beside our own modules.
  for (const name of ['pdo_mysql', 'pdo_pgsql', 'pdo_sqlsrv']) assert.match(h.stdout, new RegExp(`\\b${name}\\b`));
  assert.equal(h.stderr, '');
  assert.equal(j.code, 0, show(j));
  assert.deepEqual(j.json(), { drivers: DRIVERS, targets: [] });
  assert.equal(alias.code, 0, show(alias));
  assert.deepEqual(alias.json(), { drivers: DRIVERS, targets: [] });
});

test('configured targets: live PostgreSQL and MariaDB answer, a closed port is DB-001, an unset password variable CONFIG_INVALID; exit 5, then 0 once cleared', async () => {
  const home = await tempHome();
  homes.push(home);
  const [pg, my] = await Promise.all([createPostgresDatabase(), createMysqlDatabase()]);
  databases.push(pg, my);
  const qp = await openQuery(pg.config);
  const pgVersion = String((await qp.all('SHOW server_version'))[0]!.server_version);
  await qp.close();
  const qm = await openQuery(my.config);
  const myVersion = String(Object.values((await qm.all('SELECT VERSION() AS v'))[0]!)[0]);
  await qm.close();
  const memory = new Database(':memory:');
  const sqliteVersion = (memory.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  memory.close();

  // Uploads write the store: one after the other.
  for (const [file, label] of [
    ['popstan-census.json.dcf', 'popstan'],
    ['simple-capi.dcf', 'simple'],
    ['two-level.json.dcf', 'twolevel'],
    ['capi-household.dcf', 'household'],
    ['idb-population.dcf', 'idb'],
  ] as const) {
    const r = await sds(home.root, ['dict', 'upload', fixture(file), '--label', label]);
    assert.equal(r.code, 0, show(r));
  }
  const names = (await sds(home.root, ['dict', 'list', '--json'])).json<{ name: string }[]>().map((d) => d.name);
  assert.deepEqual(names, ['CEN2000', 'IDB_POPULATION_DATA_DICT', 'PSC_HOUSEHOLD_DICT', 'SIMPLECAPI_DICT', 'TWO_LEVEL_DICT']);
  for (const args of [
    ['CEN2000', '--type', 'postgresql', '--url', pg.config.url!],
    ['SIMPLECAPI_DICT', '--type', 'mysql', '--url', my.config.url!],
    ['TWO_LEVEL_DICT', '--type', 'postgresql', '--url', 'postgresql://postgres@127.0.0.1:1/census'],
    [
      'PSC_HOUSEHOLD_DICT',
      '--type',
      'mysql',
      '--host',
      '127.0.0.1',
      '--database',
      my.name,
      '--user',
      'root',
      '--password-env',
      'SDS_TEST_UNSET_PW',
    ],
  ]) {
    const r = await sds(home.root, ['target', 'set', ...args]);
    assert.equal(r.code, 0, show(r));
  }

  const embedded = `sqlite ${join(home.root, 'targets', 'breakout.sqlite')}`;
  const targets = [
    {
      dictionary: 'CEN2000',
      target: `postgresql postgres@127.0.0.1:5432/${pg.name}`,
      source: 'dictionary',
      reachable: true,
      server_version: pgVersion,
      error: null,
    },
    {
      dictionary: 'IDB_POPULATION_DATA_DICT',
      target: embedded,
      source: 'default',
      reachable: true,
      server_version: sqliteVersion,
      error: null,
    },
    {
      dictionary: 'PSC_HOUSEHOLD_DICT',
      target: `mysql root@127.0.0.1:3306/${my.name}`,
      source: 'dictionary',
      reachable: false,
      server_version: null,
      error: {
        code: 'CONFIG_INVALID',
        message: 'the target of PSC_HOUSEHOLD_DICT reads its password from $SDS_TEST_UNSET_PW, which is not set',
      },
    },
    {
      dictionary: 'SIMPLECAPI_DICT',
      target: `mysql root@127.0.0.1:3306/${my.name}`,
      source: 'dictionary',
      reachable: true,
      server_version: myVersion,
      error: null,
    },
    {
      dictionary: 'TWO_LEVEL_DICT',
      target: 'postgresql postgres@127.0.0.1:1/census',
      source: 'dictionary',
      reachable: false,
      server_version: null,
      error: {
        code: 'DB_CONNECTION_ERROR',
        message: 'cannot connect to PostgreSQL at 127.0.0.1:1/census: connect ECONNREFUSED 127.0.0.1:1',
        diagnostic: 'DB-001',
      },
    },
  ];
  const targetTable = (ts: typeof targets): string =>
    table(
      ['dictionary', 'target', 'reachable'],
      ts.map((t) => [t.dictionary, t.target, t.reachable ? `yes (${t.server_version})` : `no: ${t.error!.code} ${t.error!.message}`]),
      true,
    );

  const [h, j] = await Promise.all([
    sds(home.root, ['check-database-drivers'], { env: NO_DEFAULT }),
    sds(home.root, ['check-database-drivers', '--json'], { env: NO_DEFAULT }),
  ]);
  assert.equal(h.code, 5, show(h));
  assert.equal(h.stdout, `${DRIVER_TABLE}\n${targetTable(targets)}\n`);
  assert.equal(h.stderr, '');
  assert.equal(j.code, 5, show(j));
  assert.deepEqual(j.json(), { drivers: DRIVERS, targets });

  // The password variable set (root has none on the test server): that target answers too.
  const withPw = await sds(home.root, ['check-database-drivers', '--json'], { env: { ...NO_DEFAULT, SDS_TEST_UNSET_PW: '' } });
  assert.equal(withPw.code, 5, show(withPw));
  assert.deepEqual(withPw.json().targets[2], { ...targets[2], reachable: true, server_version: myVersion, error: null });

  // An invalid global default: dictionaries without a target of their own cannot name one.
  const badEnv = await sds(home.root, ['check-database-drivers', '--json'], { env: { ...NO_DEFAULT, BREAKOUT_DB_TYPE: 'Postgres' } });
  assert.equal(badEnv.code, 5, show(badEnv));
  assert.deepEqual(badEnv.json().targets[1], {
    dictionary: 'IDB_POPULATION_DATA_DICT',
    target: '',
    source: '',
    reachable: false,
    server_version: null,
    error: {
      code: 'CONFIG_INVALID',
      message: 'BREAKOUT_DB_TYPE must be exactly one of postgresql, mysql, sqlserver, sqlite; got "Postgres"',
    },
  });

  // The unreachable targets cleared: they fall back to the embedded SQLite file, everything answers, exit 0.
  for (const d of ['TWO_LEVEL_DICT', 'PSC_HOUSEHOLD_DICT']) assert.equal((await sds(home.root, ['target', 'clear', d])).code, 0);
  const fixed = targets.map((t) =>
    t.reachable ? t : { ...t, target: embedded, source: 'default', reachable: true, server_version: sqliteVersion, error: null },
  );
  const [h2, j2] = await Promise.all([
    sds(home.root, ['check-database-drivers'], { env: NO_DEFAULT }),
    sds(home.root, ['check-database-drivers', '--json'], { env: NO_DEFAULT }),
  ]);
  assert.equal(h2.code, 0, show(h2));
  assert.equal(h2.stdout, `${DRIVER_TABLE}\n${targetTable(fixed)}\n`);
  assert.equal(j2.code, 0, show(j2));
  assert.deepEqual(j2.json(), { drivers: DRIVERS, targets: fixed });
});
