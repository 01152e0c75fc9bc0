/**
 * Several nodes on one store, as docs/production.md#several-nodes runs them: a fresh PostgreSQL
 * store, N real `sds serve` processes (each with a home folder of its own, all with the same
 * SDS_STORE_URL), and nginx in front of them with deploy/nginx/sds-cluster.conf
 * rendered for loopback ports. The store is PostgreSQL whatever the run's store: several nodes
 * share a store only there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initHome } from '../../src/core/home/index.js';
import type { Store } from '../../src/store/open-store.js';
import { clusterSiteForTest, nginxBin, selfSignedCert, writeNginxConf } from './deploy-files.js';
import { startServe, type ServeProcess } from './serve-process.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import { tempDir, tempHome, withStore, type TempHome } from './temp-home.js';

/** One `sds serve` of the cluster. */
export interface ClusterNode {
  home: string;
  port: number;
  /** The node's own URL, bypassing nginx. */
  url: string;
  serve: ServeProcess;
}

export interface Cluster {
  /** nginx's URL: what the tablets use. */
  url: string;
  nodes: ClusterNode[];
  /** The URL the nodes reach the store with (through `proxy` when the cluster has one). */
  storeUrl: string;
  /** Between the nodes and PostgreSQL, when started with `proxy: true`: cut it to lose the store. */
  proxy?: TcpProxy;
  /** What nginx wrote to its error logs. */
  nginxErrors(): string;
  /** Opens the store directly (not through the proxy), runs `fn`, closes it. */
  withStore<T>(fn: (store: Store) => Promise<T>): Promise<T>;
  /** Starts node `i` again on its port, after it stopped or was killed. */
  restartNode(i: number): Promise<ClusterNode>;
  /** Stops nginx and every node, drops the store's database, removes the folders. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  nodes: number;
  /** More environment for every node (e.g. SDS_READY_CACHE_MS=0). */
  env?: NodeJS.ProcessEnv;
  /** Put a TCP proxy between the nodes and PostgreSQL. */
  proxy?: boolean;
  /** Writes to the store before the nodes start (accounts, dictionaries). */
  seed?: (store: Store) => Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts connections on 127.0.0.1:port; rejects when `child` exits first or after `ms`. */
async function listening(port: number, child: ChildProcess, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const c = connect(port, '127.0.0.1');
      c.once('connect', () => (c.destroy(), resolve(true)));
      c.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${port} after ${ms} ms`);
    await new Promise((r) => setImmediate(r));
  }
}

const storeUrlOf = (home: TempHome): string =>
  (JSON.parse(readFileSync(join(home.root, 'config.json'), 'utf8')) as { store: { url: string } }).store.url;

/** Starts the store, the nodes and nginx; `stop()` ends them all (call it in `after`). */
export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const first = await tempHome('postgresql');
  const direct = storeUrlOf(first);
  const cleanups: (() => Promise<void> | void)[] = [() => first.cleanup()];
  const nodes: ClusterNode[] = [];
  let nginx: ChildProcess | undefined;
  let nginxLog = '';
  const stop = async () => {
    if (nginx && nginx.exitCode === null) {
      const ended = new Promise((r) => nginx!.once('exit', r));
      nginx.kill('SIGQUIT');
      await ended;
    }
    for (const n of nodes) await n.serve.stop();
    for (const c of cleanups.reverse()) await c();
  };
  try {
    let storeUrl = direct;
    let proxy: TcpProxy | undefined;
    if (opts.proxy === true) {
      proxy = await startTcpProxy(Number(new URL(direct).port || 5432), new URL(direct).hostname);
      cleanups.push(() => proxy!.close());
      const u = new URL(direct);
      u.hostname = '127.0.0.1';
      u.port = String(proxy.port);
      storeUrl = u.toString();
    }
    if (opts.seed) await withStore(first, opts.seed);
    // No SDS_JWT_SECRET: every node signs with the key kept in the shared store, as an office
    // that sets none runs them (docs/production.md#several-nodes).
    const env: NodeJS.ProcessEnv = {
      SDS_STORE_URL: storeUrl,
      SDS_TRUSTED_PROXIES: '127.0.0.1',
      ...opts.env,
    };
    const homes = [first.root];
    for (let i = 1; i < opts.nodes; i++) {
      const h = tempDir();
      cleanups.push(() => h.cleanup());
      writeFileSync(join(h.root, 'config.json'), JSON.stringify({ store: { url: direct } }), { mode: 0o600 });
      await initHome(h);
      homes.push(h.root);
    }
    const startNode = async (home: string, port: number): Promise<ClusterNode> => {
      const serve = await startServe(home, env, port);
      return { home, port: Number(new URL(serve.url).port), url: serve.url, serve };
    };
    for (const home of homes) nodes.push(await startNode(home, 0));

    const dir = mkdtempSync(join(tmpdir(), 'sds-cluster-'));
    // nginx's workers run as another user when the master is root: they must reach the folders.
    chmodSync(dir, 0o755);
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const { cert, key } = selfSignedCert(dir);
    const mainPort = await freePort();
    const site = clusterSiteForTest({
      cert,
      key,
      logDir: join(dir, 'logs'),
      nodePorts: nodes.map((n) => n.port),
      httpPort: await freePort(),
      mainPort,
      plain: true,
    });
    const conf = writeNginxConf(dir, site);
    nginx = spawn(nginxBin(), ['-c', conf, '-p', dir, '-e', join(dir, 'logs', 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
    nginx.stderr!.on('data', (b: Buffer) => (nginxLog += b.toString()));
    await listening(mainPort, nginx);
    return {
      url: `http://127.0.0.1:${mainPort}`,
      nodes,
      storeUrl,
      ...(proxy ? { proxy } : {}),
      // The main error log, and the site's (sds.error.log: what the server block logs).
      nginxErrors: () =>
        nginxLog +
        ['error.log', 'sds.error.log']
          .map((f) => {
            try {
              return readFileSync(join(dir, 'logs', f), 'utf8');
            } catch {
              return '';
            }
          })
          .join(''),
      withStore: (fn) => withStore(first, fn),
      async restartNode(i) {
        const old = nodes[i]!;
        await old.serve.stop();
        nodes[i] = await startNode(old.home, old.port);
        return nodes[i];
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
