import type { Context } from 'hono';
import type { AppEnv } from './app-env.js';
import { droppedForTimeout } from './body-timeout.js';

/**
 * What happened to the client of a request before its reply: `timeout` when the body or request
 * timeout dropped it with 408 (body-timeout.ts), `aborted` when the client closed the connection
 * (its reply can reach no one), undefined while it still waits for the reply. Without the Node
 * bindings (`app.request()` in tests) the web Request's abort signal tells.
 */
export function requestFate(c: Context): 'timeout' | 'aborted' | undefined {
  const env = c.env as AppEnv['Bindings'] | undefined;
  const incoming = env?.incoming;
  if (!incoming) return c.req.raw.signal?.aborted ? 'aborted' : undefined;
  if (droppedForTimeout(incoming)) return 'timeout';
  return incoming.socket?.destroyed && !env?.outgoing?.writableFinished ? 'aborted' : undefined;
}
