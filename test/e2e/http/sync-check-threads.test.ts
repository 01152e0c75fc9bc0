import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { startTestServer, type TestServer } from '../../helpers/http-server.js';
import { popstanCases, SyncDevice, type WireCase } from '../../helpers/sync-client.js';
import { fixture, storeSql } from '../../helpers/temp-home.js';

// Sync uploads checked in threads (docs/decisions.md, "Upload checks in threads"): the same
// uploads, sent at once by many tablets to a server with check threads and to one without, store
// the same cases and refuse the same bad one with the same answer.

const DICT = 'CEN2000';

async function server(t: { after(fn: () => Promise<void>): void }, checkThreads: number): Promise<TestServer> {
  const ts = await startTestServer({
    checkThreads,
    seed: async (store) => {
      const file = fixture('popstan-census.json.dcf');
      await uploadDictionary(store, { source: readFileSync(file), label: 'popstan', file });
    },
  });
  t.after(() => ts.close());
  return ts;
}

/** Every tablet sends its bodies one after the other, all tablets at once; the answers' statuses and bodies. */
async function sendAll(ts: TestServer, tablets: WireCase[][][]): Promise<{ status: number; body: string }[]> {
  const answers = await Promise.all(
    tablets.map(async (bodies, i) => {
      const device = new SyncDevice(ts, `tablet-${i}`);
      const out = [];
      for (const cases of bodies) {
        const r = await device.put(DICT, cases);
        out.push({ status: r.status, body: await r.text() });
      }
      return out;
    }),
  );
  return answers.flat();
}

const stored = (ts: TestServer) =>
  storeSql(ts.store, 'SELECT guid, case_key, label, data, clock, verified, deleted, notes FROM cases ORDER BY guid');

test('check threads: many tablets at once store what one thread stores, and a bad case is refused alike', async (t) => {
  const [threaded, inline] = await Promise.all([server(t, 2), server(t, 0)]);
  // 8 tablets × 3 bodies of 80 cases; tablet 5's second body holds a bad case at index 61.
  const tablets = Array.from({ length: 8 }, (_, i) => [0, 1, 2].map(() => popstanCases(80, `tablet-${i}`)));
  tablets[5]![1]![61] = { ...tablets[5]![1]![61]!, clock: 'no clock' as unknown as WireCase['clock'] };

  const viaThreads = await sendAll(threaded, tablets);
  const onMain = await sendAll(inline, tablets);
  assert.deepEqual(viaThreads, onMain, 'the same answers, refusal included');
  const refused = viaThreads.filter((a) => a.status !== 200);
  assert.equal(refused.length, 1);
  assert.equal(refused[0]!.status, 400);
  assert.match(refused[0]!.body, /"code":"CASE_INVALID".*case 61 \(id [0-9a-f-]+/);

  assert.ok(threaded.server.checks!.partsChecked > 0, 'some uploads were checked in the threads');
  assert.equal(inline.server.checks, undefined, 'no threads with --check-threads 0');
  const rows = await stored(threaded);
  assert.equal(rows.length, 23 * 80, 'every case of every accepted body, once');
  assert.deepEqual(rows, await stored(inline));
});
