/**
 * CSWeb 8.1 roles kept as sds roles (src/core/csweb/roles-81.ts): the built-in roles are sds's of
 * the same names, a custom role keeps its name, its defaults (group names expanded to their halves)
 * and its per-dictionary rows (`data.none` for nothing).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Csweb81Role } from '../../../src/csweb/rights-81.js';
import { planRole81 } from '../../../src/core/csweb/roles-81.js';
import { isBuiltinRole } from '../../../src/core/auth/rights/catalogue.js';

const STANDARD: Csweb81Role = {
  id: 1,
  name: 'Standard User',
  rights: [
    'data.read',
    'data.write',
    'apps.read',
    'paradata.read',
    'paradata.write',
    'dictionaries.read',
    'messages.read',
    'messages.write',
    'files.read',
    'files.write',
  ],
  dictionaries: [],
};
const ADMIN: Csweb81Role = {
  id: 2,
  name: 'Administrator',
  rights: ['data', 'apps', 'users', 'roles', 'reports', 'settings', 'paradata', 'dictionaries', 'messages', 'files', 'login'],
  dictionaries: [],
};
const DEVELOPER: Csweb81Role = {
  id: 3,
  name: 'Developer',
  rights: [
    'data.read',
    'data.write',
    'data.clear.dashboard',
    'apps',
    'users',
    'reports',
    'settings',
    'paradata',
    'dictionaries',
    'messages',
    'files',
    'login',
  ],
  dictionaries: [],
};
const plan = (r: Csweb81Role) => planRole81(r, isBuiltinRole);

test("8.1's built-in roles are sds's roles of the same names, with no report line", () => {
  for (const [r, name] of [
    [STANDARD, 'Standard User'],
    [ADMIN, 'Administrator'],
    [DEVELOPER, 'Developer'],
  ] as const) {
    const p = plan(r);
    assert.equal(p.role, name);
    assert.equal(p.defaults, undefined, 'a built-in role keeps the defaults sds fixes');
    assert.deepEqual(p.report, []);
  }
});

test('a custom role keeps its name, its defaults with group names expanded, and its rows per dictionary', () => {
  const p = plan({
    id: 7,
    name: 'Supervisor',
    rights: ['data.read', 'reports', 'files.read'],
    dictionaries: [
      { dictionary: 'SIMPLECAPI_DICT', rights: ['data.none'] },
      { dictionary: 'HHSURVEY_DICT', rights: ['data.read', 'data.write', 'reports.read'] },
    ],
  });
  assert.equal(p.role, 'Supervisor');
  assert.deepEqual([...p.defaults!].sort(), ['data.read', 'files.read', 'files.sync', 'reports.read', 'reports.write']);
  assert.deepEqual(p.rows, [
    { dictionary: 'SIMPLECAPI_DICT', rights: ['data.none'] },
    { dictionary: 'HHSURVEY_DICT', rights: ['data.read', 'data.write'] },
  ]);
  assert.deepEqual(p.report, []);
});

test('a custom role named like a built-in one is kept under another name; Administrator rows and unknown rights are reported', () => {
  const renamed = plan({ id: 9, name: 'API', rights: ['data'], dictionaries: [] });
  assert.equal(renamed.role, 'API (CSWeb)');
  assert.deepEqual([...renamed.defaults!].sort(), ['data.clear', 'data.clear.dashboard', 'data.read', 'data.write']);
  assert.deepEqual(
    renamed.report.map((r) => r.code),
    ['CSWEB_ROLE_RENAMED'],
  );
  const admin = plan({ ...ADMIN, dictionaries: [{ dictionary: 'SIMPLECAPI_DICT', rights: ['data.none'] }] });
  assert.deepEqual(admin.rows, []);
  assert.deepEqual(
    admin.report.map((r) => r.code),
    ['CSWEB_ROLE_WIDENED'],
  );
  const odd = plan({ id: 10, name: 'Odd', rights: ['data.read', 'telemetry.read'], dictionaries: [] });
  assert.deepEqual(odd.defaults, ['data.read']);
  assert.deepEqual(
    odd.report.map((r) => r.code),
    ['CSWEB_ROLE_NARROWED'],
  );
});
