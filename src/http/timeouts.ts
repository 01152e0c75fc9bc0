import { AppError } from '../shared/errors.js';

/** Slow-client limits of `sds serve` (docs/http-api.md, "Limits and timeouts"). */
export interface HttpTimeouts {
  /** The request line and headers must arrive within this long of the first byte (default 30 s); else 408 and the connection is closed. */
  headersTimeoutMs: number;
  /** A request body with no byte for this long, while the server waits for one, is dropped with 408 (default 30 s). */
  bodyTimeoutMs: number;
  /** The whole body must arrive within this long after the headers (default 300 s, as Node's own default; 0: no limit). */
  requestTimeoutMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { headersTimeoutMs: 30_000, bodyTimeoutMs: 30_000, requestTimeoutMs: 300_000 };

/** Environment variables that override each default (a value given in the config or by a flag wins). */
export const HTTP_TIMEOUT_ENV = {
  headersTimeoutMs: 'SDS_HTTP_HEADERS_TIMEOUT_MS',
  bodyTimeoutMs: 'SDS_HTTP_BODY_TIMEOUT_MS',
  requestTimeoutMs: 'SDS_HTTP_REQUEST_TIMEOUT_MS',
} as const satisfies Record<keyof HttpTimeouts, string>;

/** Only the request timeout may be switched off with 0; the others would let one client hold a connection for ever. */
const MIN: Record<keyof HttpTimeouts, number> = { headersTimeoutMs: 1, bodyTimeoutMs: 1, requestTimeoutMs: 0 };

function checked(key: keyof HttpTimeouts, value: number, from: string, shown: string = String(value)): number {
  if (Number.isSafeInteger(value) && value >= MIN[key]) return value;
  throw new AppError('CONFIG_INVALID', `${from} must be a whole number of milliseconds ≥ ${MIN[key]}; got "${shown}"`, { field: from });
}

/**
 * The slow-client timeouts: explicit values (config, `sds serve` flags), else HTTP_TIMEOUT_ENV of
 * `env`, else the defaults. A value that is not a whole number of milliseconds is refused with
 * CONFIG_INVALID naming where it came from, never replaced by the default.
 */
export function httpTimeouts(env: NodeJS.ProcessEnv, explicit: Partial<HttpTimeouts> = {}): HttpTimeouts {
  const out = { ...DEFAULT_HTTP_TIMEOUTS };
  for (const key of Object.keys(HTTP_TIMEOUT_ENV) as (keyof HttpTimeouts)[]) {
    const given = explicit[key];
    const raw = env[HTTP_TIMEOUT_ENV[key]];
    if (given !== undefined) out[key] = checked(key, given, key);
    else if (raw !== undefined && raw.trim() !== '')
      out[key] = checked(key, /^\s*\d+\s*$/.test(raw) ? Number(raw) : NaN, HTTP_TIMEOUT_ENV[key], raw);
  }
  return out;
}
