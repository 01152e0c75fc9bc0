import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addUser } from '../../../src/core/auth/users.js';
import { openStore } from '../../../src/store/open-store.js';
import { until } from '../../helpers/breakout-helpers.js';
import { runCli, show } from '../../helpers/run-cli.js';
import { startServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-home.js';
import { initHome } from '../../../src/core/home/index.js';
import { createPostgresDatabase } from '../../helpers/test-databases.js';
import { pendingUploads } from '../../helpers/stored-files.js';

// Temporary upload files (docs/sync.md#files, "Temporary files"): an upload cut by a crash
// leaves its hidden `.part` file; the next `sds serve` removes it as it starts, but never one
// that another live process is writing, and `sds backup` leaves them all out.

const USER = { username: 'interviewer', password: 'standard-pass-1' };
const PART = /^\.(.+)\.(\d+)-[0-9a-f]{12}\.part$/;

async function token(url: string): Promise<string> {
  const r = await fetch(`${url}/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', ...USER }),
  });
  assert.equal(r.status, 200, await r.clone().text());
  return ((await r.json()) as { access_token: string }).access_token;
}

/**
 * A photo upload whose first `bytes` are sent and the rest never: it ends only when the server
 * goes away (resolving to the error then).
 */
function uploadStarted(url: string, bearer: string, bytes: number): Promise<Response | Error> {
  let send!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (send = c) });
  const upload = fetch(`${url}/api/files/photos/house.jpg/content`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/octet-stream' },
    body,
    duplex: 'half',
  } as RequestInit).catch((err: Error) => err);
  send.enqueue(new Uint8Array(bytes).fill(0xff));
  return upload;
}

/** The pid of a process that has run and ended: no process has it now. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);

/**
 * A home on the SQLite store, whatever SDS_TEST_STORE says: these tests are about the local file
 * store's temporary files in the home's folders (the PostgreSQL store's are the last test's).
 */
async function sqliteHome(): Promise<ReturnType<typeof tempDir>> {
  const home = tempDir();
  await initHome(home);
  return home;
}

test('an upload cut by kill -9 leaves its .part; the next start removes it and keeps what a live process writes', async () => {
  const home = await sqliteHome();
  const setup = await openStore(home);
  await addUser(setup, USER.username, 'Standard User', USER.password);
  await setup.close();

  let server = await startServe(home.root);
  try {
    const bearer = await token(server.url);
    // A tablet syncing a photo: the first 64 KB arrive, then the server dies mid-body.
    const upload = uploadStarted(server.url, bearer, 64 * 1024);
    const folder = join(home.media, 'photos');
    const cut = await until('the upload to reach the disk', () =>
      existsSync(folder) ? readdirSync(folder).find((n) => PART.test(n)) : undefined,
    );
    assert.equal(Number(PART.exec(cut)![2]), server.child.pid, 'the temporary name carries the writer pid');
    await server.kill9();
    assert.ok((await upload) instanceof Error, 'the upload was cut');
    assert.ok(existsSync(join(folder, cut)), 'the crash left the temporary file');

    // Another live process (this test) is writing a file of the same home: it must be kept.
    const live = `.notes.txt.${process.pid}-0123456789ab.part`;
    writeFileSync(join(home.media, live), 'being written');
    // Hidden files that are no temporary upload, and a file whose name merely ends in .part.
    writeFileSync(join(home.media, '.keep-me'), '');
    writeFileSync(join(home.media, 'minutes.part'), 'a file put there by hand');

    server = await startServe(home.root);
    assert.equal(existsSync(join(folder, cut)), false, 'the cut upload was removed at start');
    assert.ok(existsSync(join(home.media, live)), 'the live writer keeps its file');
    assert.ok(existsSync(join(home.media, '.keep-me')));
    assert.ok(existsSync(join(home.media, 'minutes.part')));
    assert.match(server.stderr(), new RegExp(`removed 1 stale temporary upload file .*: files/media/photos/${cut.replace(/\./g, '\\.')}`));

    // The server works on: the photo uploads whole.
    const again = await fetch(`${server.url}/api/files/photos/house.jpg/content`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${await token(server.url)}`, 'content-type': 'application/octet-stream' },
      body: Buffer.from('the whole photo'),
    });
    assert.equal(again.status, 200, await again.text());
    assert.deepEqual(
      readdirSync(folder).filter((n) => n.startsWith('.')),
      [],
      'no temporary file is left after a good upload',
    );
  } finally {
    await server.stop();
    await home.cleanup();
  }
});

