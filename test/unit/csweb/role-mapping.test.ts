import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mapCswebRole, type CswebRole } from '../../../src/csweb/role-mapping.js';

const DICTS = ['HHSURVEY_DICT', 'SIMPLECAPI_DICT'];
const role = (
  id: number,
  name: string,
  permissions: string[] = [],
  dictionaryPermissions: CswebRole['dictionaryPermissions'] = [],
): CswebRole => ({
  id,
  name,
  permissions,
  dictionaryPermissions,
});
const both = (dictionary: string) => [
  { dictionary, permission: 'dictionary_sync_upload' },
  { dictionary, permission: 'dictionary_sync_download' },
];
const lines = (m: ReturnType<typeof mapCswebRole>) =>
  m.report.map((r) => [r.code, r.dictionary ?? null, r.message.match(/\(([a-z]+_all)\)/)?.[1] ?? null]);

test('built-in Administrator is Administrator, exactly', () => {
  assert.deepEqual(mapCswebRole(role(2, 'Administrator'), DICTS), { role: 'Administrator', report: [] });
});

test("built-in Standard User is Standard, with one line: it cannot delete dictionaries as CSWeb's can", () => {
  const m = mapCswebRole(role(1, 'Standard User'), DICTS, ['ann']);
  assert.equal(m.role, 'Standard User');
  assert.equal(m.report.length, 1);
  assert.equal(m.report[0]!.code, 'CSWEB_ROLE_NARROWED');
  assert.match(m.report[0]!.message, /"Standard User" \(held by ann\): may delete dictionaries/);
});

test('a custom role with data_all and full sync on every dictionary is Standard with no line', () => {
  const exact = mapCswebRole(role(3, 'Field', ['data_all'], [...both('HHSURVEY_DICT'), ...both('SIMPLECAPI_DICT')]), DICTS);
  assert.deepEqual(exact, { role: 'Standard User', report: [] });
});

test('the Supervisor of the research dump: data and reports, full sync on one dictionary, download only on another', () => {
  const sup = role(
    3,
    'Supervisor',
    ['data_all', 'reports_all'],
    [...both('SIMPLECAPI_DICT'), { dictionary: 'HHSURVEY_DICT', permission: 'dictionary_sync_download' }],
  );
  const m = mapCswebRole(sup, DICTS, ['sup1', 'sup2']);
  assert.equal(m.role, 'Standard User');
  assert.deepEqual(lines(m), [
    ['CSWEB_ROLE_NARROWED', null, 'reports_all'],
    ['CSWEB_ROLE_WIDENED', 'HHSURVEY_DICT', null],
  ]);
  assert.match(m.report[1]!.message, /may not sync \(upload\) dictionary HHSURVEY_DICT in CSWeb; sds Standard User syncs every dictionary/);
  assert.match(m.report[0]!.message, /held by sup1, sup2/);
});

test('per-dictionary rights match dictionary names without case, as CSWeb compares them', () => {
  const m = mapCswebRole(role(3, 'Field', ['data_all'], [...both('hhsurvey_dict'), ...both('SimpleCapi_Dict')]), DICTS);
  assert.deepEqual(m.report, []);
});

test('a role with no rights at all becomes Standard and every widened right is reported', () => {
  const m = mapCswebRole(role(4, 'Nobody'), DICTS);
  assert.equal(m.role, 'Standard User');
  assert.deepEqual(lines(m), [
    ['CSWEB_ROLE_WIDENED', null, 'data_all'],
    ['CSWEB_ROLE_WIDENED', 'HHSURVEY_DICT', null],
    ['CSWEB_ROLE_WIDENED', 'SIMPLECAPI_DICT', null],
  ]);
  assert.match(m.report[1]!.message, /may not sync \(upload, download\)/);
});

test('users_all or roles_all make an Administrator: either lets the holder give itself every right', () => {
  for (const right of ['users_all', 'roles_all']) {
    const m = mapCswebRole(role(5, 'Accounts', [right], [...both('HHSURVEY_DICT'), ...both('SIMPLECAPI_DICT')]), DICTS);
    assert.equal(m.role, 'Administrator', right);
    const widened = m.report.filter((r) => r.code === 'CSWEB_ROLE_WIDENED').map((r) => r.message.match(/\(([a-z]+_all)\)/)?.[1]);
    const all = ['data_all', 'apps_all', 'users_all', 'roles_all', 'reports_all', 'settings_all'].filter((r) => r !== right);
    assert.deepEqual(widened, all, right);
    assert.ok(m.report.every((r) => r.code === 'CSWEB_ROLE_WIDENED'));
  }
});

test('apps_all or settings_all (without account rights) make API; users_all is never lost silently', () => {
  const m = mapCswebRole(role(6, 'Deployer', ['apps_all', 'data_all'], [...both('HHSURVEY_DICT'), ...both('SIMPLECAPI_DICT')]), DICTS);
  assert.equal(m.role, 'API');
  assert.deepEqual(lines(m), [
    ['CSWEB_ROLE_WIDENED', null, 'reports_all'],
    ['CSWEB_ROLE_WIDENED', null, 'settings_all'],
  ]);
  const s = mapCswebRole(role(7, 'Breakout', ['settings_all'], []), DICTS);
  assert.equal(s.role, 'API');
});

test('a right CSWeb 8.0.1 does not define is reported as not carried', () => {
  const m = mapCswebRole(role(8, 'Odd', ['data_all', 'permission 42'], [...both('HHSURVEY_DICT'), ...both('SIMPLECAPI_DICT')]), DICTS);
  assert.deepEqual(lines(m), [['CSWEB_ROLE_NARROWED', null, null]]);
  assert.match(m.report[0]!.message, /"permission 42", which sds does not know/);
});

test('every line is a warning naming the role', () => {
  const m = mapCswebRole(role(4, 'Nobody'), DICTS);
  assert.ok(m.report.every((r) => r.level === 'warn' && r.message.startsWith('CSWeb role "Nobody"')));
});
