/**
 * `sds scheduler-run` is the one command cron runs every minute, so on installs without a
 * server it is also what delivers outgoing webhooks: each tick sends what is due, and nothing
 * twice.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';

const home = await tempHome();
after(() => home.cleanup());

const DAT_LINES = readFileSync(fixture('popstan-census.dat'), 'utf8')
  .replace(/^\uFEFF/, '')
  .split('\n')
  .filter((l) => l !== '');
const keyOf = (line: string) => line.slice(1, 19);
/** The lines of the first `n` cases of the file (cases are consecutive lines with one key). */
function firstKeys(n: number): string[] {
  const keys = new Set<string>();
  const out: string[] = [];
  for (const l of DAT_LINES) {
    keys.add(keyOf(l));
    if (keys.size > n) break;
    out.push(l);
  }
  return out;
}

test('scheduler-run delivers due webhooks each tick, and nothing twice', async () => {
  const rx = await startReceiver(() => 200);
  try {
    const up = await sds(home.root, ['dict', 'upload', fixture('popstan-census.text.dcf'), '--label', 'popstan', '--json']);
    assert.equal(up.code, 0, show(up));
    const add = await sds(home.root, ['webhooks', 'add', '--name', 'cron', '--url', rx.url, '--events', 'case_uploaded', '--json']);
    assert.equal(add.code, 0, show(add));
    const dat = join(home.root, 'three.dat');
    writeFileSync(dat, firstKeys(3).join('\r\n') + '\r\n');
    const imp = await sds(home.root, ['cases', 'import', 'CEN2000', dat, '--json']);
    assert.equal(imp.code, 0, show(imp));
    assert.equal(imp.json().total.inserted, 3);
    assert.equal(rx.received.length, 0, 'nothing is sent before a tick');

    const tick = await sds(home.root, ['scheduler-run', '--json']);
    assert.equal(tick.code, 0, show(tick));
    assert.equal(tick.json().webhooks.succeeded, 3, show(tick));
    assert.equal(rx.received.length, 3);
    assert.deepEqual(
      rx.received.map((r) => r.json.event),
      ['case_uploaded', 'case_uploaded', 'case_uploaded'],
    );

    // The next change goes out with the next tick.
    writeFileSync(dat, firstKeys(4).join('\n') + '\n');
    assert.equal((await sds(home.root, ['cases', 'import', 'CEN2000', dat, '--json'])).json().total.inserted, 1);
    const next = await sds(home.root, ['scheduler-run', '--json']);
    assert.equal(next.code, 0, show(next));
    assert.equal(next.json().webhooks.succeeded, 1, show(next));
    assert.equal(rx.received.length, 4);

    // Nothing new: a tick sends nothing twice.
    const idle = await sds(home.root, ['scheduler-run', '--json']);
    assert.equal(idle.json().webhooks.attempted, 0, show(idle));
    assert.equal(rx.received.length, 4);
  } finally {
    await rx.close();
  }
});
