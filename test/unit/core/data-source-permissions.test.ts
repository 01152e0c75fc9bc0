import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dataSourcePermissions } from '../../../src/core/sync/data-source-permissions.js';
import { BUILTIN_ROLES, type Right } from '../../../src/core/auth/index.js';

const of = (rights: readonly Right[]) => dataSourcePermissions(new Set(rights));

test('the data source permissions follow the built-in roles: Standard User reads and writes, API also clears', () => {
  assert.deepEqual(of(BUILTIN_ROLES['Standard User']!), ['data.read', 'data.write']);
  assert.deepEqual(of(BUILTIN_ROLES.API!), ['data']);
  // The client refuses an Administrator itself; the server still answers what the role may do.
  assert.deepEqual(of(BUILTIN_ROLES.Administrator!), ['data']);
  assert.deepEqual(of(BUILTIN_ROLES.Developer!), ['data.read', 'data.write']);
});

test('the data source permissions of effective rights: read only, clear only, and nothing is data.none', () => {
  assert.deepEqual(of(['data.read', 'dictionaries.read']), ['data.read']);
  assert.deepEqual(of(['data.clear']), ['data.clear']);
  assert.deepEqual(of(['dictionaries.read', 'files.sync']), ['data.none']);
});
