/**
 * The several-node site of deploy/nginx/ (docs/production.md#the-load-balancer): nginx -t accepts
 * it as Debian's nginx runs it; it is the single-node site (whose values nginx-matches-sds.test.ts
 * checks against sds) but for its upstream of several nodes with passive health settings and its
 * retry settings, which never re-send a POST that reached a node.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  clusterSiteForTest,
  nginxBin,
  nginxMs,
  parseNginx,
  readDeploy,
  selfSignedCert,
  skipWithout,
  writeNginxConf,
  type NginxNode,
} from '../../helpers/deploy-files.js';

const noNginx = skipWithout('nginx', 'nginx') || skipWithout('openssl', 'openssl');
const single = parseNginx(readDeploy('nginx/sds.conf'));
const cluster = parseNginx(readDeploy('nginx/sds-cluster.conf'));
const RETRY = ['proxy_next_upstream', 'proxy_next_upstream_tries', 'proxy_next_upstream_timeout'];

const dir = mkdtempSync(join(tmpdir(), 'sds-nginx-cluster-'));
chmodSync(dir, 0o755);
after(() => rmSync(dir, { recursive: true, force: true }));

const upstream = (conf: NginxNode[]): NginxNode => conf.find((n) => n.name === 'upstream')!;
const tlsServer = (conf: NginxNode[]): NginxNode =>
  conf.find((n) => n.name === 'server' && n.children!.some((d) => d.name === 'listen' && d.args.includes('ssl')))!;

test('nginx -t accepts the several-node site, with no warning', { skip: noNginx }, () => {
  const { cert, key } = selfSignedCert(dir);
  const site = clusterSiteForTest({
    cert,
    key,
    logDir: join(dir, 'logs'),
    nodePorts: [18081, 18082, 18083],
    httpPort: 18080,
    mainPort: 18443,
  });
  const conf = writeNginxConf(dir, site);
  const r = spawnSync(nginxBin(), ['-t', '-c', conf, '-p', dir], { encoding: 'utf8' });
  assert.equal(r.error, undefined, `nginx could not run: ${r.error?.message}`);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /test is successful/);
  assert.doesNotMatch(r.stderr, /\[(warn|emerg|alert|crit)\]/);
});

test('it is the single-node site but for the upstream and the retry settings', () => {
  const withoutUpstream = (conf: NginxNode[]) => conf.filter((n) => n.name !== 'upstream');
  const withoutRetry = (conf: NginxNode[]) =>
    conf.map((n) => (n.name === 'server' ? { ...n, children: n.children!.filter((d) => !RETRY.includes(d.name)) } : n));
  assert.deepEqual(withoutRetry(withoutUpstream(cluster)), withoutUpstream(single));
  assert.equal(upstream(cluster).args[0], upstream(single).args[0], 'the same upstream name');
  // The keep-alive settings of the single site (shorter than Node's 5 s) are kept.
  const keep = (u: NginxNode) => u.children!.filter((d) => d.name.startsWith('keepalive'));
  assert.deepEqual(keep(upstream(cluster)), keep(upstream(single)));
});

test('several nodes, each with passive health settings', () => {
  const servers = upstream(cluster).children!.filter((d) => d.name === 'server');
  assert.ok(servers.length >= 2);
  for (const s of servers) {
    assert.ok(s.args.includes('max_fails=1'), s.args.join(' '));
    assert.ok(
      s.args.some((a) => /^fail_timeout=\d+s$/.test(a)),
      s.args.join(' '),
    );
  }
  // health_check is NGINX Plus only: Debian's nginx would refuse the site.
  assert.ok(!JSON.stringify(cluster).includes('health_check'));
});

test('a POST that reached a node is never sent on to another one; a refused connection is', () => {
  const tls = tlsServer(cluster);
  const next = tls.children!.filter((d) => d.name === 'proxy_next_upstream');
  assert.equal(next.length, 1);
  assert.deepEqual(next[0]!.args, ['error', 'timeout']);
  assert.ok(!JSON.stringify(cluster).includes('non_idempotent'));
  // No location overrides it.
  for (const loc of tls.children!.filter((d) => d.name === 'location')) {
    assert.ok(!loc.children!.some((d) => d.name.startsWith('proxy_next_upstream')), loc.args.join(' '));
  }
  const tries = tls.children!.find((d) => d.name === 'proxy_next_upstream_tries')!;
  assert.equal(tries.args[0], '2');
  // Passing a request on is bounded well below the time sds gives a request (300 s).
  assert.ok(nginxMs(tls.children!.find((d) => d.name === 'proxy_next_upstream_timeout')!.args[0]!) <= 30_000);
});
