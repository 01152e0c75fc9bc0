import type { Command } from 'commander';
import { AppError } from '../../shared/errors.js';
import { MB } from '../../http/config.js';
import { action, examples } from '../action.js';

function whole(name: string, min: number, max: number) {
  return (v: string): number => {
    const n = /^\d+$/.test(v) ? Number(v) : NaN;
    if (!(n >= min && n <= max))
      throw new AppError('USAGE', `${name} must be a whole number from ${min} to ${max}, got "${v}"`, { field: name });
    return n;
  };
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
    .addHelpText(
      'after',
      examples(
        'sds serve',
        'sds serve --host 0.0.0.0 --port 8080 --max-upload-mb 20',
        'sds serve --max-file-mb 500       # tablets sync long audio recordings',
        'sds serve --headers-timeout 10000 --body-timeout 15000 \\\n      --request-timeout 600000',
        'SDS_JWT_SECRET="$(openssl rand -base64 48)" sds --home /srv/sds serve',
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
          },
        ) => {
          // Loaded on use: the HTTP stack (hono, zod, OpenAPI) would double the start-up time of every other command.
          const { shutdownSignal, startServer } = await import('../../http/serve.js');
          const server = await startServer({
            store: ctx.store(),
            host: opts.host,
            port: opts.port,
            config: {
              maxUploadBytes: opts.maxUploadMb * MB,
              maxFileBytes: opts.maxFileMb * MB,
              headersTimeoutMs: opts.headersTimeout,
              bodyTimeoutMs: opts.bodyTimeout,
              requestTimeoutMs: opts.requestTimeout,
            },
          });
          // The URL goes to stdout even with --quiet: scripts started with --port 0 need it.
          process.stdout.write(ctx.json ? JSON.stringify({ url: server.url }) + '\n' : `sds: listening on ${server.url}\n`);
          const sig = await shutdownSignal();
          ctx.note(`sds: ${sig} received, finishing requests in flight`);
          await server.close();
          // The action wrapper closes the store once this returns.
        },
      ),
    );
}
