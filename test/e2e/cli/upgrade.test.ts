import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { loadMigrations, migrate, migrationLabel } from '../../../src/store/migrate.js';
import { runCli, SDS_BIN, show, type CliResult } from '../../helpers/run-cli.js';
import { startServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-home.js';

/** The home written by sds 0.1.0: fixtures/stores/release-0.1.0/README.md says how and what it holds. */
const FIXTURE = new URL('../../../fixtures/stores/release-0.1.0/', import.meta.url).pathname;
const FIXTURE_VERSION = 15;
const MIGRATIONS = loadMigrations();
const LATEST = MIGRATIONS.at(-1)!.version;
// The one before it, by number: numbers may have gaps while branches are being merged.
const PREVIOUS = MIGRATIONS.at(-2)!.version;

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * Commands that open the store, each as a user runs it: every one must refuse a store that needs
 * migrating. `init` and `quickstart` too (they migrate only the home they create).
 */
const STORE_COMMANDS: string[][] = [
  ['init'],
  ['quickstart'],
  ['dict', 'list'],
  ['dict', 'show', 'CEN2000'],
  ['cases', 'list', 'CEN2000'],
  ['users', 'list'],
  ['target', 'show', 'CEN2000'],
  ['schedule', 'list'],
  ['webhooks', 'list'],
  ['webhooks', 'deliver'],
  ['files', 'list'],
  ['breakout', 'jobs'],
  ['status'],
  ['metrics'],
  ['logs'],
  ['process-cases-by-dict', 'CEN2000'],
  ['scheduler-run'],
  ['serve', '--port', '0'],
];

/** Asserts that `r` is the refusal of a store at `version` by this sds, naming the home and `sds migrate`. */
function assertRefused(r: CliResult, home: string, version: number, what: string): void {
  assert.equal(r.code, 3, `${what}: ${show(r)}`);
  const reply = r.json<{ error: string | { code: string; message: string }; message: string; details?: Record<string, unknown> }>();
  // `sds status --json` answers in the status webhook's envelope, {success, data, error: {code, message}}.
  const e = typeof reply.error === 'object' ? { error: reply.error.code, message: reply.error.message, details: undefined } : reply;
  assert.equal(e.error, 'STORE_NEEDS_MIGRATION', what);
  if (what !== 'status')
    assert.deepEqual(
      e.details,
      {
        home,
        version,
        needs: LATEST,
        pending: MIGRATIONS.filter((m) => m.version > version).map(migrationLabel),
      },
      what,
    );
  assert.ok(e.message.includes(home) && e.message.includes(`schema version ${version}`), `${what}: ${e.message}`);
  assert.ok(e.message.includes(`needs version ${LATEST}`), `${what}: ${e.message}`);
  assert.ok(e.message.includes(`sds --home ${home} migrate`), `${what}: ${e.message}`);
}

/** Every store command refuses the home, and the store file is byte for byte what it was. */
function assertEveryCommandRefuses(home: string, db: string, version: number): void {
  const before = sha256(db);
  for (const args of STORE_COMMANDS) assertRefused(runCli(home, ['--json', ...args]), home, version, args.join(' '));
  assert.equal(sha256(db), before, 'a refused command changed the store');
}

/** `sds --home HOME --json ...args` as a subprocess, not waited for (two at once race each other). */
function cliAsync(home: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SDS_BIN, '--home', home, '--json', ...args], {
      env: { ...process.env, NO_COLOR: '1', CI: '1' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('a home written by sds 0.1.0 is refused until `sds migrate`, then reads back whole through the CLI and HTTP', async (t) => {
  const home = tempDir();
  t.after(home.cleanup);
  cpSync(FIXTURE, home.root, { recursive: true });

  const status = runCli(home.root, ['--json', 'migrate', '--status']);
  assert.equal(status.code, 0, show(status));
  const s = status.json<{ schema_version: number; latest_version: number; up_to_date: boolean; migrations: { state: string }[] }>();
  assert.equal(s.schema_version, FIXTURE_VERSION);
  assert.equal(s.latest_version, LATEST);
  assert.equal(s.up_to_date, LATEST === FIXTURE_VERSION);
  assert.equal(s.migrations.filter((m) => m.state === 'pending').length, MIGRATIONS.filter((m) => m.version > FIXTURE_VERSION).length);

  // Only when this build has migrations past the fixture's does the old store need migrating.
  if (LATEST > FIXTURE_VERSION) assertEveryCommandRefuses(home.root, home.db, FIXTURE_VERSION);

  const m = runCli(home.root, ['--json', 'migrate', '--no-backup']);
  assert.equal(m.code, 0, show(m));
  assert.deepEqual(m.json(), {
    home: home.root,
    from_version: FIXTURE_VERSION,
    schema_version: LATEST,
    migrations_applied: MIGRATIONS.filter((x) => x.version > FIXTURE_VERSION).map(migrationLabel),
    backup: null,
  });

  const json = <T>(...args: string[]): T => {
    const r = runCli(home.root, ['--json', ...args]);
    assert.equal(r.code, 0, `${args.join(' ')}: ${show(r)}`);
    return r.json<T>();
  };

  const dicts = json<{ name: string; label: string }[]>('dict', 'list');
  assert.deepEqual(
    dicts.map((d) => [d.name, d.label]),
    [
      ['CEN2000', 'popstan'],
      ['TRIMMED_IDS_DICT', 'trimmed'],
    ],
  );
  assert.equal(json<{ description: string }>('dict', 'show', 'CEN2000').description, 'Popstan Census');

  const cases = json<{ total: number; data: { guid: string; case_label: string; deleted: boolean }[] }>('cases', 'list', 'CEN2000');
  assert.equal(cases.total, 8);
  assert.deepEqual(
    cases.data.filter((c) => c.deleted).map((c) => [c.guid, c.case_label]),
    [['b672500a-fe00-593d-95ed-52b05af17fc9', '010117100121120281']],
  );
  assert.equal(cases.data.filter((c) => !c.deleted).length, 7);
  const one = json<{ id: string; caseids: string; deleted: boolean }>('cases', 'show', 'CEN2000', '2105fee7-0ee0-54e1-993d-833fdfcbd1ff');
  assert.deepEqual([one.id, one.caseids, one.deleted], ['2105fee7-0ee0-54e1-993d-833fdfcbd1ff', '010101800310070061', false]);

  const users = json<{ id: string; username: string; role: string; disabled: boolean }[]>('users', 'list');
  assert.deepEqual(
    users.map((u) => [u.username, u.role, u.disabled]),
    [
      ['alice', 'Administrator', false],
      ['bob', 'Standard User', false],
    ],
  );
  // Migration 0023 gave each account its own UUID (docs/http-api.md#what-ends-a-token).
  for (const u of users) assert.match(u.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/, u.username);
  assert.notEqual(users[0]!.id, users[1]!.id);

  const target = json<Record<string, unknown>>('target', 'show', 'TRIMMED_IDS_DICT');
  assert.equal(target.type, 'postgresql');
  assert.equal(target.target, 'postgresql census@db.example:5432/census');
  assert.equal(target.password_env, 'CENSUS_PW');
  assert.equal(target.tls, 'disable');

  const schedules = json<{ schedules: { dictionary: string; cron_expression: string; enabled: boolean }[] }>('schedule', 'list');
  assert.deepEqual(
    schedules.schedules.map((x) => [x.dictionary, x.cron_expression, x.enabled]),
    [['TRIMMED_IDS_DICT', '30 1 * * *', true]],
  );

  assert.deepEqual(
    json<{ name: string; url: string; events: string[]; active: boolean; secret: string }[]>('webhooks', 'list').map((w) => [
      w.name,
      w.url,
      w.events,
      w.active,
      w.secret,
    ]),
    [['office', 'https://hooks.example/sds', ['case_uploaded', 'case_deleted'], true, 'fixture-secret-0123456789']],
  );

  assert.deepEqual(
    json<{ name: string; size: number }[]>('files', 'list').map((f) => [f.name, f.size]),
    [['photos/dwelling.txt', 20]],
  );
  const file = runCli(home.root, ['files', 'get', 'photos/dwelling.txt']);
  assert.equal(file.code, 0, show(file));
  assert.equal(file.stdout, 'photo of a dwelling\n');

  const jobs = json<{ data: { status: string; dictionaries: string[]; cases_processed: number }[] }>('breakout', 'jobs');
  assert.deepEqual(
    jobs.data.map((j) => [j.status, j.dictionaries, j.cases_processed]),
    [['completed', ['CEN2000'], 7]],
  );
  const tables = json<{ database: string; tables: { name: string; row_count: number }[] }>('breakout', 'tables', 'CEN2000');
  assert.equal(tables.database, `${home.root}/targets/breakout.sqlite`);
  assert.equal(tables.tables.find((x) => x.name === 'popstan_cases')?.row_count, 7);

  // The passwords set by 0.1.0 still log in, over HTTP, and a wrong one still does not.
  const server = await startServe(home.root);
  t.after(() => server.stop());
  const login = (username: string, password: string) =>
    fetch(`${server.url}/api/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', username, password }),
    });
  const ok = await login('alice', 'old-release-pw-1');
  assert.equal(ok.status, 200, await ok.clone().text());
  const token = ((await ok.json()) as { access_token: string }).access_token;
  const dictsOverHttp = await fetch(`${server.url}/api/dictionaries`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(dictsOverHttp.status, 200);
  assert.equal((await login('bob', 'old-release-pw-2')).status, 200);
  assert.equal((await login('alice', 'not-the-password')).status, 401);
});

test('a store one migration behind: every command refuses it, migrate backs it up first, two `sds migrate` at once apply it once', async (t) => {
  const home = tempDir();
  t.after(home.cleanup);
  const scratch = tempDir();
  t.after(scratch.cleanup);
  const db = new Database(home.db);
  migrate(
    db,
    MIGRATIONS.filter((m) => m.version < LATEST),
  );
  db.close();
  const last = migrationLabel(MIGRATIONS.at(-1)!);

  assertEveryCommandRefuses(home.root, home.db, PREVIOUS);

  // Without --json the message on stderr carries the same advice.
  const human = runCli(home.root, ['dict', 'list']);
  assert.equal(human.code, 3);
  assert.match(human.stderr, /^sds: STORE_NEEDS_MIGRATION: .*run `sds --home \S+ migrate`/m);

  const status = runCli(home.root, ['--json', 'migrate', '--status']);
  assert.equal(status.code, 0, show(status));
  const s = status.json<{ schema_version: number; up_to_date: boolean; migrations: { version: number; name: string; state: string }[] }>();
  assert.equal(s.schema_version, PREVIOUS);
  assert.equal(s.up_to_date, false);
  assert.deepEqual(
    s.migrations.filter((m) => m.state === 'pending').map((m) => m.version),
    [LATEST],
  );
  assert.equal(s.migrations.length, MIGRATIONS.length);
  const humanStatus = runCli(home.root, ['migrate', '--status']);
  assert.match(humanStatus.stdout, new RegExp(`${String(LATEST).padStart(4, '0')}\\s+${MIGRATIONS.at(-1)!.name}\\s+pending`));

  const bad = runCli(home.root, ['--json', 'migrate', '--status', '--no-backup']);
  assert.equal(bad.code, 2, show(bad));
  assert.equal(bad.json().error, 'USAGE');

  // Without --no-backup, migrate backs the home up first (into <home>/backups/), then applies.
  const backupDir = join(scratch.root, 'pre-migrate');
  const before = sha256(home.db);
  const migrated = runCli(home.root, ['--json', 'migrate', '--backup-dir', backupDir]);
  assert.equal(migrated.code, 0, show(migrated));
  const m = migrated.json<{ backup: string; from_version: number; schema_version: number; migrations_applied: string[] }>();
  assert.equal(m.from_version, PREVIOUS);
  assert.equal(m.schema_version, LATEST);
  assert.deepEqual(m.migrations_applied, [last]);
  assert.equal(dirname(m.backup), backupDir);
  // The backup holds the store as it was before migrating: restored, it is one migration behind.
  const restoredRoot = join(scratch.root, 'restored');
  const restored = runCli(restoredRoot, ['--json', 'restore', m.backup]);
  assert.equal(restored.code, 0, show(restored));
  const restoredStatus = runCli(restoredRoot, ['--json', 'migrate', '--status']);
  assert.equal(restoredStatus.json<{ schema_version: number }>().schema_version, PREVIOUS);
  assert.notEqual(sha256(home.db), before);

  // Once more from the older store (the restored copy), two at once with --no-backup.
  const [a, b] = await Promise.all([
    cliAsync(restoredRoot, ['migrate', '--no-backup']),
    cliAsync(restoredRoot, ['migrate', '--no-backup']),
  ]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  const applied = [a, b].map((r) => (JSON.parse(r.stdout) as { migrations_applied: string[] }).migrations_applied);
  assert.deepEqual(applied.flat(), [last], JSON.stringify(applied));
  for (const r of [a, b]) assert.equal((JSON.parse(r.stdout) as { schema_version: number }).schema_version, LATEST);

  const after = runCli(restoredRoot, ['--json', 'migrate', '--status']);
  assert.equal(after.json<{ up_to_date: boolean }>().up_to_date, true);
  const list = runCli(restoredRoot, ['--json', 'dict', 'list']);
  assert.equal(list.code, 0, show(list));
  assert.deepEqual(list.json(), []);
  // Nothing pending: `sds migrate` needs no backup step and says it applied nothing.
  const again = runCli(restoredRoot, ['--json', 'migrate']);
  assert.equal(again.code, 0, show(again));
  assert.deepEqual(again.json<{ migrations_applied: string[]; backup: null }>().migrations_applied, []);
});

test('a background entry point refuses a store that needs migrating, with the same code', (t) => {
  const home = tempDir();
  t.after(home.cleanup);
  const db = new Database(home.db);
  migrate(
    db,
    MIGRATIONS.filter((m) => m.version < LATEST),
  );
  db.close();
  const entry = new URL('../../../dist/entry/run-now.js', import.meta.url).pathname;
  const r = spawnSync(process.execPath, [entry, '--home', home.root, '--claimed-run', '1', 'CEN2000'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 3, r.stderr);
  assert.match(r.stderr, /^sds run-now: STORE_NEEDS_MIGRATION: the store of the home /m);
});

test('a store written by a newer sds: --status reports it, migrate and every other command refuse it with STORE_TOO_NEW', (t) => {
  const home = tempDir();
  t.after(home.cleanup);
  assert.equal(runCli(home.root, ['init']).code, 0);
  const db = new Database(home.db);
  db.pragma(`user_version = ${LATEST + 1}`);
  db.close();

  const status = runCli(home.root, ['--json', 'migrate', '--status']);
  assert.equal(status.code, 0, show(status));
  const s = status.json<{ schema_version: number; latest_version: number; up_to_date: boolean }>();
  assert.deepEqual([s.schema_version, s.latest_version, s.up_to_date], [LATEST + 1, LATEST, false]);
  assert.match(runCli(home.root, ['migrate', '--status']).stdout, /written by a newer sds/);

  const before = sha256(home.db);
  for (const args of [['migrate'], ['migrate', '--no-backup'], ['dict', 'list'], ['init']]) {
    const r = runCli(home.root, ['--json', ...args]);
    assert.equal(r.code, 1, `${args.join(' ')}: ${show(r)}`);
    assert.equal(r.json().error, 'STORE_TOO_NEW', args.join(' '));
  }
  assert.equal(sha256(home.db), before);
});

test('two `sds init` of the same new home at once both succeed, and the home has every migration once', async (t) => {
  const home = tempDir();
  t.after(home.cleanup);
  const runs = await Promise.all([cliAsync(home.root, ['init']), cliAsync(home.root, ['init'])]);
  for (const r of runs) assert.equal(r.code, 0, r.stderr);
  const applied = runs.flatMap((r) => (JSON.parse(r.stdout) as { migrations_applied: string[] }).migrations_applied);
  assert.deepEqual(applied.sort(), MIGRATIONS.map(migrationLabel).sort());
  const status = runCli(home.root, ['--json', 'migrate', '--status']);
  assert.equal(status.json<{ up_to_date: boolean }>().up_to_date, true);
});
