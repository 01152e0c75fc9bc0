/**
 * CSWeb 8.1 roles mapped to sds's roles (src/csweb/rights-81.ts): the built-in roles with the
 * default rights CSWeb 8.1's setup gives them, group names and halves, and per-dictionary rows
 * overriding the defaults (`data.none` for nothing).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mapCsweb81Role, type Csweb81Role } from '../../../src/csweb/rights-81.js';

const DICTS = ['HHSURVEY_DICT', 'SIMPLECAPI_DICT'];
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
const codes = (m: ReturnType<typeof mapCsweb81Role>) => m.report.map((r) => [r.code, r.dictionary ?? null]);

test("8.1's built-in roles: Standard User and Administrator exactly; Developer is Administrator, widened by roles_all", () => {
  assert.deepEqual(mapCsweb81Role(STANDARD, DICTS), { role: 'Standard User', report: [] });
  assert.deepEqual(mapCsweb81Role(ADMIN, DICTS), { role: 'Administrator', report: [] });
  const dev = mapCsweb81Role(DEVELOPER, DICTS, ['dana']);
  assert.equal(dev.role, 'Administrator');
  assert.deepEqual(codes(dev), [['CSWEB_ROLE_WIDENED', null]]);
  assert.match(dev.report[0]!.message, /"Developer" \(held by dana\).*roles_all/);
});

test('per-dictionary rows replace the defaults there: data.none is nothing, data.read alone is download only', () => {
  const role: Csweb81Role = {
    id: 4,
    name: 'Supervisor',
    rights: ['data.read', 'data.write', 'reports.read'],
    dictionaries: [
      { dictionary: 'HHSURVEY_DICT', rights: ['data.none'] },
      { dictionary: 'simplecapi_dict', rights: ['data.read'] },
    ],
  };
  const m = mapCsweb81Role(role, DICTS);
  assert.equal(m.role, 'Standard User');
  const widened = m.report.filter((r) => r.code === 'CSWEB_ROLE_WIDENED');
  assert.match(widened.find((r) => r.dictionary === 'HHSURVEY_DICT')!.message, /may not sync \(upload, download\)/);
  assert.match(widened.find((r) => r.dictionary === 'SIMPLECAPI_DICT')!.message, /may not sync \(upload\) /);
  assert.ok(
    m.report.some((r) => r.code === 'CSWEB_ROLE_NARROWED' && /reports_all/.test(r.message)),
    'reports, as for 8.0',
  );
});

test('a role with write halves of apps or settings is API; the group name holds both halves', () => {
  assert.equal(mapCsweb81Role({ id: 5, name: 'Deployer', rights: ['data', 'apps.write'], dictionaries: [] }, DICTS).role, 'API');
  assert.equal(
    mapCsweb81Role({ id: 6, name: 'Reader', rights: ['apps.read', 'settings.read', 'data'], dictionaries: [] }, DICTS).role,
    'Standard User',
  );
  assert.equal(mapCsweb81Role({ id: 7, name: 'Users', rights: ['users.write'], dictionaries: [] }, DICTS).role, 'Administrator');
});
