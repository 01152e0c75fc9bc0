/**
 * The effective rights of a role on a dictionary, pure (docs/supervision.md#roles-and-rights):
 * defaults without rows, rows replacing only the dictionary rights, data.none as nothing,
 * Administrator everything, a role that is gone nothing; and the parsing of rights lists.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILTIN_ROLES, RIGHTS, resolveRights, type Right, type RoleRights } from '../../../src/core/auth/rights/index.js';
import { parseRights } from '../../../src/core/auth/rights/roles.js';
import { AppError } from '../../../src/shared/errors.js';

const role = (name: string, defaults: readonly Right[], rows: Record<string, readonly Right[]> = {}): RoleRights => ({
  role: name,
  exists: true,
  defaults,
  dictionaries: new Map(Object.entries(rows)),
});
const sorted = (s: Set<Right>) => [...s].sort();

test('without rows a role holds its defaults on every dictionary, and without a dictionary', () => {
  const std = role('Standard User', BUILTIN_ROLES['Standard User']!);
  assert.deepEqual(sorted(resolveRights(std, 'HH_DICT')), [...BUILTIN_ROLES['Standard User']!].sort());
  assert.deepEqual(sorted(resolveRights(std)), [...BUILTIN_ROLES['Standard User']!].sort());
});

test('rows replace the dictionary rights on their dictionary only; the other rights stay', () => {
  const sup = role('Supervisor', ['dictionaries.read', 'data.read', 'data.write', 'messages.read'], {
    HH_DICT: ['data.read'],
    STAFF_DICT: [],
  });
  assert.deepEqual(sorted(resolveRights(sup, 'HH_DICT')), ['data.read', 'dictionaries.read', 'messages.read']);
  // An empty list is data.none: nothing of the dictionary's, the rest as ever.
  assert.deepEqual(sorted(resolveRights(sup, 'STAFF_DICT')), ['dictionaries.read', 'messages.read']);
  assert.deepEqual(sorted(resolveRights(sup, 'OTHER_DICT')), ['data.read', 'data.write', 'dictionaries.read', 'messages.read']);
  // Names are exact: another case is another dictionary.
  assert.deepEqual(sorted(resolveRights(sup, 'hh_dict')), ['data.read', 'data.write', 'dictionaries.read', 'messages.read']);
});

test('rows may grant what the defaults lack, on that dictionary; without a dictionary a right held anywhere counts', () => {
  const clerk = role('Clerk', ['dictionaries.read'], { HH_DICT: ['data.read', 'breakout.run'] });
  assert.deepEqual(sorted(resolveRights(clerk, 'HH_DICT')), ['breakout.run', 'data.read', 'dictionaries.read']);
  assert.deepEqual(sorted(resolveRights(clerk, 'STAFF_DICT')), ['dictionaries.read']);
  assert.deepEqual(sorted(resolveRights(clerk)), ['breakout.run', 'data.read', 'dictionaries.read']);
});

test('rows never give a right that is not a dictionary right', () => {
  const odd = role('Odd', [], { HH_DICT: ['data.read', 'users.write'] });
  assert.deepEqual(sorted(resolveRights(odd, 'HH_DICT')), ['data.read']);
});

test('Administrator holds every right everywhere, rows or not; a role that is gone holds nothing', () => {
  assert.equal(resolveRights(role('Administrator', RIGHTS, { HH_DICT: [] }), 'HH_DICT').size, RIGHTS.length);
  assert.equal(resolveRights({ role: 'Gone', exists: false, defaults: RIGHTS, dictionaries: new Map() }, 'HH_DICT').size, 0);
});

test('rights lists: known names in catalogue order, data.none alone, only dictionary rights on a dictionary', () => {
  assert.deepEqual(parseRights('data.write, data.read,dictionaries.read', 'defaults'), ['data.read', 'data.write', 'dictionaries.read']);
  assert.deepEqual(parseRights(['data.none'], 'dictionary'), ['data.none']);
  const refused = (input: string, scope: 'defaults' | 'dictionary', pattern: RegExp) =>
    assert.throws(
      () => parseRights(input, scope),
      (e: unknown) => e instanceof AppError && e.code === 'RIGHT_UNKNOWN' && pattern.test(e.message),
      input,
    );
  refused('data.read,data.fly', 'defaults', /unknown right data\.fly/);
  refused('data.none,data.read', 'dictionary', /data\.none means no rights/);
  refused('data.read,users.write', 'dictionary', /users\.write is not a right of one dictionary/);
  refused(' , ', 'defaults', /no rights given/);
});
