/**
 * `sds target set|show|clear|test` through the compiled CLI, against real PostgreSQL and MariaDB
 * servers and real SQLite files: where the effective target comes from (the dictionary, then
 * BREAKOUT_DB_TYPE/BREAKOUT_DB_URL, then the embedded SQLite file), exact replies for humans and
 * --json, passwords read from an environment variable and never stored nor printed, and the
 * DB-00x codes and exit codes of targets that are down, refuse the login or lack the database.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runCliAsync as sds, show, type CliResult } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { createMysqlDatabase, createPostgresDatabase, testCaFile, uniqueName, type TestDatabase } from '../../helpers/test-databases.js';
import { openQuery } from '../../helpers/breakout-helpers.js';
import { ERROR_CODES } from '../../../src/shared/errors.js';

const DICT = 'CEN2000';
/** Without the global default, whatever the shell running the tests has. */
const NO_DEFAULT = { BREAKOUT_DB_TYPE: undefined, BREAKOUT_DB_URL: undefined };
const PW_VAR = 'SDS_TEST_TARGET_PW';

let home: Awaited<ReturnType<typeof tempHome>>;
let pg: TestDatabase;
let my: TestDatabase;
let pgVersion: string;
let myVersion: string;

before(async () => {
  home = await tempHome();
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
  await home?.cleanup();
  await Promise.all([pg?.drop(), my?.drop()]);
});

/** `sds … --json` expected to fail with `code`: exit code of the registry, JSON error on stdout. */
function assertError(r: CliResult, code: keyof typeof ERROR_CODES, message: string, details: Record<string, unknown>): void {
  assert.equal(r.code, ERROR_CODES[code].exit, show(r));
  assert.deepEqual(r.json(), { error: code, message, details });
  assert.equal(r.stderr, '');
}

/** The same failure for humans: one line on stderr, nothing on stdout; a target failure names its diagnostic too. */
function assertHumanError(r: CliResult, code: keyof typeof ERROR_CODES, message: string, diagnostic?: string): void {
  assert.equal(r.code, ERROR_CODES[code].exit, show(r));
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, `sds: ${code}${diagnostic ? ` (${diagnostic})` : ''}: ${message}\n`);
}

