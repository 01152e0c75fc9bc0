import type { HttpBindings } from '@hono/node-server';
import type { Principal } from '../core/auth/index.js';

/**
 * Hono environment of the app. Bindings are those of @hono/node-server (the raw Node request,
 * streamed into busboy for uploads); they are absent under `app.request()` in tests, so code
 * reading them must fall back to the web Request.
 */
export interface AppEnv {
  Bindings: Partial<HttpBindings>;
  /** `route`: the OpenAPI path of the route that took the request (ApiBuilder), for the metrics' labels. */
  Variables: { principal: Principal; requestId: string; route: string };
}
