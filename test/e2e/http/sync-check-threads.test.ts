import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { startTestServer, type TestServer } from '../../helpers/http-server.js';
import { popstanCases, SyncDevice, type WireCase } from '../../helpers/sync-client.js';
import { fixture, storeSql } from '../../helpers/temp-home.js';
import { writeCssync } from '../../helpers/cssync-wire.js';
import { value } from '../../helpers/prom-text.js';
import { deflateSync, gzipSync } from 'node:zlib';

// Sync uploads checked in threads (docs/decisions.md, "Upload checks in threads"): the same
// uploads, sent at once by many tablets to a server with check threads and to one without, store
// the same cases and refuse the same bad one with the same answer.

const DICT = 'CEN2000';
const METRICS_TOKEN = 'check-threads-metrics-token-0123456789';

/** `sds_sync_uploads_checked_total` of `where`, from a scrape of `ts`. */
async function checked(ts: TestServer, where: 'main' | 'thread'): Promise<number> {
  const r = await fetch(`${ts.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  assert.equal(r.status, 200);
  return value(await r.text(), 'sds_sync_uploads_checked_total', { where }) ?? 0;
}

async function server(t: { after(fn: () => Promise<void>): void }, checkThreads: number): Promise<TestServer> {
  const ts = await startTestServer({
    checkThreads,
    config: { env: { SDS_METRICS_TOKEN: METRICS_TOKEN } },
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

/** Bodies the threads leave for the main thread: each must be answered as a server without threads answers it. */
function oddBodies(): { name: string; body: Buffer; encoding?: string }[] {
  const json = JSON.stringify(popstanCases(60, 'tablet-odd'));
  const zlib = deflateSync(json);
  return [
    { name: 'corrupt zlib', body: Buffer.concat([zlib.subarray(0, 2000), Buffer.alloc(3000, 9)]) },
    { name: 'too deep', body: deflateSync(`[${'['.repeat(200)}${']'.repeat(200)},${json.slice(1)}`) },
    { name: 'not JSON', body: deflateSync(`${json.slice(0, -1)},{"id": }]`) },
    { name: 'not an array', body: deflateSync(JSON.stringify({ cases: json })) },
    { name: 'a cssync container', body: deflateSync(writeCssync(popstanCases(60, 'tablet-odd'), [])) },
    { name: 'gzip', body: gzipSync(json) },
    { name: 'cut short', body: zlib.subarray(0, zlib.length - 100) },
  ];
}

/** Sends each odd body once, as tablet `odd`; the answers' statuses and bodies. */
async function sendOdd(ts: TestServer): Promise<{ name: string; status: number; body: string }[]> {
  const out = [];
  for (const { name, body } of oddBodies()) {
    const r = await ts.call('standard', `/api/dictionaries/${DICT}/cases`, {
      method: 'POST',
      headers: { 'x-csw-device': 'odd', 'content-type': 'application/json; charset=utf-8', 'content-encoding': 'gzip' },
      body,
    });
    // A cssync container is stored with fresh ids: compare its status, not its revision.
    out.push({ name, status: r.status, body: (await r.text()).replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<guid>') });
  }
  return out;
}

const stored = (ts: TestServer) =>
  storeSql(ts.store, 'SELECT guid, case_key, label, data, clock, verified, deleted, notes FROM cases ORDER BY guid');

test('check threads: many tablets at once store what one thread stores, and a bad case is refused alike', async (t) => {
  const [threaded, inline] = await Promise.all([server(t, 2), server(t, 0)]);
  // 8 tablets × 3 bodies of 80 cases; tablet 5's second body holds a bad case at index 61.
  const tablets = Array.from({ length: 8 }, (_, i) => [0, 1, 2].map(() => popstanCases(80, `tablet-${i}`)));
  tablets[5]![1]![61] = { ...tablets[5]![1]![61]!, clock: 'no clock' as unknown as WireCase['clock'] };

  // The odd bodies go while the tablets upload, so that the threaded server has other uploads in flight.
  const [viaThreads, oddThreaded] = await Promise.all([sendAll(threaded, tablets), sendOdd(threaded)]);
  const [onMain, oddInline] = await Promise.all([sendAll(inline, tablets), sendOdd(inline)]);
  assert.deepEqual(viaThreads, onMain, 'the same answers, refusal included');
  assert.deepEqual(oddThreaded, oddInline, 'odd bodies answered alike');
  assert.deepEqual(
    oddInline.map((a) => a.status),
    [400, 400, 400, 400, 200, 200, 400],
    JSON.stringify(oddInline),
  );
  const refused = viaThreads.filter((a) => a.status !== 200);
  assert.equal(refused.length, 1);
  assert.equal(refused[0]!.status, 400);
  assert.match(refused[0]!.body, /"code":"CASE_INVALID".*case 61 \(id [0-9a-f-]+/);

  assert.ok(threaded.server.checks!.partsChecked > 0, 'some uploads were checked in the threads');
  // /metrics tells where the stored uploads were checked: 23 of the tablets' bodies and 2 odd ones.
  const accepted = viaThreads.filter((a) => a.status === 200).length + 2;
  assert.equal(accepted, 25);
  const inThreads = await checked(threaded, 'thread');
  assert.ok(inThreads > 0);
  assert.equal(inThreads + (await checked(threaded, 'main')), accepted);
  assert.equal(await checked(inline, 'thread'), 0);
  assert.equal(await checked(inline, 'main'), accepted);
  assert.equal(inline.server.checks, undefined, 'no threads with --check-threads 0');
  const rows = await stored(threaded);
  assert.equal(rows.length, 23 * 80 + 2 * 60, 'every case of every accepted body, once');
  const comparable = (r: Record<string, unknown>[]) => r.filter((row) => !String(row.clock).includes('tablet-odd'));
  assert.deepEqual(comparable(rows), comparable(await stored(inline)));
});
