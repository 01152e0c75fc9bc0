/**
 * The nginx site of deploy/nginx/ agrees with sds's own defaults, read from the code
 * (docs/production.md#the-nginx-site): body limits per route, slow-client timeouts, the upstream
 * that sds.service listens on, and the headers sds reads. Changing a default of sds without the
 * site (or the other way round) fails here.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { httpConfig } from '../../../src/http/config.js';
import { DEFAULT_HTTP_TIMEOUTS } from '../../../src/http/timeouts.js';
import { DEFAULT_LIMITS } from '../../../src/core/home/limits.js';
import { nginxBytes, nginxMs, parseNginx, readDeploy, unitSettings, type NginxNode } from '../../helpers/deploy-files.js';

const MIB = 1024 * 1024;
const conf = parseNginx(readDeploy('nginx/sds.conf'));
const defaults = httpConfig({ env: {} });

function servers(): NginxNode[] {
  return conf.filter((n) => n.name === 'server');
}
const tls = servers().find((s) => s.children!.some((d) => d.name === 'listen' && d.args.includes('ssl')))!;

function directive(block: NginxNode, name: string): string[] {
  const found = block.children!.filter((d) => d.name === name);
  assert.equal(found.length, 1, `one ${name} in ${block.name} ${block.args.join(' ')}`);
  return found[0]!.args;
}

function location(args: string[]): NginxNode {
  const found = tls.children!.find((d) => d.name === 'location' && d.args.join(' ') === args.join(' '));
  assert.ok(found, `location ${args.join(' ')}`);
  return found;
}

test('the site has a TLS server and a plain one that only redirects to https', () => {
  assert.equal(servers().length, 2);
  const plain = servers().find((s) => s !== tls)!;
  assert.deepEqual(directive(plain, 'return'), ['301', 'https://$host$request_uri']);
  assert.ok(directive(tls, 'ssl_certificate')[0]!.startsWith('/etc/ssl/'));
  assert.ok(directive(tls, 'ssl_certificate_key')[0]!.startsWith('/etc/ssl/'));
});

test('slow-client timeouts are those of sds serve (SDS_HTTP_*_TIMEOUT_MS defaults)', () => {
  assert.equal(nginxMs(directive(tls, 'client_header_timeout')[0]!), DEFAULT_HTTP_TIMEOUTS.headersTimeoutMs);
  assert.equal(nginxMs(directive(tls, 'client_body_timeout')[0]!), DEFAULT_HTTP_TIMEOUTS.bodyTimeoutMs);
  assert.equal(nginxMs(directive(tls, 'proxy_send_timeout')[0]!), DEFAULT_HTTP_TIMEOUTS.bodyTimeoutMs);
  // nginx waits for a reply as long as sds lets a request run.
  assert.equal(nginxMs(directive(tls, 'proxy_read_timeout')[0]!), DEFAULT_HTTP_TIMEOUTS.requestTimeoutMs);
});

test('the sync upload route takes exactly the sync limit (limits.request_bytes)', () => {
  const sync = location(['~', '^/api/dictionaries/[^/]+/cases$']);
  assert.equal(nginxBytes(directive(sync, 'client_max_body_size')[0]!), DEFAULT_LIMITS.requestBytes);
  const re = new RegExp(sync.args[1]!);
  assert.ok(re.test('/api/dictionaries/CEN2000/cases'));
  assert.ok(!re.test('/api/dictionaries/CEN2000/cases/6f1c'), 'one case (DELETE) is a small request');
  assert.ok(!re.test('/api/dictionaries/CEN2000'));
});

test('the file routes take exactly the file limit (--max-file-mb)', () => {
  const files = location(['/api/files/']);
  assert.equal(nginxBytes(directive(files, 'client_max_body_size')[0]!), defaults.maxFileBytes);
  for (const path of ['/api/files/media/photo.jpg/content', '/api/files/apps/census/menu.pen/content'])
    assert.ok(path.startsWith(files.args[0]!), path);
});

test('every other route: the dictionary upload limit plus 1 MiB of multipart envelope', () => {
  const size = nginxBytes(directive(tls, 'client_max_body_size')[0]!);
  assert.equal(size, defaults.maxUploadBytes + MIB);
  assert.ok(size >= defaults.maxBodyBytes);
  // No route of sds accepts more than the largest limit of the site.
  const inLocations = tls
    .children!.filter((d) => d.name === 'location')
    .flatMap((l) => l.children!.filter((d) => d.name === 'client_max_body_size').map((d) => nginxBytes(d.args[0]!)));
  const largest = Math.max(size, ...inLocations);
  assert.equal(largest, Math.max(defaults.maxFileBytes, DEFAULT_LIMITS.requestBytes, defaults.maxUploadBytes + MIB));
});

test('the upstream is where sds.service listens, and nginx drops idle connections before Node does', () => {
  const upstream = conf.find((n) => n.name === 'upstream')!;
  const exec = unitSettings(readDeploy('systemd/sds.service')).get('ExecStart')!.at(-1)!;
  const host = /--host (\S+)/.exec(exec)![1];
  const port = /--port (\d+)/.exec(exec)![1];
  assert.deepEqual(directive(upstream, 'server'), [`${host}:${port}`]);
  const server = createServer();
  try {
    assert.ok(nginxMs(directive(upstream, 'keepalive_timeout')[0]!) < server.keepAliveTimeout);
  } finally {
    server.close();
  }
  for (const l of tls.children!.filter((d) => d.name === 'location')) assert.deepEqual(directive(l, 'proxy_pass'), ['http://sds_serve']);
});

test('nginx passes the client address, the scheme and its request id the way sds reads them', () => {
  const headers = new Map(tls.children!.filter((d) => d.name === 'proxy_set_header').map((d) => [d.args[0]!.toLowerCase(), d.args[1]]));
  assert.equal(headers.get('x-forwarded-for'), '$proxy_add_x_forwarded_for');
  assert.equal(headers.get('x-forwarded-proto'), '$scheme');
  assert.equal(headers.get('x-request-id'), '$request_id');
  assert.equal(directive(tls, 'proxy_request_buffering')[0], 'on');
});

test('/metrics is served to an allow list only', () => {
  const metrics = location(['=', '/metrics']);
  const rules = metrics.children!.filter((d) => d.name === 'allow' || d.name === 'deny');
  assert.deepEqual(rules.at(-1), { name: 'deny', args: ['all'] });
  assert.ok(rules.some((r) => r.name === 'allow'));
});