function showHuman(v: {
  dictionary: string;
  source: string;
  type: string;
  target: string;
  password_env: string | null;
  foreign_keys: boolean;
  tls: string;
}): string {
  return (
    [
      `dictionary    ${v.dictionary}`,
      `source        ${v.source}`,
      `type          ${v.type}`,
      `target        ${v.target}`,
      `password_env  ${v.password_env ?? ''}`,
      `foreign_keys  ${v.foreign_keys}`,
      `tls           ${v.tls}`,
    ].join('\n') + '\n'
  );
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
  const embedded = {
    dictionary: DICT,
    source: 'default',
    type: 'sqlite',
    target: `sqlite ${join(home.root, 'targets', 'breakout.sqlite')}`,
    password_env: null,
    foreign_keys: false,
    tls: 'disable',
  };
  const [human, json] = await Promise.all([
    sds(home.root, ['target', 'show', DICT], { env: NO_DEFAULT }),
    sds(home.root, ['target', 'show', DICT, '--json'], { env: NO_DEFAULT }),
  ]);
  assert.equal(human.code, 0, show(human));
  assert.equal(human.stdout, showHuman(embedded));
  assert.equal(json.code, 0, show(json));
  assert.deepEqual(json.json(), embedded);

  // The global default: its URL may hold a password, which is never shown.
  const envSecret = `env-${uniqueName('pw')}`;
  const envUrl = new URL(pg.config.url!);
  envUrl.password = envSecret;
  const globalEnv = { BREAKOUT_DB_TYPE: 'postgresql', BREAKOUT_DB_URL: envUrl.toString() };
  const fromEnv = {
    dictionary: DICT,
    source: 'environment',
    type: 'postgresql',
    target: `postgresql postgres@127.0.0.1:5432/${pg.name}`,
    password_env: null,
    foreign_keys: false,
    tls: 'disable',
  };
  const [envHuman, envJson, envTest] = await Promise.all([
    sds(home.root, ['target', 'show', DICT], { env: globalEnv }),
    sds(home.root, ['target', 'show', DICT, '--json'], { env: globalEnv }),
    sds(home.root, ['target', 'test', DICT, '--json'], { env: globalEnv }),
  ]);
  assert.equal(envHuman.stdout, showHuman(fromEnv), show(envHuman));
  assert.deepEqual(envJson.json(), fromEnv);
  assert.equal(envTest.code, 0, show(envTest));
  assert.deepEqual(envTest.json(), {
    dictionary: DICT,
    target: fromEnv.target,
    ok: true,
    server_version: pgVersion,
    database: pg.name,
    tls_mode: 'disable',
    tls_version: 'none',
  });
  for (const r of [envHuman, envJson, envTest]) assert.ok(!(r.stdout + r.stderr).includes(envSecret), show(r));

  // The dictionary's own target wins over the global default.
  const set = await sds(home.root, ['target', 'set', DICT, '--type', 'mysql', '--url', my.config.url!]);
  assert.equal(set.code, 0, show(set));
  assert.equal(set.stdout, `Target of ${DICT}: mysql root@127.0.0.1:3306/${my.name} (TLS disable)\n`);
  const own = {
    dictionary: DICT,
    source: 'dictionary',
    type: 'mysql',
    target: `mysql root@127.0.0.1:3306/${my.name}`,
    password_env: null,
    foreign_keys: false,
    tls: 'disable',
  };
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
  assert.deepEqual(
    (await sds(home.root, ['target', 'show', DICT, '--json'], { env: { BREAKOUT_DB_TYPE: '', BREAKOUT_DB_URL: '' } })).json(),
    embedded,
  );
  // sqlite as the global default without a URL: the embedded file.
  assert.deepEqual(
    (await sds(home.root, ['target', 'show', DICT, '--json'], { env: { BREAKOUT_DB_TYPE: 'sqlite', BREAKOUT_DB_URL: undefined } })).json(),
    { ...embedded, source: 'environment' },
  );
  // sqlite with a plain path (absolute, or relative to the current directory) or a sqlite:// URL.
  const file = join(home.root, 'elsewhere.sqlite');
  for (const url of [file, `sqlite://${file}`]) {
    const r = await sds(home.root, ['target', 'show', DICT, '--json'], { env: { BREAKOUT_DB_TYPE: 'sqlite', BREAKOUT_DB_URL: url } });
    assert.equal(r.code, 0, show(r));
    assert.deepEqual(r.json(), { ...embedded, source: 'environment', target: `sqlite ${file}` });
  }
  const relative = await sds(home.root, ['target', 'show', DICT, '--json'], {
    env: { BREAKOUT_DB_TYPE: 'sqlite', BREAKOUT_DB_URL: 'elsewhere.sqlite' },
    cwd: home.root,
  });
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
  assertError(
    await sds(home.root, ['target', 'set', DICT, '--type', 'Postgres', '--url', pg.config.url!, '--json']),
    'CONFIG_INVALID',
    'type must be exactly one of postgresql, mysql, sqlserver, sqlite; got "Postgres"',
    {
      field: 'type',
    },
  );
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
    const set = await run(
      [
        'target',
        'set',
        DICT,
        '--type',
        'mysql',
        '--host',
        '127.0.0.1',
        '--port',
        '3306',
        '--database',
        my.name,
        '--user',
        user,
        '--password-env',
        PW_VAR,
      ],
      { [PW_VAR]: secret },
    );
    assert.equal(set.code, 0, show(set));
    const target = `mysql ${user}@127.0.0.1:3306/${my.name}`;
    assert.equal(set.stdout, `Target of ${DICT}: ${target} (TLS disable)\n`);
    const view = {
      dictionary: DICT,
      source: 'dictionary',
      type: 'mysql',
      target,
      password_env: PW_VAR,
      foreign_keys: false,
      tls: 'disable',
    };
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
    assert.equal(okHuman.stdout, `${target}: ok (${myVersion}; TLS none, mode disable)\n`);
    assert.equal(okJson.code, 0, show(okJson));
    assert.deepEqual(okJson.json(), {
      dictionary: DICT,
      target,
      ok: true,
      server_version: myVersion,
      database: my.name,
      tls_mode: 'disable',
      tls_version: 'none',
    });
    assertError(unset, 'CONFIG_INVALID', `the target of ${DICT} reads its password from $${PW_VAR}, which is not set`, {
      dictionary: DICT,
      variable: PW_VAR,
    });
    assert.equal(denied.code, ERROR_CODES.DB_CONNECTION_ERROR.exit, show(denied));
    assert.equal(denied.code, 5);
    const e = denied.json();
    // The code a job records, the catalogue code as its diagnostic (docs/errors.md, "One code per failure").
    assert.equal(e.error, 'DB_CONNECTION_ERROR');
    assert.deepEqual(e.details, { diagnostic: 'DB-002', target: `127.0.0.1:3306/${my.name}`, driverCode: 'ER_ACCESS_DENIED_ERROR' });
    assert.match(
      e.message,
      new RegExp(
        `^MySQL/MariaDB at 127\\.0\\.0\\.1:3306/${my.name} refused the login of user '${user}': Access denied for user '${user}'@'[^']+' \\(using password: YES\\)$`,
      ),
    );
    assertHumanError(deniedHuman, 'DB_CONNECTION_ERROR', e.message, 'DB-002');
    // A URL with a password is refused, so it cannot reach the store either.
    assertError(urlPw, 'USAGE', 'the URL contains a password; name an environment variable that holds it instead (option --password-env)', {
      field: 'url',
      settings: ['password-env'],
    });
    assertError(badVar, 'USAGE', 'the password variable must be an environment variable name, got "NOT-A-NAME" (option --password-env)', {
      field: 'password-env',
      settings: ['password-env'],
    });
    assertError(badPort, 'USAGE', 'the port must be a whole number from 1 to 65535, got "70000" (option --port)', {
      field: 'port',
      settings: ['port'],
    });
    assertError(noPlace, 'USAGE', 'a postgresql target needs a URL, or a host and a database (options --url, --host, --database)', {
      field: 'url',
      settings: ['url', 'host', 'database'],
    });
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
  const [ph, pj] = await Promise.all([
    sds(home.root, ['target', 'test', DICT], { env: NO_DEFAULT }),
    sds(home.root, ['target', 'test', DICT, '--json'], { env: NO_DEFAULT }),
  ]);
  assert.equal(ph.code, 0, show(ph));
  assert.equal(ph.stdout, `${pgTarget}: ok (${pgVersion}; TLS none, mode disable)\n`);
  assert.deepEqual(pj.json(), {
    dictionary: DICT,
    target: pgTarget,
    ok: true,
    server_version: pgVersion,
    database: pg.name,
    tls_mode: 'disable',
    tls_version: 'none',
  });

  const myTarget = `mysql root@127.0.0.1:3306/${my.name}`;
  assert.equal((await sds(home.root, ['target', 'set', DICT, '--type', 'mysql', '--url', my.config.url!])).code, 0);
  const [mh, mj] = await Promise.all([sds(home.root, ['target', 'test', DICT]), sds(home.root, ['target', 'test', DICT, '--json'])]);
  assert.equal(mh.code, 0, show(mh));
  assert.equal(mh.stdout, `${myTarget}: ok (${myVersion}; TLS none, mode disable)\n`);
  assert.deepEqual(mj.json(), {
    dictionary: DICT,
    target: myTarget,
    ok: true,
    server_version: myVersion,
    database: my.name,
    tls_mode: 'disable',
    tls_version: 'none',
  });

  // A relative SQLite file is taken from the directory of `target set`, not of later commands.
  const dir = mkdtempSync(join(tmpdir(), 'sds-target-'));
  const other = mkdtempSync(join(tmpdir(), 'sds-target-'));
  try {
    const file = join(dir, 'out', 'census.sqlite');
    const set = await sds(home.root, ['target', 'set', DICT, '--type', 'sqlite', '--file', join('out', 'census.sqlite'), '--json'], {
      cwd: dir,
    });
    assert.equal(set.code, 0, show(set));
    const view = {
      dictionary: DICT,
      source: 'dictionary',
      type: 'sqlite',
      target: `sqlite ${file}`,
      password_env: null,
      foreign_keys: false,
      tls: 'disable',
    };
    assert.deepEqual(set.json(), view);
    assert.deepEqual((await sds(home.root, ['target', 'show', DICT, '--json'], { cwd: other })).json(), view);
    // target test creates nothing: the folder of the file does not exist yet, which it says.
    const missing = await sds(home.root, ['target', 'test', DICT, '--json'], { cwd: other });
    assertError(
      missing,
      'TARGET_FILE_DIR_MISSING',
      `the folder ${join(dir, 'out')} of the SQLite target file does not exist (nothing was created)`,
      { file },
    );
    assert.deepEqual(readdirSync(dir), []);
    mkdirSync(join(dir, 'out'));
    const [sh, sj] = await Promise.all([
      sds(home.root, ['target', 'test', DICT], { cwd: other }),
      sds(home.root, ['target', 'test', DICT, '--json'], { cwd: other }),
    ]);
    assert.equal(sh.code, 0, show(sh));
    assert.equal(sh.stdout, `sqlite ${file}: ok (${sqliteVersion()}; TLS none, mode disable)\n`);
    assert.deepEqual(sj.json(), {
      dictionary: DICT,
      target: `sqlite ${file}`,
      ok: true,
      server_version: sqliteVersion(),
      database: file,
      tls_mode: 'disable',
      tls_version: 'none',
    });
    // Nor the file itself: the first breakout makes it.
    assert.deepEqual(readdirSync(join(dir, 'out')), []);
    assert.deepEqual(readdirSync(other), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(other, { recursive: true, force: true });
  }

  // --foreign-keys is kept and shown.
  const fk = await sds(home.root, ['target', 'set', DICT, '--type', 'postgresql', '--url', pg.config.url!, '--foreign-keys', '--json']);
  assert.deepEqual(fk.json(), {
    dictionary: DICT,
    source: 'dictionary',
    type: 'postgresql',
    target: pgTarget,
    password_env: null,
    foreign_keys: true,
    tls: 'disable',
  });
});

