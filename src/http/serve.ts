import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type HttpBindings, type Http2Bindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { AppError } from '../shared/errors.js';
import { escapeLogText } from '../shared/log-escape.js';
import { startWebhookDispatcher, webhookSettings } from '../core/webhooks/index.js';
import { logSettings, startLogPruner } from '../core/logs/index.js';
import { removeStaleParts, type StalePartsReport } from '../core/files/index.js';
import { jobLeaseSettings, startJobSweeper } from '../core/breakout/index.js';
import type { Store } from '../core/home/index.js';
import { watchRequestBodies } from './body-timeout.js';
import type { HttpConfig, LogLevel } from './config.js';
import { createApp } from './create-app.js';
import { CheckPool } from '../core/sync/index.js';
import { httpTimeouts } from './timeouts.js';

export interface ServeOptions {
  store: Store;
  /** Interface to bind (default 127.0.0.1: reachable from this machine only). */
  host?: string;
  /** Port (default 8080; 0 picks a free one). */
  port?: number;
  clock?: () => number;
  config?: Partial<HttpConfig>;
  /** How long close() lets in-flight requests finish before cutting connections (default 10 s). */
  graceMs?: number;
  /** Run the webhook dispatcher in this process (default true): it sends due deliveries every `pollMs`. */
  webhookDispatcher?: boolean;
  /** Prune the home's logs from this process when due (default true; docs/logs.md#when-logs-are-pruned). */
  logPruner?: boolean;
  /**
   * Run the duties of the machine in this process (default true): the webhook dispatcher, the log
   * pruner, the WAL checkpointer and the start-up sweep of temporary files. false in all but one
   * worker of `sds serve --workers N`, so that none runs twice (docs/production.md#workers).
   */
  duties?: boolean;
  /** How often the log pruner checks whether a prune is due (default a minute; docs/logs.md#when-logs-are-pruned). */
  logPruneCheckMs?: number;
  /** Take over breakout jobs whose node died, every sweep interval (default true; docs/breakout.md#leases). */
  jobSweeper?: boolean;
  /**
   * Threads that check sync uploads beside the main thread (default 0: on the main thread);
   * `sds serve` sets `workers.check_threads` (docs/production.md#check-threads).
   */
  checkThreads?: number;
}

export interface RunningServer {
  url: string;
  host: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), then resolves. */
  close(): Promise<void>;
  /** The upload check threads, when `checkThreads` started any. */
  checks?: CheckPool;
}

/** Starts the HTTP API on a port; resolves once it is listening. The caller owns the store. */
export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const checks = opts.checkThreads ? new CheckPool(opts.checkThreads) : undefined;
  try {
    return await listen(opts, checks);
  } catch (err) {
    // A start that fails leaves no thread behind to hold the process.
    await checks?.close();
    throw err;
  }
}

