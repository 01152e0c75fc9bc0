/**
 * Moving a home to PostgreSQL through the real CLI (docs/production.md, "Moving a home to
 * PostgreSQL"): a SQLite home filled through the real paths (dictionary and imported cases,
 * accounts, a media file, a target and its schedule, sync uploads of a real `sds serve`, a
 * webhook with changes waiting in its outbox) is copied by `sds store copy` into an empty
 * database owned by a role that is not a superuser, as an office gives sds; then the commands on
 * the PostgreSQL store see the same data, the copy raised no change of its own, `sds store verify`
 * passes, a row changed afterwards fails it naming its table, and the next sync upload gets a
 * revision above the copied ones with the triggers at work again. The home's files (a media
 * file, a synced file, an office file put by hand, a package with its build time, a binary case
 * item) are in the database afterwards and a `sds serve` on it serves them with the bytes and
 * headers the SQLite home served; verify names a file changed since. Refused: a database that
 * holds something, a home in use (open store, a scheduled run going), a store that needs migrating, a
 * file whose bytes no longer match its metadata (nothing kept, the database copied into again).
 * Ctrl-C during a copy rolls it back.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { spawn } from 'node:child_process';
import { runCli, SDS_BIN, show } from '../../helpers/run-cli.js';
import { startServe } from '../../helpers/serve-process.js';
import { popstanCases, SyncDevice } from '../../helpers/sync-client.js';
import type { TestServer } from '../../helpers/http-server.js';
import { fixture, tempDir } from '../../helpers/temp-home.js';
import { createPostgresDatabase, type TestDatabase } from '../../helpers/test-databases.js';
import { photoDescriptor, simpleCapiWithPhoto } from '../../helpers/csweb-fixture.js';
import { zipOf } from '../../helpers/csweb-files-fixture.js';

const PASSWORD = 'standard-pass-1';
const ADMIN_PASSWORD = 'admin-password-1';
const md5 = (b: Buffer | string): string => createHash('md5').update(b).digest('hex');
const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

/** The files a filled home serves, each a route of `sds serve` (and its bytes): media, a synced file, an office file, a package. */
const SERVED = [
  '/api/files/photos/house 1.jpg/content',
  '/api/files/paradata/plc-a.txt/content',
  '/api/files/docs/manual.txt/content',
  '/api/apps/Census',
];
/** The headers of a served file compared between the two stores. */
const FILE_HEADERS = ['etag', 'last-modified', 'content-length', 'content-type', 'content-md5'];
/** A binary case item (a photo) of a case of SIMPLECAPI_DICT. */
const PHOTO = Buffer.from(Array.from({ length: 150_000 }, (_, i) => (i * 13 + 5) % 256));

interface Served {
  status: number;
  headers: Record<string, string | null>;
  sha256: string;
}

/** What `sds serve` at `base` answers for each file of SERVED, as `user`, and the photo a tablet downloads. */
async function servedFiles(base: string): Promise<{ files: Record<string, Served>; photo: Buffer | undefined }> {
  const files: Record<string, Served> = {};
  const server = serverOf(base);
  for (const path of SERVED) {
    const r = await server.call(null, path);
    const body = Buffer.from(await r.arrayBuffer());
    files[path] = { status: r.status, headers: Object.fromEntries(FILE_HEADERS.map((h) => [h, r.headers.get(h)])), sha256: sha256(body) };
  }
  const tablet = new SyncDevice(serverOf(base), `tablet-${randomBytes(4).toString('hex')}`, 'standard');
  await tablet.get('SIMPLECAPI_DICT', 100);
  return { files, photo: tablet.binaries.get(md5(PHOTO))?.content };
}