test('target test: a server that is down is DB_CONNECTION_ERROR (DB-001), a missing database (DB-003), exit 5; an unknown dictionary exit 3', async () => {
  const cases: { type: string; url: string; code: 'DB-001' | 'DB-003'; label: string; message: string; driverCode: string }[] = [
    {
      type: 'postgresql',
      url: 'postgresql://postgres@127.0.0.1:1/census',
      code: 'DB-001',
      label: '127.0.0.1:1/census',
      message: 'cannot connect to PostgreSQL at 127.0.0.1:1/census: connect ECONNREFUSED 127.0.0.1:1',
      driverCode: 'ECONNREFUSED',
    },
    {
      type: 'mysql',
      url: 'mysql://root@127.0.0.1:1/census',
      code: 'DB-001',
      label: '127.0.0.1:1/census',
      message: 'cannot connect to MySQL/MariaDB at 127.0.0.1:1/census: connect ECONNREFUSED 127.0.0.1:1',
      driverCode: 'ECONNREFUSED',
    },
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
    // The code a job records, the catalogue code as its diagnostic (docs/errors.md, "One code per failure").
    assertError(j, 'DB_CONNECTION_ERROR', c.message, { diagnostic: c.code, target: c.label, driverCode: c.driverCode });
    assertHumanError(h, 'DB_CONNECTION_ERROR', c.message, c.code);
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
  assertHumanError(
    await sds(home.root, ['target', 'test', 'cen2000']),
    'DICTIONARY_NOT_FOUND',
    'dictionary cen2000 not found (names are case-sensitive; did you mean CEN2000?)',
  );
});

test(
  'one code per failure: a refused connection is DB_CONNECTION_ERROR (DB-001) from target test, from a job (--wait) and in the job record',
  { timeout: 120_000 },
  async () => {
    const set = await sds(home.root, ['target', 'set', DICT, '--type', 'postgresql', '--url', 'postgresql://postgres@127.0.0.1:1/census']);
    assert.equal(set.code, 0, show(set));
    try {
      const [tested, job] = await Promise.all([
        sds(home.root, ['target', 'test', DICT, '--json']),
        sds(home.root, ['breakout', 'start', DICT, '--wait', '--json']),
      ]);
      assert.equal(tested.code, 5, show(tested));
      assert.equal(job.code, 5, show(job));
      const t = tested.json();
      const j = job.json();
      assert.equal(t.error, 'DB_CONNECTION_ERROR');
      assert.equal(j.error.code, t.error);
      const jobDetails = JSON.parse(j.error.details);
      assert.equal(t.details.diagnostic, 'DB-001');
      assert.equal(jobDetails.diagnostic, t.details.diagnostic);
      assert.equal(j.error.message, t.message);
      // The stored job record, as `breakout status` (and GET /api/breakout/status/{id}) shows it.
      const status = await sds(home.root, ['breakout', 'status', j.job_id, '--json']);
      assert.equal(status.code, 0, show(status));
      assert.equal(status.json().error.code, 'DB_CONNECTION_ERROR');
      assert.equal(JSON.parse(status.json().error.details).diagnostic, 'DB-001');
    } finally {
      await sds(home.root, ['target', 'clear', DICT]);
    }
  },
);

test('target set: the URL scheme matches --type, a database is named, every query parameter is honoured or refused by name (exit 2, nothing stored)', async () => {
  const before = (await sds(home.root, ['target', 'show', DICT, '--json'], { env: NO_DEFAULT })).json();
  const refused: [string[], keyof typeof ERROR_CODES, string, Record<string, unknown>][] = [
    [
      ['--type', 'postgresql', '--url', 'mysql://root@127.0.0.1/census'],
      'TARGET_URL_INVALID',
      'a postgresql target URL must start with postgresql:// or postgres://, not mysql://',
      { field: 'url', scheme: 'mysql' },
    ],
    [
      ['--type', 'mysql', '--url', 'http://127.0.0.1/census'],
      'TARGET_URL_INVALID',
      'a mysql target URL must start with mysql:// or mariadb://, not http://',
      { field: 'url', scheme: 'http' },
    ],
    [
      ['--type', 'sqlite', '--url', 'postgresql://u@127.0.0.1/census'],
      'TARGET_URL_INVALID',
      'a sqlite target URL must start with sqlite://, not postgresql://; give the file as the database setting (option --database)',
      { field: 'url', scheme: 'postgresql', settings: ['database'] },
    ],
    [
      ['--type', 'postgresql', '--url', 'postgresql://postgres@127.0.0.1:5432'],
      'TARGET_DATABASE_MISSING',
      'a postgresql target needs a database name: put it in the URL path (postgresql://user@host:5432/database) or give the database setting (option --database)',
      { field: 'database', settings: ['database'] },
    ],
    [
      ['--type', 'mysql', '--host', '127.0.0.1', '--user', 'root'],
      'TARGET_DATABASE_MISSING',
      'a mysql target needs a database name: put it in the URL path (mysql://user@host:3306/database) or give the database setting (option --database)',
      { field: 'database', settings: ['database'] },
    ],
    [
      ['--type', 'postgresql', '--url', 'postgresql://postgres@127.0.0.1/census?foo=1'],
      'TARGET_PARAM_UNKNOWN',
      'the postgresql target URL parameter "foo" is not one sds honours (known: sslmode, sslrootcert, sslcert, sslkey)',
      { field: 'url', parameter: 'foo' },
    ],
    [
      ['--type', 'postgresql', '--url', 'postgresql://postgres@127.0.0.1/census?sslmode=sometimes'],
      'TARGET_TLS_INVALID',
      'sslmode=sometimes is not one of disable, allow, prefer, require, verify-ca, verify-full',
      { field: 'url', parameter: 'sslmode' },
    ],
    [
      ['--type', 'postgresql', '--url', 'postgresql://postgres@127.0.0.1/census?sslmode=require', '--tls-mode', 'verify-full'],
      'TARGET_TLS_INVALID',
      'the TLS mode is given twice with two values: "require" in the URL and "verify-full" as the TLS mode setting; give it once (options --url, --tls-mode)',
      { field: 'tls-mode', settings: ['url', 'tls-mode'] },
    ],
    [
      ['--type', 'postgresql', '--url', 'postgresql://postgres@127.0.0.1/census?sslmode=verify-full&sslrootcert=ca.pem'],
      'TARGET_TLS_INVALID',
      'the TLS file "ca.pem" in the URL must be an absolute path (or be given as the TLS ca setting) (option --tls-ca)',
      { field: 'url', settings: ['tls-ca'] },
    ],
    [
      ['--type', 'mysql', '--url', 'mysql://root@127.0.0.1/census', '--tls-mode', 'prefer'],
      'TARGET_TLS_INVALID',
      'a mysql target cannot use the TLS mode prefer (it takes disable, require, verify-ca, verify-full)',
      { field: 'tls-mode', mode: 'prefer' },
    ],
    [
      ['--type', 'sqlite', '--database', '/tmp/x.sqlite', '--tls-mode', 'require'],
      'USAGE',
      'the setting tls-mode does not apply to a sqlite target (option --tls-mode)',
      { field: 'tlsMode', settings: ['tls-mode'] },
    ],
  ];
  const runs = await Promise.all(refused.map(([args]) => sds(home.root, ['target', 'set', DICT, ...args, '--json'], { env: NO_DEFAULT })));
  refused.forEach(([, code, message, details], i) => assertError(runs[i]!, code, message, details));
  for (const code of ['TARGET_URL_INVALID', 'TARGET_DATABASE_MISSING', 'TARGET_PARAM_UNKNOWN', 'TARGET_TLS_INVALID'] as const)
    assert.equal(ERROR_CODES[code].exit, 2);
  assert.deepEqual((await sds(home.root, ['target', 'show', DICT, '--json'], { env: NO_DEFAULT })).json(), before);
  // The same rules for the global default in the environment.
  assertError(
    await sds(home.root, ['target', 'show', DICT, '--json'], {
      env: { BREAKOUT_DB_TYPE: 'postgresql', BREAKOUT_DB_URL: 'postgresql://postgres@127.0.0.1/census?ssl=true' },
    }),
    'TARGET_PARAM_UNKNOWN',
    'the postgresql target URL parameter "ssl" is not one sds honours (known: sslmode, sslrootcert, sslcert, sslkey)',
    { field: 'url', parameter: 'ssl' },
  );
});

test('TLS through the CLI: target set stores it, show says what is in force, test reports the negotiated version', async () => {
  const ca = testCaFile();
  const url = `postgresql://postgres@localhost:5432/${pg.name}?sslmode=verify-full`;
  const set = await sds(home.root, ['target', 'set', DICT, '--type', 'postgresql', '--url', url, '--tls-ca', ca, '--json']);
  assert.equal(set.code, 0, show(set));
  assert.equal(set.json().tls, `verify-full (CA ${ca})`);
  try {
    const [h, j] = await Promise.all([sds(home.root, ['target', 'test', DICT]), sds(home.root, ['target', 'test', DICT, '--json'])]);
    assert.equal(j.code, 0, show(j));
    assert.equal(j.json().tls_mode, 'verify-full');
    assert.match(j.json().tls_version, /^TLSv1\.[23]$/);
    assert.equal(
      h.stdout,
      `postgresql postgres@localhost:5432/${pg.name}: ok (${pgVersion}; TLS ${j.json().tls_version}, mode verify-full)\n`,
    );
    // MariaDB with the --tls-* fields only; the wrong host name (127.0.0.1) fails with the job's code.
    const my1 = await sds(home.root, [
      'target',
      'set',
      DICT,
      '--type',
      'mysql',
      '--host',
      '127.0.0.1',
      '--database',
      my.name,
      '--user',
      'root',
      '--tls-mode',
      'verify-full',
      '--tls-ca',
      ca,
    ]);
    assert.equal(my1.code, 0, show(my1));
    const wrong = await sds(home.root, ['target', 'test', DICT, '--json']);
    assert.equal(wrong.code, 5, show(wrong));
    assert.equal(wrong.json().error, 'DB_CONNECTION_ERROR');
    assert.match(wrong.json().message, /^TLS \(verify-full\) with MySQL\/MariaDB at 127\.0\.0\.1:3306\/.* failed: .*127\.0\.0\.1/);
    const my2 = await sds(home.root, [
      'target',
      'set',
      DICT,
      '--type',
      'mysql',
      '--host',
      'localhost',
      '--database',
      my.name,
      '--user',
      'root',
      '--tls-mode',
      'verify-full',
      '--tls-ca',
      ca,
    ]);
    assert.equal(my2.code, 0, show(my2));
    const right = await sds(home.root, ['target', 'test', DICT, '--json']);
    assert.equal(right.code, 0, show(right));
    assert.match(right.json().tls_version, /^TLSv1\.[23]$/);
    // A CA file that disappeared is named when connecting.
    const gone = join(home.root, 'gone-ca.pem');
    assert.equal(
      (
        await sds(home.root, [
          'target',
          'set',
          DICT,
          '--type',
          'mysql',
          '--host',
          'localhost',
          '--database',
          my.name,
          '--tls-mode',
          'verify-ca',
          '--tls-ca',
          gone,
        ])
      ).code,
      0,
    );
    assertError(
      await sds(home.root, ['target', 'test', DICT, '--json']),
      'TLS_FILE_UNREADABLE',
      `the TLS CA certificate file ${gone} cannot be read (ENOENT)`,
      { file: gone, role: 'ca' },
    );
  } finally {
    await sds(home.root, ['target', 'clear', DICT]);
  }
});
