/**
 * Roles through core on both stores (docs/supervision.md#roles-and-rights): custom roles added,
 * given rights by default and per dictionary, read back as effective rights; built-in roles kept;
 * a removed role's accounts moved to Standard User with their tokens ended.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { AppError } from '../../../src/shared/errors.js';
import { addUser, effectiveRights, setUserRole } from '../../../src/core/auth/index.js';
import { addRole, listRoles, removeRole, requireGrantable, setRoleRights, showRole } from '../../../src/core/auth/rights/roles.js';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';
import { fixture } from '../../helpers/temp-home.js';
import { simpleCapiWithPhoto } from '../../helpers/csweb-fixture.js';

const code = (c: string, pattern?: RegExp) => (e: unknown) =>
  e instanceof AppError && e.code === c && (!pattern || pattern.test(e.message));

testOnBothStores('roles: a custom role, its defaults and its rows per dictionary give the effective rights', async (store) => {
  const file = fixture('simple-capi.dcf');
  const dict = (await uploadDictionary(store, { source: readFileSync(file), label: 'simple', file })).name;
  const added = await addRole(store, 'Supervisor', 'dictionaries.read,data.read,data.write,reports.read');
  assert.deepEqual(
    [added.builtin, added.rights, added.dictionaries, added.accounts],
    [false, ['data.read', 'data.write', 'reports.read', 'dictionaries.read'], [], 0],
  );
  await assert.rejects(addRole(store, 'supervisor'), code('CONFLICT', /role Supervisor already exists/));
  await assert.rejects(addRole(store, 'Standard'), code('USAGE', /old name of Standard User/));
  await assert.rejects(addRole(store, 'Bad', 'data.read,data.fly'), code('RIGHT_UNKNOWN'));

  await addUser(store, 'sue', 'Supervisor', 'sue-password-1');
  const sue = { role: 'Supervisor' };
  assert.deepEqual([...(await effectiveRights(store, sue, dict))].sort(), ['data.read', 'data.write', 'dictionaries.read', 'reports.read']);

  const shown = await setRoleRights(store, 'Supervisor', 'data.read', dict);
  assert.deepEqual(shown.dictionaries, [{ dictionary: dict, rights: ['data.read'] }]);
  assert.deepEqual([...(await effectiveRights(store, sue, dict))].sort(), ['data.read', 'dictionaries.read', 'reports.read']);
  assert.deepEqual([...(await effectiveRights(store, sue, 'OTHER_DICT'))].sort(), [
    'data.read',
    'data.write',
    'dictionaries.read',
    'reports.read',
  ]);
  await setRoleRights(store, 'Supervisor', 'data.none', dict);
  assert.deepEqual((await showRole(store, 'Supervisor')).dictionaries, [{ dictionary: dict, rights: ['data.none'] }]);
  assert.deepEqual([...(await effectiveRights(store, sue, dict))].sort(), ['dictionaries.read', 'reports.read']);
  await setRoleRights(store, 'Supervisor', 'default', dict);
  assert.deepEqual((await showRole(store, 'Supervisor')).dictionaries, []);
  await assert.rejects(setRoleRights(store, 'Supervisor', 'data.read', 'NO_SUCH_DICT'), code('DICTIONARY_NOT_FOUND'));
  await assert.rejects(setRoleRights(store, 'Supervisor', 'users.read', dict), code('RIGHT_UNKNOWN', /not a right of one dictionary/));

  // What each request reads, in one statement.
  assert.deepEqual(await store.roles.grant('Supervisor'), {
    builtin: false,
    defaults: ['data.read', 'data.write', 'dictionaries.read', 'reports.read'],
    dictionaries: [],
  });
  assert.deepEqual(await store.roles.grant('API'), { builtin: true, defaults: [], dictionaries: [] });
  assert.equal(await store.roles.grant('Nobody'), undefined);

  // New defaults apply at once.
  await setRoleRights(store, 'Supervisor', 'dictionaries.read');
  assert.deepEqual([...(await effectiveRights(store, sue, dict))], ['dictionaries.read']);

  // Built-in roles: defaults fixed, rows allowed but on Administrator, never removed.
  await assert.rejects(setRoleRights(store, 'Standard User', 'data.read'), code('ROLE_BUILTIN'));
  await assert.rejects(setRoleRights(store, 'Administrator', 'data.read', dict), code('ROLE_BUILTIN'));
  await assert.rejects(removeRole(store, 'Developer'), code('ROLE_BUILTIN'));
  await setRoleRights(store, 'Standard', 'data.read', dict);
  assert.deepEqual(
    (await showRole(store, 'Standard User')).dictionaries,
    [{ dictionary: dict, rights: ['data.read'] }],
    'Standard names Standard User',
  );
  await assert.rejects(showRole(store, 'standard user'), code('ROLE_NOT_FOUND', /did you mean Standard User/));
  assert.deepEqual(
    (await listRoles(store)).map((r) => [r.name, r.builtin, r.accounts]),
    [
      ['API', true, 0],
      ['Administrator', true, 0],
      ['Developer', true, 0],
      ['Standard User', true, 0],
      ['Supervisor', false, 1],
    ],
  );
});

testOnBothStores('roles: removing a role moves its accounts to Standard User, says which, and ends their tokens', async (store) => {
  await addRole(store, 'Temp', 'dictionaries.read');
  for (const name of ['tina', 'tom']) await addUser(store, name, 'Temp', `${name}-password-1`);
  await addUser(store, 'api1', 'API', 'api1-password-1');
  const before = (await store.users.find('tina'))!.tokenVersion;
  const r = await removeRole(store, 'Temp');
  assert.deepEqual(r, {
    role: 'Temp',
    moved_to: 'Standard User',
    accounts: ['tina', 'tom'],
    message: 'Role Temp removed; 2 accounts moved to Standard User: tina, tom',
  });
  const tina = (await store.users.find('tina'))!;
  assert.deepEqual([tina.role, tina.tokenVersion], ['Standard User', before + 1]);
  assert.equal((await store.users.find('api1'))!.role, 'API', 'other accounts untouched');
  assert.equal(await store.roles.find('Temp'), undefined);
  await assert.rejects(removeRole(store, 'Temp'), code('ROLE_NOT_FOUND'));
  await addRole(store, 'Empty');
  assert.equal((await removeRole(store, 'Empty')).message, 'Role Empty removed; no account had it');
});

testOnBothStores('roles: an account may give only a role whose rights it holds', async (store) => {
  await addUser(store, 'dev', 'Developer', 'dev-password-12');
  const developer = await effectiveRights(store, { role: 'Developer' });
  await requireGrantable(store, 'Standard User', developer);
  await assert.rejects(requireGrantable(store, 'Administrator', developer), code('AUTH-004', /roles\.read/));
  await assert.rejects(setUserRole(store, 'dev', 'Administrator', Date.now(), developer), code('AUTH-004'));
  assert.equal((await store.users.find('dev'))!.role, 'Developer');
  const changed = await setUserRole(store, 'dev', 'Standard', Date.now());
  assert.deepEqual([changed.role, changed.previous_role, changed.changed], ['Standard User', 'Developer', true]);
});

testOnBothStores('roles: rows apply under the syncable name a CSPro 8.1 dictionary is synced by', async (store) => {
  const d = JSON.parse(simpleCapiWithPhoto(fixture('simple-capi.dcf'))) as Record<string, unknown>;
  const withSync: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) {
    withSync[k] = v;
    if (k === 'labels') withSync.sync = { name: 'HOUSEHOLDS_2025' };
  }
  const up = await uploadDictionary(store, { source: Buffer.from(JSON.stringify(withSync)), label: 'hh', file: 'hh.dcf' });
  assert.equal(up.sync_name, 'HOUSEHOLDS_2025');
  // Set by the syncable name, kept under the dictionary's own name.
  const r = await setRoleRights(store, 'Standard User', 'data.none', 'HOUSEHOLDS_2025');
  assert.deepEqual(r.dictionaries, [{ dictionary: up.name, rights: ['data.none'] }]);
  for (const name of [up.name, 'HOUSEHOLDS_2025']) {
    assert.equal((await effectiveRights(store, { role: 'Standard User' }, name)).has('data.read'), false, name);
  }
  assert.equal((await effectiveRights(store, { role: 'Standard User' }, 'OTHER')).has('data.read'), true);
});
