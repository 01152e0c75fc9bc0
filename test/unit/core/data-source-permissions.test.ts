import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dataSourcePermissions } from '../../../src/core/sync/data-source-permissions.js';

test('the data source permissions follow the role table: Standard reads and writes, API also clears', () => {
  assert.deepEqual(dataSourcePermissions('Standard'), ['data.read', 'data.write']);
  assert.deepEqual(dataSourcePermissions('API'), ['data']);
  // The client refuses an Administrator itself; the server still answers what the role may do.
  assert.deepEqual(dataSourcePermissions('Administrator'), ['data']);
});