async function listen(opts: ServeOptions, checks: CheckPool | undefined): Promise<RunningServer> {
  const host = opts.host ?? '127.0.0.1';
  const app = await createApp({ store: opts.store, clock: opts.clock, config: opts.config, checker: checks });
  // Checked before listening, so a bad SDS_WEBHOOK_* value stops the start with CONFIG_INVALID.
  const settings = webhookSettings(opts.config?.env ?? process.env, opts.config?.webhooks);
  const timeouts = httpTimeouts(opts.config?.env ?? process.env, opts.config);
  // Checked before listening too: a bad SDS_LOG_RETENTION_* value stops the start.
  const retention = logSettings(opts.store.home, opts.config?.env ?? process.env);
  const leases = jobLeaseSettings(opts.store.home, opts.config?.env ?? process.env);
  // Before the first request, so that every temporary file of this process's pid is a previous life's (docs/sync.md#files).
  const duties = opts.duties !== false;
  const swept = duties ? await removeStaleParts(opts.store, { now: opts.clock?.() }) : { removed: [], failed: [], kept: 0 };
  // A reply already written (the 408 of a stalled body) or a client gone: nothing more to send.
  const fetch = async (req: Request, env: HttpBindings | Http2Bindings) => {
    const res = await app.fetch(req, env);
    return env.outgoing.headersSent || env.incoming.socket?.destroyed ? RESPONSE_ALREADY_SENT : res;
  };
  return new Promise((resolve, reject) => {
    const server = serve({
      fetch,
      hostname: host,
      port: opts.port ?? 8080,
      serverOptions: {
        // Node answers 408 and closes a connection whose headers are not complete in time; it
        // looks every connectionsCheckingInterval, so that is a fraction of the limit.
        headersTimeout: timeouts.headersTimeoutMs,
        connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(timeouts.headersTimeoutMs / 4))),
        // The whole-request limit is watchRequestBodies' (below), so that it is logged as 408 too.
        requestTimeout: 0,
      },
    }) as Server;
    const stopWatch = watchRequestBodies(server, timeouts);
    server.once('error', (err: NodeJS.ErrnoException) => {
      const what = `${host}:${opts.port ?? 8080}`;
      stopWatch();
      reject(
        err.code === 'EADDRINUSE' || err.code === 'EACCES' || err.code === 'EADDRNOTAVAIL'
          ? new AppError('USAGE', `cannot listen on ${what}: ${err.code === 'EADDRINUSE' ? 'the port is already in use' : err.message}`, {
              field: 'port',
            })
          : new AppError('IO_ERROR', `cannot listen on ${what}: ${err.message}`, {}, { cause: err }),
      );
    });
    server.once('listening', () => {
      const port = (server.address() as AddressInfo).port;
      const urlHost = host.includes(':') ? `[${host}]` : host;
      const log = opts.config?.log ?? ((line: string) => process.stderr.write(escapeLogText(line) + '\n'));
      // An error of the listening socket later on (out of file descriptors, say) is logged; with
      // no listener left it would end the process.
      server.on('error', (err: Error) => log(`sds serve: server error: ${err.message}`, 'error'));
      logSweep(swept, log);
      // Uploads commit without stopping to checkpoint the WAL (store/wal-checkpointer.ts).
      opts.store.checkpointInBackground({ thread: duties });
      // Concurrent requests' commits share their fsyncs (docs/durability.md#group-commit).
      opts.store.groupCommits();
      const dispatcher =
        opts.webhookDispatcher === false || !duties ? undefined : startWebhookDispatcher(opts.store, { settings, log, now: opts.clock });
      const clock = opts.clock;
      const pruner =
        opts.logPruner === false || !duties
          ? undefined
          : startLogPruner(opts.store, {
              log,
              settings: retention,
              now: clock ? () => new Date(clock()) : undefined,
              checkEveryMs: opts.logPruneCheckMs,
            });
      const sweeper = opts.jobSweeper === false ? undefined : startJobSweeper(opts.store, { leases, log });
      const close = async () => {
        await sweeper?.stop();
        await pruner?.stop();
        await dispatcher?.stop();
        await closeServer(server, opts.graceMs ?? 10_000);
        stopWatch();
        // After the requests in flight: none is left waiting on a thread.
        await checks?.close();
      };
      resolve({ url: `http://${urlHost}:${port}`, host, port, close, ...(checks ? { checks } : {}) });
    });
  });
}

/** Temporary files a sweep names in its line; more are counted. */
const SWEEP_NAMED = 5;

/** One line for what the start-up sweep of temporary upload files removed, and a warning per failure (the first few). */
function logSweep(r: StalePartsReport, log: (line: string, level?: LogLevel) => void): void {
  if (r.removed.length > 0) {
    const more = r.removed.length > SWEEP_NAMED ? `, and ${r.removed.length - SWEEP_NAMED} more` : '';
    log(
      `sds serve: removed ${r.removed.length} stale temporary upload file${r.removed.length === 1 ? '' : 's'} (left by writers that ended without finishing): ` +
        r.removed.slice(0, SWEEP_NAMED).join(', ') +
        more,
    );
  }
  for (const f of r.failed.slice(0, SWEEP_NAMED))
    log(`sds serve: warning: looking for stale temporary upload files, ${f.path} could not be read or removed: ${f.reason}`, 'warn');
  if (r.failed.length > SWEEP_NAMED)
    log(
      `sds serve: warning: ${r.failed.length - SWEEP_NAMED} more paths could not be read or removed looking for stale temporary upload files`,
      'warn',
    );
}

function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    // Keep-alive connections with no request in flight would hold close() open until they time out.
    server.closeIdleConnections();
  });
}

/** Resolves with the name of the first of SIGTERM or SIGINT received. */
export function shutdownSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (sig: NodeJS.Signals) => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
      resolve(sig);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
}
