/**
 * `sds target set|show|clear|test` through the compiled CLI, against real PostgreSQL and MariaDB
 * servers and real SQLite files: where the effective target comes from (the dictionary, then
 * BREAKOUT_DB_TYPE/BREAKOUT_DB_URL, then the embedded SQLite file), exact replies for humans and
 * --json, passwords read from an environment variable and never stored nor printed, and the
 * DB-00x codes and exit codes of targets that are down, refuse the login or lack the database.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runCliAsync as sds, show, type CliResult } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { createMysqlDatabase, createPostgresDatabase, uniqueName, type TestDatabase } from '../../helpers/test-databases.js';
import { openQuery } from '../../helpers/breakout-helpers.js';
import { ERROR_CODES } from '../../../src/shared/errors.js';

const DICT = 'CEN2000';
/** Without the global default, whatever the shell running the tests has. */
const NO_DEFAULT = { BREAKOUT_DB_TYPE: undefined, BREAKOUT_DB_URL: undefined };
const PW_VAR = 'SDS_TEST_TARGET_PW';

let home: ReturnType<typeof tempHome>;
let pg: TestDatabase;
let my: TestDatabase;
let pgVersion: string;
let myVersion: string;

before(async () => {
  home = tempHome();
  [pg, my] = await Promise.all([createPostgresDatabase(), createMysqlDatabase()]);
  const up = await sds(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan']);
  assert.equal(up.code, 0, show(up));
  const qp = await openQuery(pg.config);
  pgVersion = String((await qp.all('SHOW server_version'))[0]!.server_version);
  await qp.close();
  const qm = await openQuery(my.config);
  myVersion = String(Object.values((await qm.all('SELECT VERSION() AS v'))[0]!)[0]);
  await qm.close();
});

after(async () => {
  home?.cleanup();
  await Promise.all([pg?.drop(), my?.drop()]);
});

/** `sds … --json` expected to fail with `code`: exit code of the registry, JSON error on stdout. */
function assertError(r: CliResult, code: keyof typeof ERROR_CODES, message: string, details: Record<string, unknown>): void {
  assert.equal(r.code, ERROR_CODES[code].exit, show(r));
  assert.deepEqual(r.json(), { error: code, message, details });
  assert.equal(r.stderr, '');
}

/** The same failure for humans: one line on stderr, nothing on stdout. */
function assertHumanError(r: CliResult, code: keyof typeof ERROR_CODES, message: string): void {
  assert.equal(r.code, ERROR_CODES[code].exit, show(r));
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, `sds: ${code}: ${message}\n`);
}

function showHuman(v: { dictionary: string; source: string; type: string; target: string; password_env: string | null; foreign_keys: boolean }): string {
  return [
    `dictionary    ${v.dictionary}`,
    `source        ${v.source}`,
    `type          ${v.type}`,
    `target        ${v.target}`,
    `password_env  ${v.password_env ?? ''}`,
    `foreign_keys  ${v.foreign_keys}`,
  ].join('\n') + '\n';
}

