import { Option, type Command } from 'commander';
import { AppError } from '../../shared/errors.js';
import { MB } from '../../http/config.js';
import { LOG_FORMATS, logSettings, type LogFormat } from '../../core/logs/index.js';
import { homePermissionWarnings } from '../../core/home/index.js';
import { action, examples } from '../action.js';
import { holdConfigWarnings } from '../../shared/home-config.js';
import type { ServerLog } from '../../http/server-log.js';
import { currentNode } from '../../shared/node-id.js';
import { WORKER_ENV } from '../../http/worker-group.js';
import {
  MAX_CHECK_THREADS,
  MAX_WORKERS,
  checkThreadsFlag,
  prepareWorkerStore,
  workerSettings,
  workersFlag,
} from '../../core/workers/index.js';

function whole(name: string, min: number, max: number) {
  return (v: string): number => {
    const n = /^\d+$/.test(v) ? Number(v) : NaN;
    if (!(n >= min && n <= max))
      throw new AppError('USAGE', `${name} must be a whole number from ${min} to ${max}, got "${v}"`, { field: name });
    return n;
  };
}

/**
 * This process's place in a group of `sds serve --workers N` (docs/production.md#workers), from
 * the variables its primary started it with; undefined outside a group.
 */
function workerRole(): { index: number; duties: boolean } | undefined {
  const index = Number(process.env[WORKER_ENV.index]);
  return Number.isSafeInteger(index) && index >= 1 ? { index, duties: process.env[WORKER_ENV.duties] === '1' } : undefined;
}

/**
 * Even with --quiet: a store others can read gives away the signing key and every case
 * (docs/architecture.md#permissions-of-a-home). A JSON server log gets them as its own `warn`
 * lines; otherwise --json makes one JSON object per line.
 */
function warnAboutHome(
  ctx: { home: Parameters<typeof homePermissionWarnings>[0]; json: boolean },
  format: LogFormat,
  log: ServerLog,
): void {
  for (const w of homePermissionWarnings(ctx.home)) {
    if (format === 'json') log.log(`sds: warning: ${w.message}`, 'warn');
    else
      process.stderr.write(
        ctx.json
          ? JSON.stringify({
              warning: 'HOME_PERMISSIONS',
              path: w.path,
              mode: w.mode,
              expected: w.expected,
              fix: w.fix,
              message: w.message,
            }) + '\n'
          : `sds: warning: ${w.message}\n`,
      );
  }
}

/** Upper bound of the timeout flags: a day. */
const DAY_MS = 86_400_000;