test('at start: dead writers and files untouched past stale_part_seconds go, in every files/ folder; sds backup leaves all of them out', async () => {
  const home = await sqliteHome();
  const work = tempDir();
  try {
    const dead = deadPid();
    const items = join(home.binaryItems, 'simplecapi_dict');
    mkdirSync(items, { recursive: true });
    mkdirSync(home.apps, { recursive: true });
    const md5 = '0123456789abcdef0123456789abcdef';
    const files: Record<string, { path: string; hoursOld: number; stays: boolean }> = {
      deadMedia: { path: join(home.media, `.house.jpg.${dead}-aaaaaaaaaaaa.part`), hoursOld: 0, stays: false },
      deadApp: { path: join(home.apps, `.census.zip.${dead}-bbbbbbbbbbbb.part`), hoursOld: 0, stays: false },
      deadItem: { path: join(items, `.${md5}.${dead}-cccccccccccc.part`), hoursOld: 0, stays: false },
      liveRecent: { path: join(home.media, `.live.jpg.${process.pid}-dddddddddddd.part`), hoursOld: 0.5, stays: true },
      // Untouched two hours with a limit of one: whoever has that pid now is not writing it.
      liveOld: { path: join(home.media, `.stuck.jpg.${process.pid}-eeeeeeeeeeee.part`), hoursOld: 2, stays: false },
      // From an sds before the pid was in the name: only the age tells.
      olderRecent: { path: join(home.media, '.older.jpg.ffffffffffff.part'), hoursOld: 0.5, stays: true },
      olderOld: { path: join(home.media, '.oldest.jpg.abcdefabcdef.part'), hoursOld: 2, stays: false },
    };
    for (const f of Object.values(files)) {
      writeFileSync(f.path, 'half a file');
      utimesSync(f.path, hoursAgo(f.hoursOld), hoursAgo(f.hoursOld));
    }
    const photo = join(work.root, 'photo.jpg');
    writeFileSync(photo, 'a photo');
    assert.equal(runCli(home.root, ['files', 'put', photo]).code, 0);

    // The backup, before the sweep, holds none of them.
    const b = runCli(home.root, ['backup', join(work.root, 'backups'), '--json']);
    assert.equal(b.code, 0, show(b));
    const backup = b.json<{ path: string }>().path;
    const manifest = JSON.parse(readFileSync(join(backup, 'manifest.json'), 'utf8')) as { files: { path: string }[] };
    assert.deepEqual(manifest.files.map((f) => f.path).sort(), ['files/media/photo.jpg', 'sds.db']);
    const inBackup = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? inBackup(join(dir, e.name)) : [e.name]));
    assert.deepEqual(
      inBackup(backup).filter((n) => n.endsWith('.part')),
      [],
    );
    const restored = runCli(join(work.root, 'restored'), ['restore', backup]);
    assert.equal(restored.code, 0, show(restored));

    const server = await startServe(home.root, { SDS_LIMIT_STALE_PART_SECONDS: '3600' });
    try {
      for (const [name, f] of Object.entries(files)) assert.equal(existsSync(f.path), f.stays, `${name} ${f.stays ? 'stays' : 'goes'}`);
      assert.match(server.stderr(), /removed 5 stale temporary upload files/);
      assert.equal(readFileSync(join(home.media, 'photo.jpg'), 'utf8'), 'a photo');
    } finally {
      await server.stop();
    }
  } finally {
    await home.cleanup();
    work.cleanup();
  }
});

test('on a PostgreSQL store: an upload cut by kill -9 leaves an unnamed blob; the next start removes it', async () => {
  const home = tempDir();
  const db = await createPostgresDatabase();
  writeFileSync(join(home.root, 'config.json'), JSON.stringify({ store: { url: db.config.url } }), { mode: 0o600 });
  await initHome(home);
  const store = await openStore(home);
  await addUser(store, USER.username, 'Standard User', USER.password);
  let server = await startServe(home.root);
  try {
    const bearer = await token(server.url);
    // More than a chunk of 1 MiB, so that bytes reached the database before the crash.
    const upload = uploadStarted(server.url, bearer, 1536 * 1024);
    await until('the upload to reach the database', async () => ((await pendingUploads(store)) > 0 ? true : undefined));
    await server.kill9();
    assert.ok((await upload) instanceof Error, 'the upload was cut');
    assert.equal(await pendingUploads(store), 1, 'the crash left the unnamed blob');

    server = await startServe(home.root);
    assert.equal(await pendingUploads(store), 0, 'the cut upload was removed at start');
    assert.match(server.stderr(), /removed 1 stale temporary upload file .*: upload \d+ \(/);
    const again = await fetch(`${server.url}/api/files/photos/house.jpg/content`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${await token(server.url)}`, 'content-type': 'application/octet-stream' },
      body: Buffer.from('the whole photo'),
    });
    assert.equal(again.status, 200, await again.text());
    assert.equal(await pendingUploads(store), 0, 'nothing is left after a good upload');
  } finally {
    await server.stop();
    await store.close();
    home.cleanup();
    await db.drop();
  }
});