function sqliteVersion(): string {
  const db = new Database(':memory:');
  try {
    return (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  } finally {
    db.close();
  }
}

/** Every file under a directory, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

test('show and clear: the dictionary target, else BREAKOUT_DB_TYPE/BREAKOUT_DB_URL, else the embedded SQLite file', async () => {
  const embedded = { dictionary: DICT, source: 'default', type: 'sqlite', target: `sqlite ${join(home.root, 'targets', 'breakout.sqlite')}`, password_env: null, foreign_keys: false };
  const [human, json] = await Promise.all([sds(home.root, ['target', 'show', DICT], { env: NO_DEFAULT }), sds(home.root, ['target', 'show', DICT, '--json'], { env: NO_DEFAULT })]);
  assert.equal(human.code, 0, show(human));
  assert.equal(human.stdout, showHuman(embedded));
  assert.equal(json.code, 0, show(json));
  assert.deepEqual(json.json(), embedded);

  // The global default: its URL may hold a password, which is never shown.
  const envSecret = `env-${uniqueName('pw')}`;
  const envUrl = new URL(pg.config.url!);
  envUrl.password = envSecret;
  const globalEnv = { BREAKOUT_DB_TYPE: 'postgresql', BREAKOUT_DB_URL: envUrl.toString() };
  const fromEnv = { dictionary: DICT, source: 'environment', type: 'postgresql', target: `postgresql postgres@127.0.0.1:5432/${pg.name}`, password_env: null, foreign_keys: false };
  const [envHuman, envJson, envTest] = await Promise.all([
    sds(home.root, ['target', 'show', DICT], { env: globalEnv }),
    sds(home.root, ['target', 'show', DICT, '--json'], { env: globalEnv }),
    sds(home.root, ['target', 'test', DICT, '--json'], { env: globalEnv }),
  ]);
  assert.equal(envHuman.stdout, showHuman(fromEnv), show(envHuman));
  assert.deepEqual(envJson.json(), fromEnv);
  assert.equal(envTest.code, 0, show(envTest));
  assert.deepEqual(envTest.json(), { dictionary: DICT, target: fromEnv.target, ok: true, server_version: pgVersion, database: pg.name });
  for (const r of [envHuman, envJson, envTest]) assert.ok(!(r.stdout + r.stderr).includes(envSecret), show(r));

  // The dictionary's own target wins over the global default.
  const set = await sds(home.root, ['target', 'set', DICT, '--type', 'mysql', '--url', my.config.url!]);
  assert.equal(set.code, 0, show(set));
  assert.equal(set.stdout, `Target of ${DICT}: mysql root@127.0.0.1:3306/${my.name}\n`);
  const own = { dictionary: DICT, source: 'dictionary', type: 'mysql', target: `mysql root@127.0.0.1:3306/${my.name}`, password_env: null, foreign_keys: false };
  assert.deepEqual((await sds(home.root, ['target', 'show', DICT, '--json'], { env: globalEnv })).json(), own);

  // clear: the global default applies again, then (without it) the embedded SQLite file.
  const clear = await sds(home.root, ['target', 'clear', DICT]);
  assert.equal(clear.code, 0, show(clear));
  assert.equal(clear.stdout, `Target of ${DICT} cleared; the default target applies\n`);
  const clearAgain = await sds(home.root, ['target', 'clear', DICT, '--json']);
  assert.equal(clearAgain.code, 0, show(clearAgain));
  assert.deepEqual(clearAgain.json(), { message: `${DICT} had no target of its own`, dictionary: DICT });
  assert.deepEqual((await sds(home.root, ['target', 'show', DICT, '--json'], { env: globalEnv })).json(), fromEnv);
  assert.deepEqual((await sds(home.root, ['target', 'show', DICT, '--json'], { env: NO_DEFAULT })).json(), embedded);
  // An empty BREAKOUT_DB_TYPE is "not set".
  assert.deepEqual((await sds(home.root, ['target', 'show', DICT, '--json'], { env: { BREAKOUT_DB_TYPE: '', BREAKOUT_DB_URL: '' } })).json(), embedded);
  // sqlite as the global default without a URL: the embedded file.
  assert.deepEqual((await sds(home.root, ['target', 'show', DICT, '--json'], { env: { BREAKOUT_DB_TYPE: 'sqlite', BREAKOUT_DB_URL: undefined } })).json(), { ...embedded, source: 'environment' });
  // sqlite with a plain path (absolute, or relative to the current directory) or a sqlite:// URL.
  const file = join(home.root, 'elsewhere.sqlite');
  for (const url of [file, `sqlite://${file}`]) {
    const r = await sds(home.root, ['target', 'show', DICT, '--json'], { env: { BREAKOUT_DB_TYPE: 'sqlite', BREAKOUT_DB_URL: url } });
    assert.equal(r.code, 0, show(r));
    assert.deepEqual(r.json(), { ...embedded, source: 'environment', target: `sqlite ${file}` });
  }
  const relative = await sds(home.root, ['target', 'show', DICT, '--json'], { env: { BREAKOUT_DB_TYPE: 'sqlite', BREAKOUT_DB_URL: 'elsewhere.sqlite' }, cwd: home.root });
  assert.equal(relative.code, 0, show(relative));
  assert.equal(relative.json().target, `sqlite ${file}`);
});

test('BREAKOUT_DB_TYPE takes only the exact words: anything else is CONFIG_INVALID (exit 2)', async () => {
  const bad = ['Postgres', 'postgresql ', 'POSTGRESQL', 'pgsql', 'mariadb', 'mssql'];
  const runs = await Promise.all(
    bad.flatMap((type) => [
      sds(home.root, ['target', 'show', DICT, '--json'], { env: { BREAKOUT_DB_TYPE: type, BREAKOUT_DB_URL: pg.config.url } }),
      sds(home.root, ['target', 'test', DICT], { env: { BREAKOUT_DB_TYPE: type, BREAKOUT_DB_URL: pg.config.url } }),
    ]),
  );
  bad.forEach((type, i) => {
    const message = `BREAKOUT_DB_TYPE must be exactly one of postgresql, mysql, sqlserver, sqlite; got "${type}"`;
    assertError(runs[2 * i]!, 'CONFIG_INVALID', message, { field: 'BREAKOUT_DB_TYPE' });
    assertHumanError(runs[2 * i + 1]!, 'CONFIG_INVALID', message);
  });
  assert.equal(ERROR_CODES.CONFIG_INVALID.exit, 2);
  // A server type without a URL.
  assertError(
    await sds(home.root, ['target', 'show', DICT, '--json'], { env: { BREAKOUT_DB_TYPE: 'mysql', BREAKOUT_DB_URL: undefined } }),
    'CONFIG_INVALID',
    'BREAKOUT_DB_TYPE is mysql but BREAKOUT_DB_URL is not set',
    { field: 'BREAKOUT_DB_URL' },
  );
  // --type takes the exact words too.
  assertError(await sds(home.root, ['target', 'set', DICT, '--type', 'Postgres', '--url', pg.config.url!, '--json']), 'CONFIG_INVALID', 'type must be exactly one of postgresql, mysql, sqlserver, sqlite; got "Postgres"', {
    field: 'type',
  });
});

test('host/port/database/user with --password-env: the password comes from the environment and is never stored nor printed', async () => {
  const user = uniqueName('sds_u').slice(0, 32);
  const secret = `pw-${uniqueName('s')}`;
  const wrong = `wrong-${uniqueName('s')}`;
  await my.admin(`CREATE USER '${user}'@'%' IDENTIFIED BY '${secret}'`);
  await my.admin(`GRANT ALL ON \`${my.name}\`.* TO '${user}'@'%'`);
  const outputs: CliResult[] = [];
  const run = async (args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> => {
    const r = await sds(home.root, args, { env: { ...NO_DEFAULT, ...env } });
    outputs.push(r);
    return r;
  };
  try {
    const set = await run(['target', 'set', DICT, '--type', 'mysql', '--host', '127.0.0.1', '--port', '3306', '--database', my.name, '--user', user, '--password-env', PW_VAR], { [PW_VAR]: secret });
    assert.equal(set.code, 0, show(set));
    const target = `mysql ${user}@127.0.0.1:3306/${my.name}`;
    assert.equal(set.stdout, `Target of ${DICT}: ${target}\n`);
    const view = { dictionary: DICT, source: 'dictionary', type: 'mysql', target, password_env: PW_VAR, foreign_keys: false };
    // show works with the variable unset: it only names it.
    const [h, j] = await Promise.all([run(['target', 'show', DICT]), run(['target', 'show', DICT, '--json'])]);
    assert.equal(h.code, 0, show(h));
    assert.equal(h.stdout, showHuman(view));
    assert.deepEqual(j.json(), view);

    // test: the right password from the environment connects as that user; the variable not set
    // is a configuration error (not an empty password); a wrong password DB-002 (exit 5).
    const withPw = new URL(my.config.url!);
    withPw.username = user;
    withPw.password = secret;
    const [okHuman, okJson, unset, denied, deniedHuman, urlPw, badVar, badPort, noPlace] = await Promise.all([
      run(['target', 'test', DICT], { [PW_VAR]: secret }),
      run(['target', 'test', DICT, '--json'], { [PW_VAR]: secret }),
      run(['target', 'test', DICT, '--json']),
      run(['target', 'test', DICT, '--json'], { [PW_VAR]: wrong }),
      run(['target', 'test', DICT], { [PW_VAR]: wrong }),
      // Refused settings (none of them writes the store).
      run(['target', 'set', DICT, '--type', 'mysql', '--url', withPw.toString(), '--json']),
      run(['target', 'set', DICT, '--type', 'mysql', '--host', '127.0.0.1', '--password-env', 'NOT-A-NAME', '--json']),
      run(['target', 'set', DICT, '--type', 'mysql', '--host', '127.0.0.1', '--port', '70000', '--json']),
      run(['target', 'set', DICT, '--type', 'postgresql', '--json']),
    ]);
    assert.equal(okHuman.code, 0, show(okHuman));
    assert.equal(okHuman.stdout, `${target}: ok (${myVersion})\n`);
    assert.equal(okJson.code, 0, show(okJson));
    assert.deepEqual(okJson.json(), { dictionary: DICT, target, ok: true, server_version: myVersion, database: my.name });
    assertError(unset, 'CONFIG_INVALID', `the target of ${DICT} reads its password from $${PW_VAR}, which is not set`, { dictionary: DICT, variable: PW_VAR });
    assert.equal(denied.code, ERROR_CODES['DB-002'].exit, show(denied));
    assert.equal(denied.code, 5);
    const e = denied.json();
    assert.equal(e.error, 'DB-002');
    assert.deepEqual(e.details, { target: `127.0.0.1:3306/${my.name}`, driverCode: 'ER_ACCESS_DENIED_ERROR' });
    assert.match(e.message, new RegExp(`^MySQL/MariaDB at 127\\.0\\.0\\.1:3306/${my.name} refused the login of user '${user}': Access denied for user '${user}'@'[^']+' \\(using password: YES\\)$`));
    assertHumanError(deniedHuman, 'DB-002', e.message);
    // A URL with a password is refused, so it cannot reach the store either.
    assertError(urlPw, 'USAGE', 'the URL contains a password; give it through an environment variable with --password-env instead', { field: 'url' });
    assertError(badVar, 'USAGE', '--password-env must be an environment variable name, got "NOT-A-NAME"', { field: 'password-env' });
    assertError(badPort, 'USAGE', '--port must be a whole number from 1 to 65535, got "70000"', { field: 'port' });
    assertError(noPlace, 'USAGE', 'a postgresql target needs --url or --host/--database', { field: 'url' });
    // The refused settings left the stored target as it was.
    assert.deepEqual((await run(['target', 'show', DICT, '--json'])).json(), view);

    // Neither password is anywhere in the home (store, its WAL, logs) nor in any output.
    for (const file of filesUnder(home.root)) {
      const bytes = readFileSync(file);
      assert.equal(bytes.includes(secret), false, `${file} holds the password`);
      assert.equal(bytes.includes(wrong), false, `${file} holds the wrong password`);
    }
    for (const r of outputs) {
      assert.equal((r.stdout + r.stderr).includes(secret), false, show(r));
      assert.equal((r.stdout + r.stderr).includes(wrong), false, show(r));
    }
  } finally {
    await my.admin(`DROP USER IF EXISTS '${user}'@'%'`);
    await sds(home.root, ['target', 'clear', DICT]);
  }
});

test('target test: PostgreSQL, MariaDB and a SQLite file answer with their versions', async () => {
  const pgTarget = `postgresql postgres@127.0.0.1:5432/${pg.name}`;
  assert.equal((await sds(home.root, ['target', 'set', DICT, '--type', 'postgresql', '--url', pg.config.url!])).code, 0);
  const [ph, pj] = await Promise.all([sds(home.root, ['target', 'test', DICT], { env: NO_DEFAULT }), sds(home.root, ['target', 'test', DICT, '--json'], { env: NO_DEFAULT })]);
  assert.equal(ph.code, 0, show(ph));
  assert.equal(ph.stdout, `${pgTarget}: ok (${pgVersion})\n`);
  assert.deepEqual(pj.json(), { dictionary: DICT, target: pgTarget, ok: true, server_version: pgVersion, database: pg.name });

  const myTarget = `mysql root@127.0.0.1:3306/${my.name}`;
  assert.equal((await sds(home.root, ['target', 'set', DICT, '--type', 'mysql', '--url', my.config.url!])).code, 0);
  const [mh, mj] = await Promise.all([sds(home.root, ['target', 'test', DICT]), sds(home.root, ['target', 'test', DICT, '--json'])]);
  assert.equal(mh.code, 0, show(mh));
  assert.equal(mh.stdout, `${myTarget}: ok (${myVersion})\n`);
  assert.deepEqual(mj.json(), { dictionary: DICT, target: myTarget, ok: true, server_version: myVersion, database: my.name });

  // A relative SQLite file is taken from the directory of `target set`, not of later commands.
  const dir = mkdtempSync(join(tmpdir(), 'sds-target-'));
  const other = mkdtempSync(join(tmpdir(), 'sds-target-'));
  try {
    const file = join(dir, 'out', 'census.sqlite');
    const set = await sds(home.root, ['target', 'set', DICT, '--type', 'sqlite', '--file', join('out', 'census.sqlite'), '--json'], { cwd: dir });
    assert.equal(set.code, 0, show(set));
    const view = { dictionary: DICT, source: 'dictionary', type: 'sqlite', target: `sqlite ${file}`, password_env: null, foreign_keys: false };
    assert.deepEqual(set.json(), view);
    assert.deepEqual((await sds(home.root, ['target', 'show', DICT, '--json'], { cwd: other })).json(), view);
    const [sh, sj] = await Promise.all([sds(home.root, ['target', 'test', DICT], { cwd: other }), sds(home.root, ['target', 'test', DICT, '--json'], { cwd: other })]);
    assert.equal(sh.code, 0, show(sh));
    assert.equal(sh.stdout, `sqlite ${file}: ok (${sqliteVersion()})\n`);
    assert.deepEqual(sj.json(), { dictionary: DICT, target: `sqlite ${file}`, ok: true, server_version: sqliteVersion(), database: file });
    assert.ok(existsSync(file), 'the SQLite file is created where target set said');
    assert.deepEqual(readdirSync(other), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(other, { recursive: true, force: true });
  }

  // --foreign-keys is kept and shown.
  const fk = await sds(home.root, ['target', 'set', DICT, '--type', 'postgresql', '--url', pg.config.url!, '--foreign-keys', '--json']);
  assert.deepEqual(fk.json(), { dictionary: DICT, source: 'dictionary', type: 'postgresql', target: pgTarget, password_env: null, foreign_keys: true });
});

test('target test: a server that is down is DB-001, a missing database DB-003 (exit 5); an unknown dictionary exit 3', async () => {
  const cases: { type: string; url: string; code: 'DB-001' | 'DB-003'; label: string; message: string; driverCode: string }[] = [
    { type: 'postgresql', url: 'postgresql://postgres@127.0.0.1:1/census', code: 'DB-001', label: '127.0.0.1:1/census', message: 'cannot connect to PostgreSQL at 127.0.0.1:1/census: connect ECONNREFUSED 127.0.0.1:1', driverCode: 'ECONNREFUSED' },
    { type: 'mysql', url: 'mysql://root@127.0.0.1:1/census', code: 'DB-001', label: '127.0.0.1:1/census', message: 'cannot connect to MySQL/MariaDB at 127.0.0.1:1/census: connect ECONNREFUSED 127.0.0.1:1', driverCode: 'ECONNREFUSED' },
    {
      type: 'postgresql',
      url: `postgresql://postgres@127.0.0.1:5432/${pg.name}_missing`,
      code: 'DB-003',
      label: `127.0.0.1:5432/${pg.name}_missing`,
      message: `the PostgreSQL database '${pg.name}_missing' does not exist (127.0.0.1:5432/${pg.name}_missing): database "${pg.name}_missing" does not exist`,
      driverCode: '3D000',
    },
    {
      type: 'mysql',
      url: `mysql://root@127.0.0.1:3306/${my.name}_missing`,
      code: 'DB-003',
      label: `127.0.0.1:3306/${my.name}_missing`,
      message: `the MySQL/MariaDB database '${my.name}_missing' does not exist (127.0.0.1:3306/${my.name}_missing): Unknown database '${my.name}_missing'`,
      driverCode: 'ER_BAD_DB_ERROR',
    },
  ];
  // The dictionary's own target (a server that is down) ...
  const set = await sds(home.root, ['target', 'set', DICT, '--type', 'postgresql', '--url', cases[0]!.url]);
  assert.equal(set.code, 0, show(set));
  const own = await Promise.all([sds(home.root, ['target', 'test', DICT, '--json']), sds(home.root, ['target', 'test', DICT])]);
  // ... and every case as the global default, all at once.
  assert.equal((await sds(home.root, ['target', 'clear', DICT])).code, 0);
  const runs = await Promise.all(
    cases.flatMap((c) => {
      const env = { BREAKOUT_DB_TYPE: c.type, BREAKOUT_DB_URL: c.url };
      return [sds(home.root, ['target', 'test', DICT, '--json'], { env }), sds(home.root, ['target', 'test', DICT], { env })];
    }),
  );
  [cases[0]!, ...cases].forEach((c, i) => {
    const [j, h] = i === 0 ? own : [runs[2 * (i - 1)]!, runs[2 * (i - 1) + 1]!];
    assertError(j, c.code, c.message, { target: c.label, driverCode: c.driverCode });
    assertHumanError(h, c.code, c.message);
    assert.equal(j.code, 5);
  });

  const missing = 'NOPE';
  const unknown = await Promise.all([
    sds(home.root, ['target', 'show', missing, '--json']),
    sds(home.root, ['target', 'set', missing, '--type', 'sqlite', '--json']),
    sds(home.root, ['target', 'clear', missing, '--json']),
    sds(home.root, ['target', 'test', missing, '--json']),
  ]);
  for (const r of unknown) assertError(r, 'DICTIONARY_NOT_FOUND', `dictionary ${missing} not found`, { dictionary: missing });
  assert.equal(unknown[0]!.code, 3);
  // A near miss gets a suggestion.
  assertHumanError(await sds(home.root, ['target', 'test', 'cen2000']), 'DICTIONARY_NOT_FOUND', 'dictionary cen2000 not found (names are case-sensitive; did you mean CEN2000?)');
});
