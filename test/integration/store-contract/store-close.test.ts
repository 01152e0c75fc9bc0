/**
 * The store contract of `store.close` (docs/architecture.md#the-store-contract): a store closed
 * twice is closed once, on both stores (a test helper's clean-up may close a store the test
 * closed already).
 */
import assert from 'node:assert/strict';
import { testOnBothStores } from '../../helpers/store-kinds.js';

testOnBothStores('close: a second close, and two at once, do nothing more', async (store) => {
  await store.settings.set('colour', 'blue');
  await Promise.all([store.close(), store.close()]);
  await store.close();
  await assert.rejects(store.settings.get('colour'));
});
