import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env.js';

/** The reply header carrying the request id (docs/logs.md#request-ids). */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** An incoming id that is kept: 1 to 128 characters that are safe in a log line and a header. */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const ids = new WeakMap<IncomingMessage, string>();

/** The id given to a Node request by the middleware, for replies written outside the app (the 408 of body-timeout.ts). */
export function requestIdOf(req: IncomingMessage): string | undefined {
  return ids.get(req);
}

/** The request's own id: the incoming X-Request-Id when it is safe (a proxy's `$request_id`), else a new random one. */
function chooseRequestId(incoming: string | undefined): string {
  return incoming !== undefined && SAFE_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * Gives every request an id (docs/logs.md#request-ids), kept for the request log and sent back in
 * X-Request-Id on every reply the app makes, errors included.
 */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = chooseRequestId(c.req.header(REQUEST_ID_HEADER));
    c.set('requestId', id);
    const incoming = c.env?.incoming;
    if (incoming) ids.set(incoming, id);
    try {
      await next();
    } finally {
      c.res.headers.set(REQUEST_ID_HEADER, id);
    }
  };
}