/** A database owned by a new login role without superuser, as docs/production.md makes it; the URL logs in as that role. */
async function ownedDatabase(): Promise<{ db: TestDatabase; url: string; drop(): Promise<void> }> {
  const db = await createPostgresDatabase();
  const role = `sds_owner_${randomBytes(4).toString('hex')}`;
  await db.admin(`CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE`);
  await db.admin(`ALTER DATABASE "${db.name}" OWNER TO ${role}`);
  const u = new URL(db.config.url!);
  u.username = role;
  return {
    db,
    url: u.toString(),
    async drop() {
      await db.drop();
      await db.admin(`DROP ROLE IF EXISTS ${role}`);
    },
  };
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

/** What SyncDevice needs of a server: `call` with a bearer token of the interviewer (or of `admin`). */
function serverOf(base: string, username = 'interviewer'): TestServer {
  let token: string | undefined;
  return {
    async call(_user: unknown, path: string, init: RequestInit = {}) {
      if (token === undefined) {
        const r = await fetch(`${base}/api/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ grant_type: 'password', username, password: username === 'admin' ? ADMIN_PASSWORD : PASSWORD }),
        });
        assert.equal(r.status, 200, await r.clone().text());
        token = ((await r.json()) as { access_token: string }).access_token;
      }
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${token}`);
      return fetch(`${base}${path}`, { ...init, headers });
    },
  } as unknown as TestServer;
}

/**
 * A SQLite home filled through the real CLI and a real `sds serve`, with a file of each kind: a
 * media file (`sds files put`), a synced file and a binary case item (uploads of a tablet), an
 * application package with a build time (a deployment), an office file put in the folder by
 * hand. Returns too what that server served of them.
 */
async function filledHome(): Promise<{ home: ReturnType<typeof tempDir>; served: Awaited<ReturnType<typeof servedFiles>> }> {
  const home = tempDir();
  const cli = (args: string[], stdin?: string) => {
    const r = runCli(home.root, args, { stdin, env: { SDS_STORE_URL: '' } });
    assert.equal(r.code, 0, `${args.join(' ')}: ${show(r)}`);
    return r;
  };
  cli(['init']);
  cli(['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'census']);
  const withPhoto = join(home.root, 'simple-photo.dcf');
  writeFileSync(withPhoto, simpleCapiWithPhoto(fixture('simple-capi.dcf')));
  cli(['dict', 'upload', withPhoto, '--label', 'simplecapi']);
  cli(['cases', 'import', 'CEN2000', fixture('popstan-census.dat')]);
  cli(['users', 'add', 'admin', '--role', 'Administrator'], `${ADMIN_PASSWORD}\n`);
  cli(['users', 'add', 'interviewer', '--role', 'Standard User'], `${PASSWORD}\n`);
  const media = join(home.root, 'photo.jpg');
  writeFileSync(media, Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]));
  cli(['files', 'put', media, '--name', 'photos/house 1.jpg']);
  // An office file, put in the media folder by hand (docs/sync.md): no metadata row.
  mkdirSync(join(home.root, 'files', 'media', 'docs'), { recursive: true });
  writeFileSync(join(home.root, 'files', 'media', 'docs', 'manual.txt'), 'the office manual\n');
  cli(['target', 'set', 'CEN2000', '--type', 'sqlite', '--file', join(home.root, 'targets', 'census.sqlite')]);
  cli(['schedule', 'add', 'CEN2000']);
  // A run of the schedule: a job, its log, the breakout state and fractional metric counters.
  cli(['schedule', 'run-now', 'CEN2000']);
  // Sync uploads through a real server: revisions, sync devices and history.
  const server = await startServe(home.root, { SDS_STORE_URL: '' });
  let served;
  try {
    const device = new SyncDevice(serverOf(server.url), 'tablet-01', 'standard');
    const up = await device.put('CEN2000', popstanCases(6, 'tablet-01'));
    assert.equal(up.status, 200, await up.text());
    // A synced file, a case with a photo (a binary item), a package deployed with its build time.
    const paradata = Buffer.from('paradata of tablet 01\n');
    const synced = await serverOf(server.url).call(null, '/api/files/paradata/plc-a.txt/content', {
      method: 'PUT',
      headers: { 'content-md5': md5(paradata) },
      body: paradata,
    });
    assert.equal(synced.status, 200, await synced.text());
    const guid = randomUUID();
    const withItem = await device.putContainer(
      'SIMPLECAPI_DICT',
      [
        {
          id: guid,
          caseids: '001001',
          clock: [{ deviceId: 'tablet-01', revision: 1 }],
          'level-1': JSON.stringify({ id: { CLUSTER: 1, HHNO: 1 }, HOUSING_REC: { H3: 1, PHOTO: photoDescriptor(guid, PHOTO) } }),
        },
      ],
      [{ header: { caseid: guid, signature: md5(PHOTO), length: PHOTO.length, metadata: { filename: 'house.jpg' } }, content: PHOTO }],
    );
    assert.equal(withItem.status, 200, await withItem.clone().text());
    const spec = JSON.stringify({ name: 'Census', description: 'Census app', buildTime: '2024-03-18T10:20:30Z', version: '1.2' });
    const zip = zipOf({ 'package.json': spec, 'census.pen': 'pen bytes '.repeat(50) });
    const deploy = await serverOf(server.url, 'admin').call(null, '/api/apps/Census', {
      method: 'PUT',
      headers: { 'content-md5': md5(zip) },
      body: zip,
    });
    assert.equal(deploy.status, 200, await deploy.text());
    served = await servedFiles(server.url);
  } finally {
    await server.stop();
  }
  for (const [path, s] of Object.entries(served.files)) assert.equal(s.status, 200, path);
  assert.ok(served.photo?.equals(PHOTO), 'the SQLite home serves the photo');
  // A webhook, then a change it captures: left in the outbox, since nothing delivers here.
  cli(['webhooks', 'add', '--name', 'analytics', '--url', 'http://127.0.0.1:9/hook', '--events', 'case_uploaded,case_deleted']);
  const list = cli(['cases', 'list', 'CEN2000', '--limit', '1', '--json']).json<{ data: { guid: string }[] }>();
  cli(['cases', 'delete', 'CEN2000', list.data[0]!.guid]);
  return { home, served };
}

/** Counts of the SQLite store, read directly. */
function sqliteCounts(db: string): { cases: number; outbox: number; maxRevision: number; users: number; history: number } {
  const d = new Database(db, { readonly: true });
  try {
    const n = (sql: string) => Number(d.prepare(sql).pluck().get());
    return {
      cases: n('SELECT count(*) FROM cases'),
      outbox: n('SELECT count(*) FROM webhook_outbox'),
      maxRevision: n('SELECT max(revision) FROM revisions'),
      users: n('SELECT count(*) FROM users'),
      history: n('SELECT count(*) FROM sync_history'),
    };
  } finally {
    d.close();
  }
}

test('store copy moves a filled SQLite home and its files into an empty PostgreSQL database; verify compares; the store then works', async () => {
  const { home, served } = await filledHome();
  const dest = await ownedDatabase();
  try {
    const before = sqliteCounts(home.db);
    assert.ok(before.outbox > 0 && before.history > 0 && before.users === 2, JSON.stringify(before));
    const sqliteBytes = readFileSync(home.db);

    // A package changed in place, its size and build time kept, is not the one its metadata
    // describes: the copy stops and keeps nothing.
    const zipPath = join(home.root, 'files', 'apps', 'Census.zip');
    const zipBytes = readFileSync(zipPath);
    const zipTime = statSync(zipPath).mtime;
    const altered = Buffer.from(zipBytes);
    altered[altered.length - 1] = altered.at(-1)! ^ 0xff;
    writeFileSync(zipPath, altered);
    utimesSync(zipPath, zipTime, zipTime);
    const refused = runCli(home.root, ['store', 'copy', '--to', dest.url, '--json'], { env: { SDS_STORE_URL: '' } });
    assert.equal(refused.code, 1, show(refused));
    assert.deepEqual(refused.json<{ error: string; details: Record<string, string> }>().details, {
      area: 'apps',
      file: 'Census.zip',
      expected: md5(zipBytes),
      found: md5(altered),
    });
    writeFileSync(zipPath, zipBytes);
    utimesSync(zipPath, zipTime, zipTime);

    const copy = runCli(home.root, ['store', 'copy', '--to', dest.url, '--json'], { env: { SDS_STORE_URL: '' } });
    assert.equal(copy.code, 0, show(copy));
    const r = copy.json<{
      store: string;
      tables: { table: string; sqlite_rows: number; postgresql_rows: number; equal: boolean }[];
      files: { files: number; bytes: number; areas: { area: string; files: number; bytes: number; unchecked: number }[] };
      setting: { environment: string };
    }>();
    assert.ok(
      r.tables.every((t) => t.equal),
      JSON.stringify(r.tables.filter((t) => !t.equal)),
    );
    const rows = Object.fromEntries(r.tables.map((t) => [t.table, t.postgresql_rows]));
    assert.equal(rows.cases, before.cases);
    assert.equal(rows.webhook_outbox, before.outbox, 'the copy captured no change of its own');
    assert.ok(
      rows.sync_history! > 0 &&
        rows.schedules === 1 &&
        rows.targets === 1 &&
        rows.files === 2 &&
        rows.app_packages === 1 &&
        rows.case_binary_items === 1,
      JSON.stringify(rows),
    );
    assert.ok(rows.jobs === 1 && rows.schedule_runs === 1 && rows.breakout_log! > 0 && rows.breakout_state === 1, JSON.stringify(rows));
    assert.equal(r.setting.environment, `SDS_STORE_URL=${dest.url}`);
    // Every file, with its metadata or without (the office file), in its area; the scheduled
    // run's logs too, which nothing describes.
    const logNames = readdirSync(home.breakoutLogs).sort();
    assert.ok(logNames.length > 0, 'the scheduled run left a log');
    assert.deepEqual(
      r.files.areas.map((a) => [a.area, a.files, a.unchecked]),
      [
        ['media', 3, 1],
        ['apps', 1, 0],
        ['binary-items', 1, 0],
        ['logs', logNames.length, logNames.length],
      ],
    );
    assert.equal(r.files.files, 5 + logNames.length);
    assert.equal(r.files.areas.find((a) => a.area === 'binary-items')!.bytes, PHOTO.length);
    const entries = await query<{ area: string; name: string; mtime_ms: string }>(
      dest.url,
      'SELECT area, name, mtime_ms FROM file_entries ORDER BY area, name',
    );
    assert.deepEqual(
      entries.map((e) => `${e.area}/${e.name}`),
      [
        `apps/Census.zip`,
        `binary-items/simplecapi_dict/${md5(PHOTO)}`,
        ...logNames.map((n) => `logs/${n}`),
        'media/docs/manual.txt',
        'media/paradata/plc-a.txt',
        'media/photos/house 1.jpg',
      ],
    );
    // A log is read on the PostgreSQL store as it was written in the SQLite home.
    const shown = runCli(home.root, ['logs', 'show', logNames[0]!, '--json'], { env: { SDS_STORE_URL: dest.url } });
    assert.equal(shown.code, 0, show(shown));
    assert.equal(shown.json<{ content: string }>().content, readFileSync(join(home.breakoutLogs, logNames[0]!), 'utf8'));
    // The package keeps its build time as its time (what the client compares).
    assert.equal(Number(entries[0]!.mtime_ms), Date.parse('2024-03-18T10:20:30Z'));
    const [unnamed] = await query<{ n: string }>(dest.url, 'SELECT count(*) AS n FROM file_blobs WHERE sha256 IS NULL');
    assert.equal(Number(unnamed!.n), 0, 'no upload left behind');
    // The SQLite store is the rollback copy: not changed by the copy.
    assert.deepEqual(readFileSync(home.db), sqliteBytes);

    const [outbox] = await query<{ n: string }>(dest.url, 'SELECT count(*) AS n FROM webhook_outbox');
    assert.equal(Number(outbox!.n), before.outbox);

    // The commands, on the PostgreSQL store, see the home's data.
    const env = { SDS_STORE_URL: dest.url };
    const listArgs = ['cases', 'list', 'CEN2000', '--limit', '50', '--json'];
    const cases = runCli(home.root, listArgs, { env });
    assert.equal(cases.code, 0, show(cases));
    assert.deepEqual(cases.json(), runCli(home.root, listArgs, { env: { SDS_STORE_URL: '' } }).json());
    const dicts = runCli(home.root, ['dict', 'list', '--json'], { env }).json<{ name: string; caseCount: number }[]>();
    const sqliteDicts = runCli(home.root, ['dict', 'list', '--json'], { env: { SDS_STORE_URL: '' } }).json<unknown[]>();
    assert.deepEqual(dicts, sqliteDicts);
    const users = runCli(home.root, ['users', 'list', '--json'], { env });
    assert.deepEqual(
      users
        .json<{ username: string; role: string }[]>()
        .map((u) => [u.username, u.role])
        .sort(),
      [
        ['admin', 'Administrator'],
        ['interviewer', 'Standard User'],
      ],
    );
    const hooks = runCli(home.root, ['webhooks', 'list', '--json'], { env });
    assert.deepEqual(
      hooks.json<{ name: string }[]>().map((w) => w.name),
      ['analytics'],
      show(hooks),
    );
    const files = runCli(home.root, ['files', 'list', '--json'], { env });
    assert.match(files.stdout, /photos\/house 1\.jpg/, show(files));

    // verify passes now, files compared too...
    const verify = runCli(home.root, ['store', 'verify', '--against', home.root, '--json'], { env });
    assert.equal(verify.code, 0, show(verify));
    const verified = verify.json<{ tables: { equal: boolean }[]; files: { area: string; files: number }[] }>();
    assert.ok(verified.tables.every((t) => t.equal));
    assert.deepEqual(
      verified.files.map((f) => [f.area, f.files]),
      [
        ['media', 3],
        ['apps', 1],
        ['binary-items', 1],
        ['logs', logNames.length],
      ],
    );
    // ...fails, naming the area and the file, once a file of the home differs...
    const manual = join(home.root, 'files', 'media', 'docs', 'manual.txt');
    const manualBytes = readFileSync(manual);
    writeFileSync(manual, 'the office manual, edited\n');
    const changed = runCli(home.root, ['store', 'verify', '--against', home.root, '--json'], { env });
    assert.equal(changed.code, 1, show(changed));
    const changedErr = changed.json<{
      error: string;
      message: string;
      details: { tables: string[]; files: { area: string; file: string }[] };
    }>();
    assert.equal(changedErr.error, 'STORE_COPY_DIFFERS');
    assert.deepEqual(changedErr.details.tables, []);
    assert.deepEqual(
      changedErr.details.files.map((f) => [f.area, f.file]),
      [['media', 'docs/manual.txt']],
    );
    assert.match(
      changedErr.message,
      /media\/docs\/manual\.txt: sha256 [0-9a-f]{64} in the SQLite home, [0-9a-f]{64} in the PostgreSQL store/,
    );
    writeFileSync(manual, manualBytes);
    // ...and once a row differs, naming the table.
    // ...and fails, naming the table, once a row differs.
    await query(dest.url, `UPDATE users SET role = 'API' WHERE username = 'admin'`);
    const differs = runCli(home.root, ['store', 'verify', '--against', home.root, '--json'], { env });
    assert.equal(differs.code, 1, show(differs));
    const err = differs.json<{ error: string; message: string; details: { tables: string[] } }>();
    assert.equal(err.error, 'STORE_COPY_DIFFERS');
    assert.deepEqual(err.details.tables, ['users']);
    assert.match(err.message, /users: 2 rows/);
    const humanVerify = runCli(home.root, ['store', 'verify', '--against', home.root], { env });
    assert.equal(humanVerify.code, 1);
    assert.match(humanVerify.stderr, /STORE_COPY_DIFFERS/);
    await query(dest.url, `UPDATE users SET role = 'Administrator' WHERE username = 'admin'`);

    // A second copy into the now filled store is refused, and writes nothing.
    const again = runCli(home.root, ['store', 'copy', '--to', dest.url, '--json'], { env: { SDS_STORE_URL: '' } });
    assert.equal(again.code, 4, show(again));
    assert.equal(again.json<{ error: string }>().error, 'STORE_NOT_EMPTY');

    // A login and a sync upload on the PostgreSQL store: its revision is above every copied one,
    // and the case count trigger works again.
    const server = await startServe(home.root, env);
    try {
      // The files are served by the PostgreSQL store as the SQLite home served them: bytes and headers.
      const onPg = await servedFiles(server.url);
      assert.deepEqual(onPg.files, served.files);
      assert.ok(onPg.photo?.equals(PHOTO), 'the photo reaches a tablet from the PostgreSQL store');
      const device = new SyncDevice(serverOf(server.url), 'tablet-02', 'standard');
      const up = await device.put('CEN2000', popstanCases(2, 'tablet-02'));
      assert.equal(up.status, 200, await up.text());
      assert.ok(device.ownUploads[0]! > before.maxRevision, `revision ${device.ownUploads[0]} after ${before.maxRevision}`);
    } finally {
      await server.stop();
    }
    const [counts] = await query<{ counted: string; cases: string }>(
      dest.url,
      'SELECT (SELECT sum(total) FROM case_counts) AS counted, (SELECT count(*) FROM cases) AS cases',
    );
    assert.equal(Number(counts!.counted), before.cases + 2);
    assert.equal(Number(counts!.cases), before.cases + 2);
  } finally {
    home.cleanup();
    await dest.drop();
  }
});

test('store copy refuses a database with tables of its own, a home in use and a store that needs migrating', async () => {
  const home = tempDir();
  const other = await createPostgresDatabase();
  const empty = await createPostgresDatabase();
  try {
    assert.equal(runCli(home.root, ['init'], { env: { SDS_STORE_URL: '' } }).code, 0);
    const copy = (url: string) => runCli(home.root, ['store', 'copy', '--to', url, '--json'], { env: { SDS_STORE_URL: '' } });

    await query(other.config.url!, 'CREATE TABLE census_2020 (id integer)');
    const foreign = copy(other.config.url!);
    assert.equal(foreign.code, 4, show(foreign));
    assert.equal(foreign.json<{ error: string }>().error, 'STORE_NOT_EMPTY');
    // The password, in the URL or in SDS_STORE_PASSWORD, is never shown.
    const withPassword = new URL(other.config.url!);
    withPassword.password = 'hunter2';
    for (const [url, env] of [
      [withPassword.toString(), {}],
      [other.config.url!, { SDS_STORE_PASSWORD: 'hunter2' }],
    ] as const) {
      const masked = runCli(home.root, ['store', 'copy', '--to', url], { env: { SDS_STORE_URL: '', ...env } });
      assert.equal(masked.code, 4, show(masked));
      assert.match(masked.stderr, /STORE_NOT_EMPTY/);
      assert.ok(!masked.stdout.includes('hunter2') && !masked.stderr.includes('hunter2'), show(masked));
    }
    const [tables] = await query<{ n: string }>(other.config.url!, `SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public'`);
    assert.equal(Number(tables!.n), 1, 'nothing was created beside it');

    // The store open in another process (as sds serve holds it).
    const open = new Database(home.db);
    open.prepare('SELECT count(*) FROM users').get();
    try {
      const busy = copy(empty.config.url!);
      assert.equal(busy.code, 4, show(busy));
      assert.equal(busy.json<{ error: string }>().error, 'HOME_IN_USE');
    } finally {
      open.close();
    }
    // A scheduled run going: its watching process (this one, alive) holds the home.
    const plainEnv = { env: { SDS_STORE_URL: '' } };
    assert.equal(runCli(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan'], plainEnv).code, 0);
    const running = new Database(home.db);
    // The schedule as `sds schedule add` records it (which also wants a breakout target).
    running.exec(
      `INSERT INTO schedules (dictionary_id, modified_time, created_time) SELECT id, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM dictionaries`,
    );
    running
      .prepare(
        `INSERT INTO schedule_runs (schedule_id, trigger, started_at, outcome, runner_pid, runner_host)
         SELECT id, 'scheduled', '2026-01-01T00:00:00.000Z', 'running', ?, 'this-host' FROM schedules`,
      )
      .run(process.pid);
    running.close();
    try {
      const ticking = copy(empty.config.url!);
      assert.equal(ticking.code, 4, show(ticking));
      assert.equal(ticking.json<{ error: string }>().error, 'HOME_IN_USE');
      assert.match(ticking.json<{ message: string }>().message, /a scheduled run holds the home/);
    } finally {
      const ended = new Database(home.db);
      ended.prepare("DELETE FROM schedule_runs WHERE outcome = 'running'").run();
      ended.close();
    }
    const [none] = await query<{ n: string }>(empty.config.url!, `SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public'`);
    assert.equal(Number(none!.n), 0, 'a refused copy writes nothing');

    // A store at an older schema version than this sds: sds migrate comes first.
    const d = new Database(home.db);
    const version = Number(d.pragma('user_version', { simple: true }));
    d.pragma(`user_version = ${version - 1}`);
    d.close();
    const old = copy(empty.config.url!);
    assert.equal(old.code, 3, show(old));
    assert.equal(old.json<{ error: string }>().error, 'STORE_NEEDS_MIGRATION');
    assert.ok(statSync(home.db).isFile());
    {
      const back = new Database(home.db);
      back.pragma(`user_version = ${version}`);
      back.close();
    }
    // A store sds init made, that nothing wrote, is empty: the copy fills it.
    assert.equal(runCli(home.root, ['init'], { env: { SDS_STORE_URL: empty.config.url! } }).code, 0);
    const intoInit = copy(empty.config.url!);
    assert.equal(intoInit.code, 0, show(intoInit));

    const notPg = runCli(home.root, ['store', 'copy', '--to', 'mysql://root@127.0.0.1/x', '--json']);
    assert.equal(notPg.code, 2, show(notPg));
    // verify needs the PostgreSQL store as the home's store.
    const onSqlite = runCli(home.root, ['store', 'verify', '--against', home.root, '--json'], { env: { SDS_STORE_URL: '' } });
    assert.equal(onSqlite.code, 2, show(onSqlite));
  } finally {
    home.cleanup();
    await other.drop();
    await empty.drop();
  }
});

test('a file whose bytes no longer match its metadata stops the copy, nothing kept; put right, the copy succeeds', async () => {
  const home = tempDir();
  const dest = await createPostgresDatabase();
  const url = dest.config.url!;
  const plain = { SDS_STORE_URL: '' };
  try {
    assert.equal(runCli(home.root, ['init'], { env: plain }).code, 0);
    const src = join(home.root, 'photo.jpg');
    const original = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 9, 8, 7]);
    writeFileSync(src, original);
    const put = runCli(home.root, ['files', 'put', src, '--name', 'photos/a.jpg'], { env: plain });
    assert.equal(put.code, 0, show(put));
    // Copied before the photo (names in order): a large office file of several chunks, which the failure must take back too.
    const big = randomBytes(2 * 1024 * 1024 + 777);
    writeFileSync(join(home.root, 'files', 'media', 'big.bin'), big);
    // The same bytes under two names are one blob in the database.
    writeFileSync(join(home.root, 'files', 'media', 'a copy.jpg'), original);
    const stored = join(home.root, 'files', 'media', 'photos', 'a.jpg');
    const edited = Buffer.from('changed by hand');
    writeFileSync(stored, edited);

    const bad = runCli(home.root, ['store', 'copy', '--to', url, '--json'], { env: plain });
    assert.equal(bad.code, 1, show(bad));
    const err = bad.json<{ error: string; message: string; details: Record<string, string> }>();
    assert.equal(err.error, 'STORE_COPY_FILE_MISMATCH');
    assert.deepEqual(err.details, { area: 'media', file: 'photos/a.jpg', expected: sha256(original), found: sha256(edited) });
    assert.match(err.message, /media\/photos\/a\.jpg .*nothing was copied/);
    const [left] = await query<{ blobs: string; chunks: string; entries: string; files: string; settings: string }>(
      url,
      `SELECT (SELECT count(*) FROM file_blobs) AS blobs, (SELECT count(*) FROM file_blob_chunks) AS chunks,
              (SELECT count(*) FROM file_entries) AS entries, (SELECT count(*) FROM files) AS files, (SELECT count(*) FROM settings) AS settings`,
    );
    assert.deepEqual(Object.values(left!).map(Number), [0, 0, 0, 0, 0], 'nothing of the copy was kept');

    // A binary item whose bytes are not those its name (their md5) says: refused as well, after
    // the media files were written, which the failure takes back too.
    writeFileSync(stored, original);
    const itemDir = join(home.root, 'files', 'binary-items', 'simplecapi_dict');
    mkdirSync(itemDir, { recursive: true });
    writeFileSync(join(itemDir, md5('the photo')), 'not the photo');
    const badItem = runCli(home.root, ['store', 'copy', '--to', url, '--json'], { env: plain });
    assert.equal(badItem.code, 1, show(badItem));
    assert.deepEqual(badItem.json<{ error: string; details: Record<string, string> }>().details, {
      area: 'binary-items',
      file: `simplecapi_dict/${md5('the photo')}`,
      expected: md5('the photo'),
      found: md5('not the photo'),
    });
    const [none] = await query<{ n: string }>(url, 'SELECT (SELECT count(*) FROM file_entries) + (SELECT count(*) FROM file_blobs) AS n');
    assert.equal(Number(none!.n), 0, 'nothing of the copy was kept');
    rmSync(join(itemDir, md5('the photo')));

    // Put right, the same database takes a third copy; the report counts the files per area.
    const good = runCli(home.root, ['store', 'copy', '--to', url], { env: plain });
    assert.equal(good.code, 0, show(good));
    const total = big.length + 2 * original.length;
    assert.match(good.stdout, new RegExp(`^files\\s+3 \\(${total} bytes\\) copied into the PostgreSQL store`, 'm'));
    assert.match(
      good.stdout,
      new RegExp(`^\\s+media\\s+3 files, ${total} bytes; 2 without metadata \\(put there by hand\\), copied as they are$`, 'm'),
    );
    assert.match(good.stdout, /^\s+apps\s+0 files, 0 bytes$/m);
    assert.match(good.stdout, /^home folder\s+keep it: config\.json, the import logs/m);
    const blobs = await query<{ name: string; sha256: string; chunks: string }>(
      url,
      `SELECT e.name, b.sha256, (SELECT count(*) FROM file_blob_chunks c WHERE c.blob_id = b.id) AS chunks
         FROM file_entries e JOIN file_blobs b ON b.id = e.blob_id ORDER BY e.name`,
    );
    assert.deepEqual(
      blobs.map((b) => [b.name, b.sha256, Number(b.chunks)]),
      [
        ['a copy.jpg', sha256(original), 1],
        ['big.bin', sha256(big), 3],
        ['photos/a.jpg', sha256(original), 1],
      ],
    );
    const [blobCount] = await query<{ n: string }>(url, 'SELECT count(*) AS n FROM file_blobs');
    assert.equal(Number(blobCount!.n), 2, 'one blob for the two names of the same bytes');
    const verify = runCli(home.root, ['store', 'verify', '--against', home.root], { env: { SDS_STORE_URL: url } });
    assert.equal(verify.code, 0, show(verify));
    assert.match(
      verify.stdout,
      /media 3 \(\d+ bytes\), apps 0 \(0 bytes\), binary-items 0 \(0 bytes\), logs 0 \(0 bytes\), the same names and sha256 in both/,
    );
  } finally {
    home.cleanup();
    await dest.drop();
  }
});

test('Ctrl-C stops a copy: exit 130, the PostgreSQL store rolled back, a second copy succeeds', async () => {
  const home = tempDir();
  const dest = await createPostgresDatabase();
  const url = dest.config.url!;
  const blocker = new pg.Client({ connectionString: url });
  try {
    const plain = { SDS_STORE_URL: '' };
    assert.equal(runCli(home.root, ['init'], { env: plain }).code, 0);
    assert.equal(runCli(home.root, ['dict', 'upload', fixture('simple-capi.dcf'), '--label', 'simple'], { env: plain }).code, 0);
    // A store sds init made; a session of ours holds one of its tables, so the copy waits at its
    // lock of the tables, before it writes: the signal arrives there, wherever the machine is slow.
    assert.equal(runCli(home.root, ['init'], { env: { SDS_STORE_URL: url } }).code, 0);
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE settings IN ACCESS SHARE MODE');
    const child = spawn(process.execPath, [SDS_BIN, '--home', home.root, 'store', 'copy', '--to', url], {
      env: { ...process.env, NO_COLOR: '1', CI: '1', ...plain },
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    for (;;) {
      // From another session: pg_stat_activity stays as it was for the length of a transaction.
      const waiting = await query(
        url,
        `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'LOCK TABLE%'`,
      );
      if (waiting.length > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGINT');
    // The copy goes on to the point where it looks at the signal once the lock is ours no more.
    await waitFor(() => stderr.includes('stopping the copy'));
    await blocker.query('ROLLBACK');
    assert.equal(await exited, 130, stderr);
    assert.match(stderr, /interrupted by SIGINT: nothing was copied/);
    const [rows] = await query<{ n: string }>(url, 'SELECT count(*) AS n FROM dictionaries');
    assert.equal(Number(rows!.n), 0, 'nothing of the copy was kept');

    const again = runCli(home.root, ['store', 'copy', '--to', url, '--json'], { env: plain });
    assert.equal(again.code, 0, show(again));
    const [copied] = await query<{ n: string }>(url, 'SELECT count(*) AS n FROM dictionaries');
    assert.equal(Number(copied!.n), 1);
  } finally {
    await blocker.end().catch(() => undefined);
    home.cleanup();
    await dest.drop();
  }
});

/** Resolves once `check` holds, looking every 20 ms (no deadline: the test runner's timeout is the bound). */
async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}
