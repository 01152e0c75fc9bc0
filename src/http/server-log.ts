import { pino } from 'pino';
import type { LogFormat } from '../core/logs/index.js';
import { escapeJsonLogLine, escapeLogText } from '../shared/log-escape.js';
import type { LogLevel } from './config.js';
import { requestLine, type RequestLogEntry } from './request-log.js';
import { currentNode } from '../shared/node-id.js';

/** Where `sds serve` writes its log (docs/logs.md#the-server-log): its lines and one entry per request. */
export interface ServerLog {
  log(line: string, level?: LogLevel): void;
  request(entry: RequestLogEntry): void;
}

/**
 * The server log in `format`, on stderr (`fd` moves the JSON lines elsewhere).
 * `text` writes the lines as they are and requestLine for each request, as sds always has.
 * `json` writes one JSON object per line with pino: `time` (ISO 8601), `level` (`info`, `warn`,
 * `error`), `pid`, `node` (src/shared/node-id.ts), `msg`, and for a request `request_id`, `method`, `route`, `path`, `status`,
 * `duration_ms`, `account` (and `aborted`). Both write synchronously, so the lines before a crash
 * are not lost in a buffer (docs/logs.md#the-server-log). Either way an entry is one line: no
 * control character reaches the log raw (docs/logs.md#control-characters).
 */
export function serverLog(format: LogFormat, fd = 2): ServerLog {
  if (format === 'text') {
    // process.stderr writes synchronously to files and pipes.
    const write = (line: string) => process.stderr.write(escapeLogText(line) + '\n');
    return { log: (line) => write(line), request: (e) => write(requestLine(e)) };
  }
  const logger = pino(
    {
      base: { pid: process.pid, node: currentNode().id },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      hooks: { streamWrite: escapeJsonLogLine },
    },
    pino.destination({ fd, sync: true }),
  );
  return {
    log: (line, level = 'info') => logger[level](line),
    request: (e) =>
      logger.info(
        {
          request_id: e.requestId,
          method: e.method,
          route: e.route,
          path: e.path,
          status: e.status,
          ...(e.aborted ? { aborted: true } : {}),
          duration_ms: e.durationMs,
          account: e.account,
        },
        'request',
      ),
  };
}
