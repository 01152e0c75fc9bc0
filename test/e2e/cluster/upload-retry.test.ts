/**
 * Two `sds serve` nodes on one PostgreSQL store behind nginx with deploy/nginx/sds-cluster.conf
 * (docs/production.md#several-nodes): a token one node signed is good on the other; a tablet's
 * retry of an upload whose reply it lost, answered by the other node, stores nothing twice; and
 * nginx never sends a POST on to another node when the node it was sent to dies, so the tablet
 * sees an error and retries itself. PostgreSQL on either run: several nodes share a store only there.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startCluster, type Cluster } from '../../helpers/cluster.js';
import { callerAt, loginAt, postUpload, seedClusterStore } from '../../helpers/cluster-client.js';
import { skipWithout } from '../../helpers/deploy-files.js';
import { popstanCases, SyncDevice } from '../../helpers/sync-client.js';
import { storeSql } from '../../helpers/temp-home.js';

const noNginx = skipWithout('nginx', 'nginx') || skipWithout('openssl', 'openssl');

let cluster: Cluster;
let dict = '';

before(async () => {
  if (noNginx) return;
  cluster = await startCluster({
    nodes: 2,
    seed: async (store) => {
      dict = await seedClusterStore(store);
    },
  });
});

after(async () => {
  await cluster?.stop();
});

/** The node that answered through nginx (X-Sds-Upstream is added by the test rendering only). */
const upstreamOf = (headers: Record<string, string | string[] | undefined>): string => String(headers['x-sds-upstream'] ?? '');

/** The stored cases of `guids`: revision and clock of each, by guid. */
async function stored(guids: string[]): Promise<Map<string, { revision: number; clock: string }>> {
  const rows = await cluster.withStore((s) =>
    storeSql(s, `SELECT guid, revision, clock FROM cases WHERE guid IN (${guids.map(() => '?').join(', ')})`, guids),
  );
  return new Map(rows.map((r) => [String(r.guid), { revision: Number(r.revision), clock: String(r.clock) }]));
}

/**
 * Whether an established connection to the local port `port` holds received bytes nobody has
 * read (the rx_queue of /proc/net/tcp; Linux, as the tests run).
 */
function bytesWaitingOn(port: number): boolean {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .some((line) => {
      const f = line.trim().split(/\s+/);
      // local_address, st (01: established), tx_queue:rx_queue
      return f[1]?.endsWith(`:${hex}`) === true && f[3] === '01' && parseInt(f[4]!.split(':')[1]!, 16) > 0;
    });
}

/** GETs /healthz through nginx until the next request goes to the node `port` (round robin, one nginx worker). */
async function nextGoesTo(port: number): Promise<void> {
  const others = cluster.nodes.filter((n) => n.port !== port).map((n) => `127.0.0.1:${n.port}`);
  for (let i = 0; i < 10; i++) {
    const r = await fetch(`${cluster.url}/healthz`);
    assert.equal(r.status, 200);
    // After an answer of the last other node in turn, the next request is this node's.
    if (r.headers.get('x-sds-upstream') === others.at(-1)) return;
  }
  throw new Error('nginx never turned to the other node');
}

test('a token signed by one node is accepted by the other (the key kept in the shared store)', { skip: noNginx }, async () => {
  const [a, b] = cluster.nodes;
  const token = await loginAt(a!.url, 'standard');
  const r = await fetch(`${b!.url}/api/dictionaries`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(r.status, 200, await r.text());
  const refused = await fetch(`${b!.url}/api/dictionaries`, { headers: { authorization: `Bearer ${token}x` } });
  assert.equal(refused.status, 401, 'a token is still checked');
});

test("a tablet's retry answered by the other node stores each case once, at the first upload's revision", { skip: noNginx }, async () => {
  const token = await loginAt(cluster.url, 'standard');
  const cases = popstanCases(6, 'tablet-retry');
  const first = await postUpload(cluster.url, token, dict, cases, 'tablet-retry');
  assert.equal(first.status, 200, first.body);
  const before = await stored(cases.map((c) => c.id));
  assert.equal(before.size, 6);

  // The reply was lost: the tablet sends the very same request again; nginx takes it to the other node.
  const retry = await postUpload(cluster.url, token, dict, cases, 'tablet-retry');
  assert.equal(retry.status, 200, retry.body);
  assert.notEqual(upstreamOf(retry.headers), upstreamOf(first.headers), 'the retry went to the other node');
  assert.ok(upstreamOf(first.headers) !== '' && upstreamOf(retry.headers) !== '');

  // Every case unchanged: the same revision and vector clock as after the first upload.
  assert.deepEqual(await stored(cases.map((c) => c.id)), before);
  const count = await cluster.withStore((s) =>
    storeSql(
      s,
      'SELECT count(*) AS n FROM cases WHERE guid IN (' + cases.map(() => '?').join(', ') + ')',
      cases.map((c) => c.id),
    ),
  );
  assert.equal(Number(count[0]!.n), 6);

  // Another tablet downloads through nginx: each case once.
  const { cases: down } = await new SyncDevice(callerAt(cluster.url), 'tablet-reader').get(dict, 4);
  const ids = down.map((c) => c.id).filter((id) => cases.some((c) => c.id === id));
  assert.deepEqual([...ids].sort(), cases.map((c) => c.id).sort());
});

test('nginx does not send a POST on to another node when its node dies mid-request; the retry works', { skip: noNginx }, async () => {
  const token = await loginAt(cluster.url, 'standard');
  const victim = cluster.nodes[0]!;
  await nextGoesTo(victim.port);
  // The node stops (as a process frozen or dying would): the kernel still accepts nginx's
  // connection and takes the request, which no one reads.
  victim.serve.child.kill('SIGSTOP');
  const cases = popstanCases(4, 'tablet-cut');
  const pending = postUpload(cluster.url, token, dict, cases, 'tablet-cut');
  // Wait until nginx has sent the request to the stopped node: bytes queued unread on one of its connections.
  for (let i = 0; !bytesWaitingOn(victim.port); i++) {
    if (i > 100_000) throw new Error('the request never reached the stopped node');
    await new Promise((r) => setImmediate(r));
  }
  await victim.serve.kill9();
  const cut = await pending;
  assert.equal(cut.status, 502, `nginx answers 502 and does not try the other node: ${cut.status} ${cut.body}`);
  assert.equal((await stored(cases.map((c) => c.id))).size, 0, 'nothing of the cut upload is stored');

  // The tablet's retry: the dead node is passed over (its connection is refused) and the other stores it.
  const retry = await postUpload(cluster.url, token, dict, cases, 'tablet-cut');
  assert.equal(retry.status, 200, retry.body);
  assert.equal((await stored(cases.map((c) => c.id))).size, 4);
  await cluster.restartNode(0);
});
