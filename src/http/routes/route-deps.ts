import type { Store } from '../../core/home/index.js';
import type { TokenService } from '../../core/auth/index.js';
import type { HttpConfig } from '../config.js';

/** What route groups get: the store, the token service and the HTTP settings. */
export interface RouteDeps {
  store: Store;
  tokens: TokenService;
  config: HttpConfig;
  /** Current time in epoch milliseconds (the app's injected clock; rate-limit windows use it). */
  clock: () => number;
}
