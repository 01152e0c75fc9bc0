import type { Store } from '../home/index.js';
import { accessTokenKey } from '../auth/index.js';

/**
 * Creates, before any worker starts, the settings that a server creates at their first use: the
 * key signing access tokens and the server's device id. Workers starting together would each
 * create their own, and a token signed by one would be refused by the other
 * (docs/production.md#workers).
 */
export async function prepareWorkerStore(store: Store): Promise<void> {
  await accessTokenKey(store);
  await store.settings.serverDeviceId();
}
