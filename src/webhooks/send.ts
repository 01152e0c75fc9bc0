import type { Agent } from 'undici';

type Undici = typeof import('undici');
let undiciModule: Promise<Undici> | undefined;
/** undici, imported on the first send: every CLI command would otherwise load it (docs/cli.md#start-up-time). */
const loadUndici = (): Promise<Undici> => (undiciModule ??= import('undici'));

/** What became of one POST to a receiver. */
export interface SendResult {
  /** `ok`: a 2xx answer; `rejected`: any other status; `timeout` and `unreachable`: no answer. */
  outcome: 'ok' | 'rejected' | 'timeout' | 'unreachable';
  status: number | null;
  ms: number;
  error: string | null;
}

export interface Sender {
  post(url: string, body: string, headers: Record<string, string>, opts?: { totalTimeoutMs?: number }): Promise<SendResult>;
  close(): Promise<void>;
}

/**
 * A sender with its own connection pool and timeouts: `connectMs` to connect, `responseMs` for
 * the answer (headers, then each stretch of body), and an optional cap on the whole exchange.
 * Redirects are not followed: a 3xx is an answer that is not 2xx.
 */
export function createSender(opts: { connectMs: number; responseMs: number }): Sender {
  let agent: Agent | undefined;
  return {
    async post(url, body, headers, o = {}) {
      const started = performance.now();
      const ms = () => Math.round(performance.now() - started);
      const cap = o.totalTimeoutMs ?? opts.connectMs + opts.responseMs;
      const undici = await loadUndici();
      agent ??= new undici.Agent({ connect: { timeout: opts.connectMs }, headersTimeout: opts.responseMs, bodyTimeout: opts.responseMs });
      try {
        const res = await undici.request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', 'user-agent': 'sds-webhooks', ...headers },
          body,
          signal: AbortSignal.timeout(cap),
        });
        // Read (and drop) what the receiver says so the connection can be reused.
        await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        const ok = res.statusCode >= 200 && res.statusCode < 300;
        return {
          outcome: ok ? 'ok' : 'rejected',
          status: res.statusCode,
          ms: ms(),
          error: ok ? null : `the receiver answered HTTP ${res.statusCode}`,
        };
      } catch (err) {
        const { errors } = undici;
        return { outcome: isTimeout(errors, err) ? 'timeout' : 'unreachable', status: null, ms: ms(), error: describe(errors, err, cap) };
      }
    },
    close: async () => agent?.close(),
  };
}

function isTimeout(errors: Undici['errors'], err: unknown): boolean {
  return (
    err instanceof errors.ConnectTimeoutError ||
    err instanceof errors.HeadersTimeoutError ||
    err instanceof errors.BodyTimeoutError ||
    (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError'))
  );
}

function describe(errors: Undici['errors'], err: unknown, capMs: number): string {
  if (err instanceof errors.ConnectTimeoutError) return `connection timed out: ${err.message}`;
  if (err instanceof errors.HeadersTimeoutError || err instanceof errors.BodyTimeoutError)
    return `the receiver did not answer in time: ${err.message}`;
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `no answer within ${capMs} ms`;
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code ?? e.cause?.code;
  const message = e.cause?.message ?? e.message ?? String(err);
  return code ? `${code}: ${message}` : message;
}
