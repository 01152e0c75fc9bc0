import type { HttpBindings } from '@hono/node-server';
import type { Principal, Right } from '../core/auth/index.js';

/**
 * Hono environment of the app. Bindings are those of @hono/node-server (the raw Node request,
 * streamed into busboy for uploads); they are absent under `app.request()` in tests, so code
 * reading them must fall back to the web Request.
 */
export interface AppEnv {
  Bindings: Partial<HttpBindings>;
  /**
   * `route`: the OpenAPI path of the route that took the request (ApiBuilder), for the metrics' labels.
   * `rights`: the caller's effective rights on the route's dictionary (authenticate.ts).
   * `prefetched`: the read the route's `prefetch` started beside the account's, if it did.
   */
  Variables: { principal: Principal; rights: ReadonlySet<Right>; requestId: string; route: string; prefetched?: Promise<unknown> };
}
