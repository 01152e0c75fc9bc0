/**
 * Errors the target database answers are the target's, never INTERNAL (issue 27, item 6;
 * docs/breakout.md#targets), shown through the compiled CLI against the real PostgreSQL and
 * MariaDB: a PostgreSQL account with no schema it may create in (3F000) fails the breakout with
 * INSUFFICIENT_PERMISSIONS saying what to grant; a read-only PostgreSQL database (25006) and a
 * MariaDB trigger that refuses writes (errno 1644) fail it with TARGET_DATABASE_ERROR, the
 * server's own code in the details.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCliAsync as sds, show, type CliResult } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { createMysqlDatabase, createPostgresDatabase, uniqueName, type TestDatabase } from '../../helpers/test-databases.js';
import { datLines, groupPopstan, POPSTAN, writeDat } from '../../helpers/breakout-helpers.js';

const NO_DEFAULT = { BREAKOUT_DB_TYPE: undefined, BREAKOUT_DB_URL: undefined };

let home: Awaited<ReturnType<typeof tempHome>>;
let pgNoSchema: TestDatabase;
let pgReadOnly: TestDatabase;
let my: TestDatabase;
const role = uniqueName('sds_noschema').slice(0, 40);

before(async () => {
  home = await tempHome();
  [pgNoSchema, pgReadOnly, my] = await Promise.all([createPostgresDatabase(), createPostgresDatabase(), createMysqlDatabase()]);
  // An account that may connect but has no schema to create in: PUBLIC loses CREATE on public
  // (as on PostgreSQL 15 and later) and the account's search_path names no schema at all.
  await pgNoSchema.admin(`CREATE ROLE "${role}" LOGIN`);
  await pgNoSchema.admin(`ALTER ROLE "${role}" SET search_path = ''`);
  await pgNoSchema.admin(`GRANT CONNECT ON DATABASE "${pgNoSchema.name}" TO "${role}"`);
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: pgNoSchema.config.url });
  await c.connect();
  try {
    await c.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
  } finally {
    await c.end();
  }
  // Every new session of this database is read-only (a database put in maintenance).
  await pgReadOnly.admin(`ALTER DATABASE "${pgReadOnly.name}" SET default_transaction_read_only = on`);

  const dat = writeDat(
    home.root,
    'some.dat',
    groupPopstan(datLines())
      .slice(0, 50)
      .flatMap((c) => c.lines),
  );
  for (const args of [
    ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan'],
    ['cases', 'import', POPSTAN, dat, '-q'],
  ]) {
    const r = await sds(home.root, args);
    assert.equal(r.code, 0, show(r));
  }
});

after(async () => {
  await home?.cleanup();
  await Promise.allSettled([pgNoSchema?.drop(), pgReadOnly?.drop(), my?.drop()]);
  await pgNoSchema?.admin(`DROP ROLE IF EXISTS "${role}"`).catch(() => undefined);
});

interface FailedJob {
  status: string;
  error: { code: string; message: string; details: string };
}

/** Points the dictionary at `url` and runs an incremental breakout in the foreground. */
async function breakout(url: string): Promise<{ run: CliResult; job: FailedJob; details: Record<string, unknown> }> {
  const set = await sds(home.root, ['target', 'set', POPSTAN, '--type', url.startsWith('mysql') ? 'mysql' : 'postgresql', '--url', url]);
  assert.equal(set.code, 0, show(set));
  const run = await sds(home.root, ['process-cases-by-dict', POPSTAN, '--json'], { env: NO_DEFAULT });
  const job = run.json() as FailedJob;
  assert.equal(job.status, 'failed', show(run));
  assert.notEqual(job.error.code, 'INTERNAL', show(run));
  return { run, job, details: JSON.parse(job.error.details) as Record<string, unknown> };
}