/** `sds serve`: the HTTP API of the spec until SIGTERM or SIGINT. */
export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description(
      'serve the HTTP API (OAuth 2.0, dictionaries, cases, files, breakout, scheduler, webhooks, CSEntry sync, the status and incoming webhook scripts) and the webhook dispatcher until SIGTERM or Ctrl-C',
    )
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port)', whole('--port', 0, 65535), 8080)
    .option('--max-upload-mb <mb>', 'largest accepted dictionary upload, in MB', whole('--max-upload-mb', 1, 1024), 10)
    .option(
      '--max-file-mb <mb>',
      'largest file accepted by PUT /api/files/{path}/content (CSEntry file sync), in MB',
      whole('--max-file-mb', 1, 65536),
      100,
    )
    .option(
      '--headers-timeout <ms>',
      'close a connection whose request headers take longer (408) (default $SDS_HTTP_HEADERS_TIMEOUT_MS, else 30000)',
      whole('--headers-timeout', 1, DAY_MS),
    )
    .option(
      '--body-timeout <ms>',
      'drop a request whose body sends no byte for this long (408) (default $SDS_HTTP_BODY_TIMEOUT_MS, else 30000)',
      whole('--body-timeout', 1, DAY_MS),
    )
    .option(
      '--request-timeout <ms>',
      'drop a request whose body is not complete this long after its headers (408; 0: no limit) (default $SDS_HTTP_REQUEST_TIMEOUT_MS, else 300000)',
      whole('--request-timeout', 0, DAY_MS),
    )
    .option(
      '--workers <n>',
      `server processes sharing the port, 1 to ${MAX_WORKERS} (default $SDS_WORKERS, config.json workers.count, else 1)`,
      workersFlag,
    )
    .option(
      '--check-threads <n>',
      `threads per process that check sync uploads, 0 to ${MAX_CHECK_THREADS}; 0 checks on the main thread (default $SDS_CHECK_THREADS, config.json workers.check_threads, else 1 with two cores or more)`,
      checkThreadsFlag,
    )
    .addOption(
      new Option(
        '--log-format <format>',
        'stderr log: text lines, or JSON lines with a request id (default $SDS_LOG_FORMAT, config.json, else text)',
      ).choices(LOG_FORMATS),
    )
    .addHelpText(
      'after',
      examples(
        'sds serve',
        'sds serve --log-format json 2>>/var/log/sds/serve.jsonl',
        'sds serve --host 0.0.0.0 --port 8080 --max-upload-mb 20',
        'sds serve --max-file-mb 500       # tablets sync long audio recordings',
        'sds serve --workers 4             # four processes on one port',
        'sds serve --workers 1             # one process, one core',
        'sds serve --check-threads 0       # check uploads on the main thread',
        'sds serve --headers-timeout 10000 --body-timeout 15000 \\\n      --request-timeout 600000',
        'SDS_JWT_SECRET="$(openssl rand -base64 48)" sds --home /srv/sds serve',
        'SDS_METRICS_TOKEN="$(openssl rand -hex 32)" sds serve   # GET /metrics',
        'curl -s http://127.0.0.1:8080/readyz   # ready? (store, migrations, disk)',
      ),
    )
    .action(
      action(
        async (
          ctx,
          opts: {
            host: string;
            port: number;
            maxUploadMb: number;
            maxFileMb: number;
            headersTimeout?: number;
            bodyTimeout?: number;
            requestTimeout?: number;
            logFormat?: LogFormat;
            workers?: number;
            checkThreads?: number;
          },
        ) => {
          const { default: cluster } = await import('node:cluster');
          const worker = cluster.isWorker ? workerRole() : undefined;
          // A worker's IPC channel keeps it alive: it lets go of it when it ends, also when its start
          // fails, so that it ends with its exit code (cluster.worker.disconnect() keeps the code).
          const letGo = () => cluster.worker?.disconnect();
          // Settings read config.json until the server runs (the worker count first): their warnings
          // go out once it does, as the log's own lines, or to stderr as they came if the start fails
          // before the log exists (docs/logs.md#the-server-log).
          const releaseWarnings = holdConfigWarnings();
          if (!worker) {
            const settings = workerSettings(ctx.home, process.env, opts.workers);
            if (settings.count > 1) {
              // Opened once here, so that migrations run once, the signing key is one, and a store
              // that cannot open stops the start before any worker is forked (docs/production.md#workers).
              // The settings every worker would refuse, refused once here (CONFIG_INVALID).
              const { httpTimeouts } = await import('../../http/timeouts.js');
              const { webhookSettings } = await import('../../core/webhooks/index.js');
              httpTimeouts(process.env, {
                headersTimeoutMs: opts.headersTimeout,
                bodyTimeoutMs: opts.bodyTimeout,
                requestTimeoutMs: opts.requestTimeout,
              });
              webhookSettings(process.env);
              const format = opts.logFormat ?? logSettings(ctx.home).format;
              const { serverLog } = await import('../../http/server-log.js');
              const { runWorkerGroup } = await import('../../http/worker-group.js');
              const { shutdownSignal } = await import('../../http/serve.js');
              const log = serverLog(format);
              for (const line of releaseWarnings()) {
                if (format === 'json') log.log(line, 'warn');
                else process.stderr.write(line + '\n');
              }
              await prepareWorkerStore(await ctx.store());
              // While the store is open, as a single process warns: its -wal and -shm files exist then.
              warnAboutHome(ctx, format, log);
              await ctx.close();
              process.exitCode = await runWorkerGroup({
                settings,
                log: log.log,
                stopSignal: shutdownSignal(),
                onListening: (url) => {
                  process.stdout.write(ctx.json ? JSON.stringify({ url }) + '\n' : `sds: listening on ${url}\n`);
                  if (format === 'json') log.log(`sds: listening on ${url} with ${settings.count} workers`);
                },
                onStopping: (sig) => {
                  if (format === 'json') log.log(`sds: ${sig} received, finishing requests in flight`);
                  else ctx.note(`sds: ${sig} received, finishing requests in flight`);
                },
              });
              if (format === 'json') log.log('sds: stopped');
              return;
            }
          }
          let started: { format: LogFormat; log: ServerLog } | undefined;
          const start = async () => {
            const format = opts.logFormat ?? logSettings(ctx.home).format;
            const store = await ctx.store();
            // Loaded on use: the HTTP stack (hono, zod, OpenAPI) would double the start-up time of every other command.
            const { shutdownSignal, startServer } = await import('../../http/serve.js');
            const { serverLog } = await import('../../http/server-log.js');
            const log = serverLog(format);
            started = { format, log };
            // The primary of a group said these once already.
            if (!worker) warnAboutHome(ctx, format, log);
            let workerMetrics;
            if (worker) {
              const { ipcWriteTurns } = await import('../../http/write-turns-ipc.js');
              store.shareWriteTurns(ipcWriteTurns());
              // /metrics answers for every worker (docs/metrics.md#workers).
              const { ipcWorkerMetrics } = await import('../../http/worker-metrics-ipc.js');
              workerMetrics = ipcWorkerMetrics(worker.index, workerSettings(ctx.home, process.env, opts.workers));
            }
            const server = await startServer({
              store,
              host: opts.host,
              port: opts.port,
              duties: worker?.duties,
              checkThreads: workerSettings(ctx.home, process.env, opts.workers, opts.checkThreads).checkThreads,
              config: {
                maxUploadBytes: opts.maxUploadMb * MB,
                maxFileBytes: opts.maxFileMb * MB,
                headersTimeoutMs: opts.headersTimeout,
                bodyTimeoutMs: opts.bodyTimeout,
                requestTimeoutMs: opts.requestTimeout,
                log: log.log,
                requestLog: log.request,
                workerMetrics,
              },
            });
            return { server, shutdownSignal, format, log };
          };
          let run;
          try {
            run = await start();
          } catch (err) {
            if (worker) letGo();
            throw err;
          } finally {
            for (const line of releaseWarnings()) {
              if (worker) continue;
              if (started?.format === 'json') started.log.log(line, 'warn');
              else process.stderr.write(line + '\n');
            }
          }
          const { server, shutdownSignal, format, log } = run;
          if (worker) {
            // The primary prints the URL and logs the stop; a worker stops when it is told to.
            const { listeningMessage, STOP_MESSAGE } = await import('../../http/worker-group.js');
            const stop = new Promise<void>((resolve) => {
              process.on('message', (m: unknown) => {
                if (typeof m === 'object' && m !== null && (m as { sds?: unknown }).sds === STOP_MESSAGE.sds) resolve();
              });
              // Ctrl-C reaches every process of the terminal's group; the primary's stop message
              // follows, and a second signal must not end a worker that is finishing its requests.
              void shutdownSignal().then(() => {
                process.on('SIGINT', () => {});
                process.on('SIGTERM', () => {});
                resolve();
              });
            });
            process.send!(listeningMessage(server.url, currentNode().id));
            await stop;
            await server.close();
            letGo();
            return;
          }
          // The URL goes to stdout even with --quiet: scripts started with --port 0 need it.
          process.stdout.write(ctx.json ? JSON.stringify({ url: server.url }) + '\n' : `sds: listening on ${server.url}\n`);
          // The text log keeps its lines as they were: the URL on stdout only, the signal as a note;
          // the node id is in /readyz and /metrics. The JSON log names the node
          // among those sharing the store (docs/logs.md#the-server-log).
          if (format === 'json') log.log(`sds: listening on ${server.url} as node ${currentNode().id}`);
          const sig = await shutdownSignal();
          if (format === 'json') log.log(`sds: ${sig} received, finishing requests in flight`);
          else ctx.note(`sds: ${sig} received, finishing requests in flight`);
          await server.close();
          if (format === 'json') log.log('sds: stopped');
          // The action wrapper closes the store once this returns.
        },
      ),
    );
}
