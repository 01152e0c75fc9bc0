import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import Database from 'better-sqlite3';
import { addUser } from '../../../src/core/auth/users.js';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { openStore } from '../../../src/store/open-store.js';
import { runCli, runCliAsync, show } from '../../helpers/run-cli.js';
import { startServe } from '../../helpers/serve-process.js';
import { popstanCases } from '../../helpers/sync-client.js';
import { backupRefusedOnPostgres } from '../../helpers/backup-store.js';
import { fixture, tempDir, tempHome } from '../../helpers/temp-home.js';

// The test (docs/backup.md#consistency): `sds backup` runs while a real `sds serve`
// keeps acknowledging sync uploads; every case acknowledged before the backup began must be in
// the restored store, and the restored store must be intact and usable.

const USER = { username: 'interviewer', password: 'standard-pass-1' };

async function token(url: string): Promise<string> {
  const r = await fetch(`${url}/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', ...USER }),
  });
  assert.equal(r.status, 200, await r.clone().text());
  return ((await r.json()) as { access_token: string }).access_token;
}

test('a backup taken during a steady sync upload restores every case acknowledged before it began', async () => {
  const home = await tempHome();
  const out = tempDir();
  const setup = await openStore(home);
  const file = fixture('popstan-census.json.dcf');
  const dict = (await uploadDictionary(setup, { source: readFileSync(file), label: 'popstan', file })).name;
  await addUser(setup, USER.username, 'Standard User', USER.password);
  await setup.close();

  const server = await startServe(home.root);
  try {
    if (backupRefusedOnPostgres(home.root)) return;
    const bearer = await token(server.url);
    const acked: { guids: string[]; at: number }[] = [];
    let stop = false;
    let failure: string | undefined;
    // Two devices upload one after another, each as fast as the server acknowledges.
    const device = async (id: string) => {
      while (!stop) {
        const cases = popstanCases(4, id);
        const r = await fetch(`${server.url}/api/dictionaries/${dict}/cases`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${bearer}`,
            'user-agent': 'CSPro sync client/8.0',
            'x-csw-device': id,
            'content-type': 'application/json; charset=utf-8',
            'content-encoding': 'gzip',
          },
          body: deflateSync(Buffer.from(JSON.stringify(cases))),
        });
        const text = await r.text();
        if (r.status >= 200 && r.status < 300) acked.push({ guids: cases.map((c) => c.id), at: performance.now() });
        else failure ??= `upload answered ${r.status}: ${text}`;
      }
    };
    const devices = [device('tablet-a'), device('tablet-b')];
    while (acked.length < 20 && failure === undefined) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(failure, undefined);

    const began = performance.now();
    const before = new Set(acked.filter((a) => a.at <= began).flatMap((a) => a.guids));
    const backup = await runCliAsync(home.root, ['backup', out.root, '--json']);
    const ended = performance.now();
    stop = true;
    await Promise.all(devices);
    assert.equal(backup.code, 0, show(backup));
    assert.equal(failure, undefined);
    const during = acked.filter((a) => a.at > began && a.at < ended).length;
    assert.ok(during > 0, 'uploads were acknowledged while the backup ran');

    const made = backup.json<{ path: string }>().path;
    const restored = join(out.root, 'restored');
    const r = runCli(restored, ['restore', made, '--json']);
    assert.equal(r.code, 0, show(r));
    assert.equal(r.json<{ needs_migration: boolean }>().needs_migration, false);

    const db = new Database(join(restored, 'sds.db'), { readonly: true });
    try {
      assert.deepEqual(db.pragma('integrity_check', { simple: true }), 'ok');
      assert.deepEqual(db.pragma('foreign_key_check'), []);
      const stored = new Set((db.prepare('SELECT guid FROM cases').pluck().all() as string[]).map(String));
      const lost = [...before].filter((g) => !stored.has(g));
      assert.deepEqual(lost, [], `${lost.length} of ${before.size} acknowledged cases are missing from the restored store`);
    } finally {
      db.close();
    }

    // The restored home works as a home: the CLI lists its dictionary and its cases.
    const dicts = runCli(restored, ['dict', 'list', '--json']);
    assert.equal(dicts.code, 0, show(dicts));
    assert.match(dicts.stdout, new RegExp(dict));
    const cases = runCli(restored, ['cases', 'list', dict, '--json']);
    assert.equal(cases.code, 0, show(cases));
    assert.ok(cases.json<{ total: number }>().total >= before.size);
  } finally {
    await server.stop();
    await home.cleanup();
    out.cleanup();
  }
});