test('PostgreSQL: an account with no usable schema (3F000) is INSUFFICIENT_PERMISSIONS saying what to grant', async () => {
  const u = new URL(pgNoSchema.config.url!);
  u.username = role;
  const { run, job, details } = await breakout(u.toString());
  assert.equal(run.code, 1, show(run));
  assert.equal(job.error.code, 'INSUFFICIENT_PERMISSIONS');
  assert.equal(
    job.error.message,
    `PostgreSQL at 127.0.0.1:5432/${pgNoSchema.name} refused user '${role}' for lack of rights: no schema has been selected to create in; ` +
      `the user has no schema to create tables in: grant it USAGE and CREATE on one (GRANT USAGE, CREATE ON SCHEMA public TO "${role}") ` +
      `or set its search_path to a schema where it has them (ALTER ROLE "${role}" SET search_path = that_schema)`,
  );
  assert.deepEqual(details, { diagnostic: 'INSUFFICIENT_PERMISSIONS', target: `127.0.0.1:5432/${pgNoSchema.name}`, driverCode: '3F000' });

  // Granting what the message says is enough: the same breakout then completes.
  await pgNoSchema.admin(`ALTER ROLE "${role}" SET search_path = public`);
  const pg = (await import('pg')).default;
  const c = new pg.Client({ connectionString: pgNoSchema.config.url });
  await c.connect();
  try {
    await c.query(`GRANT USAGE, CREATE ON SCHEMA public TO "${role}"`);
  } finally {
    await c.end();
  }
  const again = await sds(home.root, ['process-cases-by-dict', POPSTAN, '--json'], { env: NO_DEFAULT });
  assert.equal(again.code, 0, show(again));
  assert.equal(again.json().status, 'completed');
  assert.equal(again.json().result.total_cases, 50);
});

test('PostgreSQL: an error no code names (25006, a read-only database) is TARGET_DATABASE_ERROR with the SQLSTATE, exit 5', async () => {
  const { run, job, details } = await breakout(pgReadOnly.config.url!);
  assert.equal(run.code, 5, show(run));
  assert.equal(job.error.code, 'TARGET_DATABASE_ERROR');
  assert.equal(
    job.error.message,
    `PostgreSQL at 127.0.0.1:5432/${pgReadOnly.name} answered a statement with SQLSTATE 25006: cannot execute CREATE TABLE in a read-only transaction`,
  );
  assert.deepEqual(details, { diagnostic: 'TARGET_DATABASE_ERROR', target: `127.0.0.1:5432/${pgReadOnly.name}`, driverCode: '25006' });
});

test('MariaDB: an error no code names (a trigger refusing writes, errno 1644) is TARGET_DATABASE_ERROR with errno and SQLSTATE', async () => {
  const first = await sds(home.root, ['target', 'set', POPSTAN, '--type', 'mysql', '--url', my.config.url!]);
  assert.equal(first.code, 0, show(first));
  const ok = await sds(home.root, ['process-cases-by-dict', POPSTAN, '--json'], { env: NO_DEFAULT });
  assert.equal(ok.code, 0, show(ok));
  // Each run records itself in the target's jobs table: a trigger there refuses the next one.
  await my.admin(
    `CREATE TRIGGER \`${my.name}\`.popstan_frozen BEFORE INSERT ON \`${my.name}\`.popstan_cspro_jobs FOR EACH ROW ` +
      `SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'the census archive is frozen'`,
  );
  const { run, job, details } = await breakout(my.config.url!);
  assert.equal(run.code, 5, show(run));
  assert.equal(job.error.code, 'TARGET_DATABASE_ERROR');
  assert.equal(
    job.error.message,
    `MySQL/MariaDB at 127.0.0.1:3306/${my.name} answered a statement with error 1644 (ER_SIGNAL_EXCEPTION): the census archive is frozen`,
  );
  assert.deepEqual(details, {
    diagnostic: 'TARGET_DATABASE_ERROR',
    target: `127.0.0.1:3306/${my.name}`,
    driverCode: 'ER_SIGNAL_EXCEPTION',
    errno: 1644,
    sqlState: '45000',
  });
  // Humans read the code and the message on stderr; nothing says INTERNAL.
  const human = await sds(home.root, ['process-cases-by-dict', POPSTAN], { env: NO_DEFAULT });
  assert.equal(human.code, 5, show(human));
  assert.match(human.stdout, /error +TARGET_DATABASE_ERROR: MySQL\/MariaDB at .* answered a statement with error 1644/);
  assert.doesNotMatch(human.stdout + human.stderr, /INTERNAL/);
});
