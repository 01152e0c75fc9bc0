/**
 * A node whose PostgreSQL store goes away (docs/production.md#while-the-primary-is-away): with a
 * TCP proxy between sds and the shared test server cut, requests fail fast with 503
 * STORE_UNAVAILABLE (a refused connection at once, a silent one within SDS_STORE_CONNECT_TIMEOUT_MS),
 * `/readyz` fails, `/healthz` stays up, and once the proxy forwards again the node serves
 * without a restart, with every case it acknowledged. PostgreSQL on either run: only that store
 * has a server to lose.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCluster, type Cluster } from '../../helpers/cluster.js';
import { callerAt, loginAt, postUpload, seedClusterStore } from '../../helpers/cluster-client.js';
import { skipWithout } from '../../helpers/deploy-files.js';
import { popstanCases, SyncDevice } from '../../helpers/sync-client.js';

const noNginx = skipWithout('nginx', 'nginx') || skipWithout('openssl', 'openssl');
const CONNECT_TIMEOUT_MS = 1500;
/** Slack over the configured time for a loaded 2-core machine: still far below nginx's 300 s. */
const SLACK_MS = 3000;

let cluster: Cluster;
let dict = '';

before(async () => {
  if (noNginx) return;
  cluster = await startCluster({
    nodes: 1,
    proxy: true,
    // Every /readyz checks the store (no reuse of an answer), so the test sees each state at once.
    env: { SDS_READY_CACHE_MS: '0', SDS_STORE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS), SDS_STORE_QUERY_TIMEOUT_MS: '5000' },
    seed: async (store) => {
      dict = await seedClusterStore(store);
    },
  });
});

after(async () => {
  await cluster?.stop();
});

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - t0 };
}

async function getJson(url: string, token?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const r = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

for (const mode of ['refuse', 'blackhole'] as const) {
  test(
    `store lost (${mode}): 503 STORE_UNAVAILABLE fast, /readyz fails, /healthz up, then back without a restart`,
    { skip: noNginx },
    async () => {
      const node = cluster.nodes[0]!;
      const pid = node.serve.child.pid;
      const token = await loginAt(cluster.url, 'standard');
      const acked = popstanCases(5, `tablet-${mode}`);
      const up = await postUpload(cluster.url, token, dict, acked, `tablet-${mode}`);
      assert.equal(up.status, 200, up.body);

      await cluster.proxy!.cut(mode);
      const bound = (mode === 'refuse' ? 0 : CONNECT_TIMEOUT_MS) + SLACK_MS;

      const upload = await timed(() => postUpload(cluster.url, token, dict, popstanCases(3, `tablet-${mode}-2`), `tablet-${mode}-2`));
      assert.equal(upload.value.status, 503, upload.value.body);
      assert.equal((JSON.parse(upload.value.body) as { error: string }).error, 'STORE_UNAVAILABLE');
      assert.ok(upload.ms < bound, `the upload failed in ${Math.round(upload.ms)} ms (bound ${bound})`);

      const list = await timed(() => getJson(`${cluster.url}/api/dictionaries`, token));
      assert.equal(list.value.status, 503);
      assert.equal(list.value.body.error, 'STORE_UNAVAILABLE');
      assert.ok(list.ms < bound, `the read failed in ${Math.round(list.ms)} ms`);

      const login = await timed(() =>
        fetch(`${cluster.url}/api/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=password&username=interviewer&password=standard-pass-1',
        }),
      );
      assert.equal(login.value.status, 503, await login.value.text());
      assert.ok(login.ms < bound);

      const ready = await timed(() => getJson(`${node.url}/readyz`));
      assert.equal(ready.value.status, 503);
      assert.ok((ready.value.body.failed as string[]).includes('store'));
      assert.ok(ready.ms < 2 * bound, `/readyz answered in ${Math.round(ready.ms)} ms`);
      assert.equal((await getJson(`${node.url}/healthz`)).status, 200);

      await cluster.proxy!.restore();
      assert.equal((await getJson(`${node.url}/readyz`)).status, 200);
      assert.equal(node.serve.exit(), null, 'the node never stopped');
      assert.equal(node.serve.child.pid, pid);
      const again = await postUpload(cluster.url, token, dict, popstanCases(3, `tablet-${mode}-3`), `tablet-${mode}-3`);
      assert.equal(again.status, 200, again.body);
      const { cases } = await new SyncDevice(callerAt(cluster.url), `reader-${mode}`).get(dict, 50);
      for (const c of acked) assert.equal(cases.filter((d) => d.id === c.id).length, 1, `acknowledged case ${c.id} is there once`);
      assert.doesNotMatch(node.serve.errors(), /INTERNAL|Unhandled|uncaught/i);
    },
  );
}
