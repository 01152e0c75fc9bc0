/**
 * Files on a PostgreSQL store are the store's, not a home folder's (docs/architecture.md#the-file-store-contract):
 * two homes that share nothing but the database URL, as two machines of one store would, see the
 * same media files, application packages and binary items. What one process writes, another
 * process reads, through the CLI and through `sds serve`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, show } from '../../helpers/run-cli.js';
import { startServe } from '../../helpers/serve-process.js';
import { tempDir } from '../../helpers/temp-home.js';
import { createPostgresDatabase } from '../../helpers/test-databases.js';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const PASSWORD = 'shared-store-pass-1';

/** Files under a folder, recursively (what a home holds on disk); none when there is no folder. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);
}

async function token(url: string, username: string): Promise<string> {
  const r = await fetch(`${url}/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username, password: PASSWORD }),
  });
  assert.equal(r.status, 200, await r.clone().text());
  return ((await r.json()) as { access_token: string }).access_token;
}

test('two homes on one PostgreSQL store: a file one process writes, another reads, with no folder in common', async () => {
  const db = await createPostgresDatabase();
  const [a, b] = [tempDir(), tempDir()];
  const env = { SDS_STORE_URL: db.config.url! };
  let serveA: Awaited<ReturnType<typeof startServe>> | undefined;
  let serveB: Awaited<ReturnType<typeof startServe>> | undefined;
  try {
    assert.equal(runCli(a.root, ['init'], { env }).code, 0);
    for (const [user, role] of [
      ['office', 'API'],
      ['interviewer', 'Standard User'],
    ]) {
      const r = runCli(a.root, ['users', 'add', user!, '--role', role!, '--password-stdin'], { env, stdin: `${PASSWORD}\n` });
      assert.equal(r.code, 0, show(r));
    }

    // Home A's CLI puts a file of several chunks; home B's CLI reads it back byte for byte.
    const photo = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(2 * 1024 * 1024 + 333)]);
    const src = join(a.root, 'photo.jpg');
    writeFileSync(src, photo);
    const put = runCli(a.root, ['files', 'put', src, '--name', 'photos/house 1.jpg', '--json'], { env });
    assert.equal(put.code, 0, show(put));
    const out = join(b.root, 'copy.jpg');
    const get = runCli(b.root, ['files', 'get', 'photos/house 1.jpg', '-o', out], { env });
    assert.equal(get.code, 0, show(get));
    assert.ok(readFileSync(out).equals(photo), 'the bytes home A stored, read in home B');
    const info = runCli(b.root, ['files', 'info', 'photos/house 1.jpg', '--json'], { env });
    assert.equal(info.json<{ size: number }>().size, photo.length);

    // Two servers, one per home: a tablet's upload to A is served by B, with the md5 the client checks.
    serveA = await startServe(a.root, env);
    serveB = await startServe(b.root, env);
    const paradata = Buffer.from('paradata of tablet a\n');
    const up = await fetch(`${serveA.url}/api/files/paradata/plc-a.txt/content`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${await token(serveA.url, 'interviewer')}`, 'content-md5': md5(paradata) },
      body: paradata,
    });
    assert.equal(up.status, 200, await up.text());
    const bearerB = await token(serveB.url, 'interviewer');
    const down = await fetch(`${serveB.url}/api/files/paradata/plc-a.txt/content`, { headers: { authorization: `Bearer ${bearerB}` } });
    assert.equal(down.status, 200);
    assert.ok(Buffer.from(await down.arrayBuffer()).equals(paradata));
    assert.equal(down.headers.get('etag'), md5(paradata));
    const folder = await fetch(`${serveB.url}/api/folders/paradata`, { headers: { authorization: `Bearer ${bearerB}` } });
    assert.deepEqual(
      ((await folder.json()) as { name: string; md5: string }[]).map((f) => [f.name, f.md5]),
      [['plc-a.txt', md5(paradata)]],
    );
    // The overwrite rule holds across nodes: the operator's photo is an office file on B too.
    const refused = await fetch(`${serveB.url}/api/files/photos/house 1.jpg/content`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${bearerB}` },
      body: 'not a photo',
    });
    assert.equal(refused.status, 403);

    // An application package deployed to A is listed and served by B.
    const zip = Buffer.from('PK\x05\x06' + '\x00'.repeat(18), 'latin1');
    const deploy = await fetch(`${serveA.url}/api/apps/Census`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${await token(serveA.url, 'office')}`, 'content-md5': md5(zip) },
      body: zip,
    });
    assert.equal(deploy.status, 200, await deploy.text());
    const apps = (await (await fetch(`${serveB.url}/api/apps`, { headers: { authorization: `Bearer ${bearerB}` } })).json()) as {
      name: string;
    }[];
    assert.deepEqual(
      apps.map((x) => x.name),
      ['Census'],
    );
    const app = await fetch(`${serveB.url}/api/apps/Census`, { headers: { authorization: `Bearer ${bearerB}` } });
    assert.equal(app.status, 200);
    assert.ok(Buffer.from(await app.arrayBuffer()).equals(zip));

    // Neither home holds a byte of any of them: they are in the database.
    for (const home of [a, b]) assert.deepEqual(filesUnder(join(home.root, 'files')), [], `nothing under ${home.root}/files`);
  } finally {
    await serveA?.stop();
    await serveB?.stop();
    a.cleanup();
    b.cleanup();
    await db.drop();
  }
});
