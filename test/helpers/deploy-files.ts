import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The deploy files of docs/production.md. */
export const DEPLOY = fileURLToPath(new URL('../../deploy/', import.meta.url));

/** Where the units and the site call sds and read their certificate, as installed (docs/production.md). */
export const INSTALLED_SDS = '/usr/local/bin/sds';
const SITE_CERT = '/etc/ssl/certs/sds.example.org.pem';
const SITE_KEY = '/etc/ssl/private/sds.example.org.key';
const SITE_LOGS = '/var/log/nginx/';

/**
 * Whether a test needing the Debian tool `bin` should skip: false when it is there, or under CI
 * (npm test installs it: scripts/ensure-test-tools.sh; so a missing tool there must fail the test, not skip it); else the reason.
 */
export function skipWithout(bin: string, pkg: string): string | false {
  if (process.env.CI === 'true') return false;
  const found = spawnSync('sh', ['-c', `command -v ${bin} || test -x /usr/sbin/${bin}`], { encoding: 'utf8' });
  return found.status === 0 ? false : `${bin} is not installed (Debian package ${pkg})`;
}

/** The nginx binary: on PATH, else Debian's /usr/sbin/nginx (root's PATH has it, a user's may not). */
export function nginxBin(): string {
  const found = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : '/usr/sbin/nginx';
}

/** Names of the unit files of deploy/systemd/. */
export function unitFiles(): string[] {
  return readdirSync(join(DEPLOY, 'systemd')).filter((f) => /\.(service|timer)$/.test(f));
}

export function readDeploy(path: string): string {
  return readFileSync(join(DEPLOY, path), 'utf8');
}

/** Replaces `from` by `to`, requiring exactly `count` occurrences, so a changed file cannot slip past a substitution. */
export function replaceExactly(text: string, from: string, to: string, count = 1): string {
  const parts = text.split(from);
  if (parts.length - 1 !== count) throw new Error(`expected ${count} occurrence(s) of ${JSON.stringify(from)}, found ${parts.length - 1}`);
  return parts.join(to);
}

/** `key=value` lines of one unit file (the last one wins, as for systemd's single-valued keys). */
export function unitSettings(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) out.set(m[1]!, [...(out.get(m[1]!) ?? []), m[2]!]);
  }
  return out;
}

/** A self-signed certificate for 127.0.0.1 and localhost, made with openssl in `dir`. */
export function selfSignedCert(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const r = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`openssl failed (${r.error?.message ?? r.stderr})`);
  return { cert, key };
}

export interface SiteOptions {
  cert: string;
  key: string;
  logDir: string;
  /** Ports of the two server blocks and the sds upstream; absent: as in the file (80, 443, 8080). */
  httpPort?: number;
  httpsPort?: number;
  upstreamPort?: number;
}

/**
 * deploy/nginx/sds.conf with the machine-specific parts replaced for a test: the certificate, the
 * log folder and, optionally, the ports. Nothing else changes.
 */
export function siteForTest(opts: SiteOptions): string {
  let site = readDeploy('nginx/sds.conf');
  site = replaceExactly(site, SITE_CERT, opts.cert);
  site = replaceExactly(site, SITE_KEY, opts.key);
  site = replaceExactly(site, SITE_LOGS, opts.logDir + '/', 2);
  if (opts.httpPort !== undefined) {
    site = replaceExactly(site, 'listen 80;', `listen 127.0.0.1:${opts.httpPort};`);
    site = replaceExactly(site, 'listen [::]:80;\n', '');
  }
  if (opts.httpsPort !== undefined) {
    site = replaceExactly(site, 'listen 443 ssl http2;', `listen 127.0.0.1:${opts.httpsPort} ssl http2;`);
    site = replaceExactly(site, 'listen [::]:443 ssl http2;\n', '');
  }
  if (opts.upstreamPort !== undefined) site = replaceExactly(site, 'server 127.0.0.1:8080;', `server 127.0.0.1:${opts.upstreamPort};`);
  return site;
}

/**
 * Writes `dir`/nginx.conf: a main configuration as Debian's, reduced to what a test needs, with the
 * pid, logs and temporary folders in `dir`, including `site` as Debian includes sites-enabled/.
 * Debian's 768 connections per worker: each proxied request takes two (the client's and the
 * node's), so dozens of tablets at once (test/e2e/cluster/kill-node.test.ts) need more than a few.
 */
