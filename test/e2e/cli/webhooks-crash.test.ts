/**
 * `sds webhooks` as a user runs it, and the crash guarantee: a dispatcher killed with SIGKILL
 * while a receiver holds its response loses no event, and after a restart (two dispatchers at
 * once) no delivery is sent twice except the one in flight at the kill, which is sent again with
 * the same webhook-id and body so the receiver can recognise it.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync as sds, SDS_BIN, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';

const DAT_LINES = readFileSync(fixture('popstan-census.dat'), 'utf8')
  .replace(/^\uFEFF/, '')
  .split('\n')
  .filter((l) => l !== '');
const keyOf = (line: string) => line.slice(1, 19);
// The lines of the first five cases (cases are consecutive lines with one key); one pass.
const FIVE: string[] = [];
const fiveKeys = new Set<string>();
for (const l of DAT_LINES) {
  fiveKeys.add(keyOf(l));
  if (fiveKeys.size > 5) break;
  FIVE.push(l);
}
const SECRET = 'crash-test-secret-0123456789';
const ENV = {
  SDS_WEBHOOK_CONCURRENCY: '1',
  SDS_WEBHOOK_LEASE_MS: '2500',
  SDS_WEBHOOK_CONNECT_TIMEOUT_MS: '500',
  SDS_WEBHOOK_RESPONSE_TIMEOUT_MS: '1500',
};

const home = await tempHome();
after(() => home.cleanup());

test('webhooks CLI: add, list, update, test, deliveries, remove with --json; errors exit with their codes', async () => {
  const rx = await startReceiver(() => 200);
  try {
    const add = await sds(home.root, [
      'webhooks',
      'add',
      '--name',
      'cli',
      '--url',
      rx.url,
      '--events',
      'case_uploaded,case_deleted',
      '--json',
    ]);
    assert.equal(add.code, 0, show(add));
    const w = add.json();
    assert.match(w.secret, /^whsec_/);
    const list = await sds(home.root, ['webhooks', 'list', '--json']);
    assert.deepEqual(
      list.json().map((x: any) => x.id),
      [w.id],
    );
    const upd = await sds(home.root, ['webhooks', 'update', String(w.id), '--inactive', '--json']);
    assert.equal(upd.json().active, false, show(upd));
    const t = await sds(home.root, ['webhooks', 'test', String(w.id), '--json']);
    assert.equal(t.code, 0, show(t));
    assert.equal(t.json().status, 'success');
    const h = await sds(home.root, ['webhooks', 'deliveries', String(w.id), '--json']);
    assert.equal(h.json().total_deliveries, 1);
    const bad = await sds(home.root, ['webhooks', 'add', '--name', 'x', '--url', 'ftp://x', '--events', 'case_uploaded', '--json']);
    assert.equal(bad.code, 2, show(bad));
    assert.equal(bad.json().error, 'WEBHOOK_INVALID');
    const missing = await sds(home.root, ['webhooks', 'remove', '999', '--json']);
    assert.equal(missing.code, 3);
    assert.equal(missing.json().error, 'NOT_FOUND');
    const env = await sds(home.root, ['webhooks', 'deliver', '--json'], {
      env: { SDS_WEBHOOK_LEASE_MS: '10', SDS_WEBHOOK_CONNECT_TIMEOUT_MS: '500' },
    });
    assert.equal(env.code, 2, show(env));
    assert.equal(env.json().error, 'CONFIG_INVALID');
    await rx.close();
    const down = await sds(home.root, ['webhooks', 'test', String(w.id), '--json']);
    assert.equal(down.code, 5, show(down));
    assert.equal(down.json().error, 'WEBHOOK_UNREACHABLE');
    const rm = await sds(home.root, ['webhooks', 'remove', String(w.id), '--json']);
    assert.deepEqual(rm.json(), { message: `Webhook ${w.id} deleted`, id: w.id });
  } finally {
    await rx.close();
  }
});

test('kill -9 of `sds webhooks deliver` mid-delivery loses nothing and sends nothing twice after a restart', async () => {
  // The second request is held open: the dispatcher is killed while it waits for the answer.
  const rx = await startReceiver((i) => (i === 1 ? 'hold' : 200));
  try {
    const add = await sds(home.root, [
      'webhooks',
      'add',
      '--name',
      'crash',
      '--url',
      rx.url,
      '--events',
      'case_uploaded',
      '--secret',
      SECRET,
      '--json',
    ]);
    assert.equal(add.code, 0, show(add));
    const id = add.json().id;
    assert.equal((await sds(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan'])).code, 0);
    const file = join(home.root, 'five.dat');
    writeFileSync(file, FIVE.join('\n') + '\n');
    const imp = await sds(home.root, ['cases', 'import', 'CEN2000', file, '--json']);
    assert.equal(imp.json().total.inserted, 5, show(imp));

    const child = spawn(process.execPath, [SDS_BIN, '--home', home.root, 'webhooks', 'deliver'], {
      env: { ...process.env, ...ENV },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await rx.waitFor(2);
    child.kill('SIGKILL');
    await exited;
    assert.equal(rx.received.length, 2);

    // Restart: two dispatchers at once, again and again until every delivery is settled.
    for (let round = 0; round < 100; round++) {
      const runs = await Promise.all(
        [0, 1].map(() => sds(home.root, ['webhooks', 'deliver', '--json'], { env: { ...ENV, SDS_WEBHOOK_CONCURRENCY: '2' } })),
      );
      for (const r of runs) assert.equal(r.code, 0, show(r));
      if (runs.every((r) => r.json().pending === 0)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const ids = rx.received.map((r) => r.headers['webhook-id']!);
    const held = ids[1]!;
    assert.equal(new Set(ids).size, 5, 'every event arrived');
    const counts = new Map<string, number>();
    for (const m of ids) counts.set(m, (counts.get(m) ?? 0) + 1);
    for (const [m, n] of counts) assert.equal(n, m === held ? 2 : 1, `${m} received ${n} times`);
    const resent = rx.received.filter((r) => r.headers['webhook-id'] === held);
    assert.deepEqual(resent[0]!.body, resent[1]!.body);
    assert.deepEqual(
      rx.received.map((r) => r.json.event),
      Array(6).fill('case_uploaded'),
    );

    const h = (await sds(home.root, ['webhooks', 'deliveries', String(id), '--json'])).json();
    assert.deepEqual([h.total_deliveries, h.successful, h.failed], [5, 5, 0]);
  } finally {
    await rx.close();
  }
});
