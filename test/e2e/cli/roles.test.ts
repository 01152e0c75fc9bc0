/**
 * `sds roles` and `sds users set-role USER ROLE` as a user runs them (docs/supervision.md#roles-and-rights):
 * the real CLI on a real home, human and --json output, exit codes of the refusals.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';

test('roles list, add, set (defaults and per dictionary), show, users set-role, remove', async () => {
  const home = await tempHome();
  try {
    const ok = async (args: string[], stdin?: string) => {
      const r = await sds(home.root, args, stdin === undefined ? {} : { stdin });
      assert.equal(r.code, 0, show(r));
      return r;
    };
    const up = await ok(['dict', 'upload', fixture('simple-capi.dcf'), '--label', 'simple', '--json']);
    const dict = up.json<{ name: string }>().name;

    const list = (await ok(['roles', 'list', '--json'])).json<{ name: string; builtin: boolean; rights: string[] }[]>();
    assert.deepEqual(
      list.map((r) => [r.name, r.builtin]),
      [
        ['API', true],
        ['Administrator', true],
        ['Developer', true],
        ['Standard User', true],
      ],
    );
    assert.ok(list.find((r) => r.name === 'Standard User')!.rights.includes('data.write'));
    assert.match((await ok(['roles', 'list'])).stdout, /Standard User\s+built-in/);

    const added = await ok(['roles', 'add', 'Supervisor', '--rights', 'dictionaries.read,data.read,data.write']);
    assert.equal(added.stdout.trim(), 'Role Supervisor added with rights: data.read, data.write, dictionaries.read');

    const set = await ok(['roles', 'set', 'Supervisor', '--dictionary', dict, '--rights', 'data.read']);
    assert.equal(set.stdout.trim(), `Rights of Supervisor on ${dict}: data.read`);
    const none = await ok(['roles', 'set', 'Standard User', '--dictionary', dict, '--rights', 'data.none', '--json']);
    assert.deepEqual(none.json<{ dictionaries: unknown }>().dictionaries, [{ dictionary: dict, rights: ['data.none'] }]);

    await ok(['users', 'add', 'sue', '--role', 'Supervisor', '--password-stdin'], 'sue-password-12\n');
    await ok(['users', 'add', 'sam', '--role', 'Standard', '--password-stdin'], 'sam-password-12\n');
    const moved = await ok(['users', 'set-role', 'sam', 'Supervisor']);
    assert.match(moved.stdout, /Role of sam changed from Standard User to Supervisor/);

    const shown = await ok(['roles', 'show', 'Supervisor']);
    assert.match(shown.stdout, /^Role Supervisor\nrights: data\.read, data\.write, dictionaries\.read\n/);
    assert.match(shown.stdout, new RegExp(`  ${dict}: data\\.read\n`));
    assert.match(shown.stdout, /accounts \(2\): sam, sue/);

    const removed = await ok(['roles', 'remove', 'Supervisor', '--json']);
    assert.deepEqual(removed.json(), {
      role: 'Supervisor',
      moved_to: 'Standard User',
      accounts: ['sam', 'sue'],
      message: 'Role Supervisor removed; 2 accounts moved to Standard User: sam, sue',
    });
    // Every change of roles and rights is in the audit trail (docs/supervision.md#audit-trail).
    const trail = (await ok(['audit', 'list', '--action', 'roles.*', '--json'])).json<
      { action: string; target: string; outcome: string }[]
    >();
    assert.deepEqual(trail.map((r) => [r.action, r.target, r.outcome]).reverse(), [
      ['roles.add', 'role:Supervisor', 'success'],
      ['roles.set-rights', 'role:Supervisor', 'success'],
      ['roles.set-rights', 'role:Standard User', 'success'],
      ['roles.remove', 'role:Supervisor', 'success'],
    ]);
    const users = (await ok(['users', 'list', '--json'])).json<{ username: string; role: string }[]>();
    assert.deepEqual(
      users.map((u) => [u.username, u.role]),
      [
        ['sam', 'Standard User'],
        ['sue', 'Standard User'],
      ],
    );
  } finally {
    await home.cleanup();
  }
});

test('roles refusals: unknown right, data.none with others, built-in defaults and removal, unknown role and dictionary', async () => {
  const home = await tempHome();
  try {
    const refused = async (args: string[], exit: number, error: string, pattern: RegExp) => {
      const r = await sds(home.root, [...args, '--json']);
      assert.equal(r.code, exit, show(r));
      const body = r.json<{ error: string; message: string }>();
      assert.equal(body.error, error, show(r));
      assert.match(body.message, pattern);
    };
    await refused(['roles', 'add', 'Clerk', '--rights', 'data.read,data.fly'], 2, 'RIGHT_UNKNOWN', /unknown right data\.fly/);
    await refused(['roles', 'add', 'Clerk', '--rights', 'data.none,data.read'], 2, 'RIGHT_UNKNOWN', /data\.none means no rights/);
    await refused(['roles', 'set', 'Developer', '--rights', 'data.read'], 4, 'ROLE_BUILTIN', /Developer is a built-in role/);
    await refused(['roles', 'remove', 'Standard User'], 4, 'ROLE_BUILTIN', /cannot be removed/);
    await refused(['roles', 'show', 'developer'], 3, 'ROLE_NOT_FOUND', /did you mean Developer/);
    await refused(['roles', 'set', 'Developer', '--dictionary', 'NO_DICT', '--rights', 'data.read'], 3, 'DICTIONARY_NOT_FOUND', /NO_DICT/);
    await refused(['users', 'set-role', 'nobody'], 2, 'USAGE', /no role given/);
    // Nothing was added by the refusals.
    const list = await sds(home.root, ['roles', 'list', '--json']);
    assert.equal(list.json<unknown[]>().length, 4, show(list));
  } finally {
    await home.cleanup();
  }
});