export function writeNginxConf(dir: string, site: string): string {
  writeFileSync(join(dir, 'site.conf'), site);
  for (const d of ['logs', 'tmp']) mkdirSync(join(dir, d), { recursive: true });
  const conf = join(dir, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log;
events { worker_connections 768; }
http {
  access_log ${dir}/logs/access.log;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  include ${dir}/site.conf;
}
`,
  );
  return conf;
}

/** One directive or block of an nginx configuration. */
export interface NginxNode {
  name: string;
  args: string[];
  children?: NginxNode[];
}

/** Parses nginx configuration text into directives and blocks (comments dropped, quotes kept as one argument). */
export function parseNginx(text: string): NginxNode[] {
  const tokens: string[] = [];
  const re = /#[^\n]*|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([{};])|([^\s{};"'#]+)/g;
  for (const m of text.matchAll(re)) {
    if (m[0].startsWith('#')) continue;
    tokens.push(m[1] ?? m[2] ?? m[3] ?? m[4]!);
  }
  let i = 0;
  const block = (): NginxNode[] => {
    const out: NginxNode[] = [];
    let words: string[] = [];
    while (i < tokens.length) {
      const t = tokens[i++]!;
      if (t === ';') {
        out.push({ name: words[0]!, args: words.slice(1) });
        words = [];
      } else if (t === '{') {
        const children = block();
        out.push({ name: words[0]!, args: words.slice(1), children });
        words = [];
      } else if (t === '}') return out;
      else words.push(t);
    }
    return out;
  };
  return block();
}

/** nginx size ("64m", "11m", "512k", "100") in bytes. */
export function nginxBytes(v: string): number {
  const m = /^(\d+)([kKmMgG]?)$/.exec(v);
  if (!m) throw new Error(`not an nginx size: ${v}`);
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(m[1]) * unit;
}

/** nginx time ("30s", "5m", "300") in milliseconds. */
export function nginxMs(v: string): number {
  const m = /^(\d+)(ms|s|m|h)?$/.exec(v);
  if (!m) throw new Error(`not an nginx time: ${v}`);
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
}

export interface ClusterSiteOptions {
  cert: string;
  key: string;
  logDir: string;
  /** The loopback ports of the sds nodes, in place of the example addresses of the upstream. */
  nodePorts: number[];
  /** Ports of the redirecting server and of the main one. */
  httpPort: number;
  mainPort: number;
  /** Serve the main server as plain HTTP (the harness's clients need no certificate); its TLS settings stay. */
  plain?: boolean;
}

/**
 * deploy/nginx/sds-cluster.conf with the machine-specific parts replaced for a test: certificate,
 * logs, ports, and the upstream's servers (each keeping its max_fails and fail_timeout). Adds
 * `X-Sds-Upstream: $upstream_addr` to every answer, so a test sees which node answered.
 */
export function clusterSiteForTest(opts: ClusterSiteOptions): string {
  let site = readDeploy('nginx/sds-cluster.conf');
  site = replaceExactly(site, SITE_CERT, opts.cert);
  site = replaceExactly(site, SITE_KEY, opts.key);
  site = replaceExactly(site, SITE_LOGS, opts.logDir + '/', 2);
  site = replaceExactly(site, 'listen 80;', `listen 127.0.0.1:${opts.httpPort};`);
  site = replaceExactly(site, 'listen [::]:80;\n', '');
  site = replaceExactly(
    site,
    'listen 443 ssl http2;',
    opts.plain ? `listen 127.0.0.1:${opts.mainPort};` : `listen 127.0.0.1:${opts.mainPort} ssl http2;`,
  );
  site = replaceExactly(site, 'listen [::]:443 ssl http2;\n', '');
  const servers = [...site.matchAll(/^ {4}server 10\.0\.0\.\d+:8080 (.*);\n/gm)];
  if (servers.length === 0) throw new Error('no example servers in the upstream of sds-cluster.conf');
  const params = servers[0]![1]!;
  const lines = opts.nodePorts.map((p) => `    server 127.0.0.1:${p} ${params};\n`).join('');
  site = site.replace(servers.map((m) => m[0]).join(''), lines);
  site = replaceExactly(
    site,
    '    add_header Strict-Transport-Security',
    '    add_header X-Sds-Upstream $upstream_addr always;\n    add_header Strict-Transport-Security',
  );
  return site;
}
