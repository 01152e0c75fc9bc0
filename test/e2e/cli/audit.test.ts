/**
 * The audit trail through the real CLI (docs/supervision.md#audit-trail), on the store of the run
 * (SQLite, or PostgreSQL with SDS_TEST_STORE=postgresql): an account added and a dictionary
 * deleted appear with the operating-system user and host, a failed change appears as a failure
 * with its code; `sds audit list` filters; `sds audit verify` passes, then names the first bad
 * record of a store tampered with (non-zero exit, stable code); the chain is checked again by the
 * Python script of the documentation; processes appending at once keep it whole; a backup tells
 * the trail how far it holds it.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, storeSql, tempHome, testStoreKind, withStore } from '../../helpers/temp-home.js';

const OS_USER = `os:${userInfo().username}`;

/** The re-verification script of docs/supervision.md#the-canonical-form, as printed there. */
function docScript(): string {
  const page = readFileSync(new URL('../../../docs/supervision.md', import.meta.url), 'utf8');
  const m = /<!-- audit-verify-script -->\s*```python\n([\s\S]*?)```/.exec(page);
  assert.ok(m, 'docs/supervision.md holds the verification script');
  return m[1]!;
}

describe('sds audit', { concurrency: true }, () => {
  test('accounts in bulk, names of an account and area names of a dictionary are recorded; a refused import as a failure', async () => {
    const home = await tempHome();
    try {
      const csv = join(home.root, 'team.csv');
      writeFileSync(csv, 'amina01,Amina,Diallo,Standard User,change-me-0001\njoao0002,Joao,Silva,Standard User,change-me-0002\n');
      const imported = await sds(home.root, ['users', 'import', csv, '--json']);
      assert.equal(imported.code, 0, show(imported));
      const bad = join(home.root, 'bad.csv');
      writeFileSync(bad, 'x,Amina,Diallo,Standard User,short\n');
      const refused = await sds(home.root, ['users', 'import', bad, '--json']);
      assert.notEqual(refused.code, 0, show(refused));
      const updated = await sds(home.root, ['users', 'update', 'amina01', '--phone', '+221 77 000 00 01', '--json']);
      assert.equal(updated.code, 0, show(updated));
      const up = await sds(home.root, ['dict', 'upload', fixture('simple-capi.dcf'), '--label', 'simple', '--json']);
      assert.equal(up.code, 0, show(up));
      const name = up.json().name as string;
      const areas = join(home.root, 'areas.csv');
      writeFileSync(areas, '01,North\n');
      const stored = await sds(home.root, ['dict', 'area-names', name, areas, '--json']);

      const records = (await sds(home.root, ['audit', 'list', '--json'])).json<any[]>().reverse();
      const byAction = (a: string) => records.filter((r) => r.action === a).map((r) => [r.target, r.outcome]);
      assert.deepEqual(byAction('users.import'), [
        ['file:team.csv', 'success'],
        ['file:bad.csv', 'failure'],
      ]);
      assert.deepEqual(records.find((r) => r.action === 'users.import').details, {
        added: 2,
        updated: 0,
        accounts: ['amina01', 'joao0002'],
      });
      assert.deepEqual(byAction('users.update'), [['user:amina01', 'success']]);
      assert.deepEqual(records.find((r) => r.action === 'users.update').details, { fields: ['phone'] });
      assert.deepEqual(byAction('dictionaries.area-names'), [[`dictionary:${name}`, stored.code === 0 ? 'success' : 'failure']]);
      assert.doesNotMatch(JSON.stringify(records), /change-me/, 'no password in the trail');
      assert.equal((await sds(home.root, ['audit', 'verify'])).code, 0);
    } finally {
      await home.cleanup();
    }
  });

  test('changes and failures are recorded; list filters; verify passes, then names the tampered record', async () => {
    const home = await tempHome();
    try {
      const add = await sds(home.root, ['users', 'add', 'alice', '--role', 'API', '--json'], { stdin: 'correct horse battery\n' });
      assert.equal(add.code, 0, show(add));
      const up = await sds(home.root, ['dict', 'upload', fixture('simple-capi.dcf'), '--label', 'simple', '--json']);
      assert.equal(up.code, 0, show(up));
      const name = up.json().name as string;
      const del = await sds(home.root, ['dict', 'delete', name, '--json']);
      assert.equal(del.code, 0, show(del));
      const missing = await sds(home.root, ['users', 'remove', 'nobody']);
      assert.equal(missing.code, 3, show(missing));

      const list = await sds(home.root, ['audit', 'list', '--json']);
      assert.equal(list.code, 0, show(list));
      const records = list.json<any[]>();
      assert.deepEqual(
        records.map((r) => [r.seq, r.action, r.target, r.outcome]),
        [
          [4, 'users.remove', 'user:nobody', 'failure'],
          [3, 'dictionaries.delete', `dictionary:${name}`, 'success'],
          [2, 'dictionaries.upload', `file:${fixture('simple-capi.dcf')}`, 'success'],
          [1, 'users.add', 'user:alice', 'success'],
        ],
      );
      for (const r of records) {
        assert.equal(r.actor, OS_USER);
        assert.equal(r.origin, hostname());
        assert.equal(r.channel, 'cli');
      }
      assert.equal(records[0].details.error, 'NOT_FOUND');
      assert.deepEqual(records[3].details, { role: 'API' }, 'what the change set, never the password');
      assert.equal(records[2].details.dictionary, name);
      assert.doesNotMatch(list.stdout, /correct horse/, 'no password in the trail');

      const failures = await sds(home.root, ['audit', 'list', '--outcome', 'failure', '--json']);
      assert.deepEqual(
        failures.json<any[]>().map((r) => r.seq),
        [4],
      );
      const dicts = await sds(home.root, ['audit', 'list', '--action', 'dictionaries.*', '--limit', '1', '--json']);
      assert.deepEqual(
        dicts.json<any[]>().map((r) => r.seq),
        [3],
      );
      const human = await sds(home.root, ['audit', 'list', '--actor', OS_USER]);
      assert.match(human.stdout, /users\.add\s+user:alice\s+success/);
      const bad = await sds(home.root, ['audit', 'list', '--since', 'last week', '--json']);
      assert.equal(bad.code, 2, show(bad));

      const ok = await sds(home.root, ['audit', 'verify', '--json']);
      assert.equal(ok.code, 0, show(ok));
      const head = ok.json();
      assert.equal(head.records, 4);
      assert.equal(head.head_seq, 4);
      const expect = await sds(home.root, ['audit', 'verify', '--expect', `${head.head_seq}:${head.head_hash}`]);
      assert.equal(expect.code, 0, show(expect));

      // The documentation's script checks the same chain from the listing alone.
      const py = spawnSync('python3', ['-c', docScript()], { input: list.stdout });
      assert.equal(py.status, 0, `${py.stdout}\n${py.stderr}`);
      assert.match(py.stdout.toString(), /4 records chained/);

      await withStore(home, (store) => storeSql(store, "UPDATE audit_log SET target = 'user:mallory' WHERE seq = 1"));
      const broken = await sds(home.root, ['audit', 'verify', '--json']);
      assert.equal(broken.code, 1, show(broken));
      assert.equal(broken.json().error, 'AUDIT_RECORD_ALTERED');
      assert.match(broken.json().message, /audit record 1\b/);
      const text = await sds(home.root, ['audit', 'verify']);
      assert.match(text.stderr, /AUDIT_RECORD_ALTERED: audit record 1:/);
      const tampered = await sds(home.root, ['audit', 'list', '--json']);
      const pyBroken = spawnSync('python3', ['-c', docScript()], { input: tampered.stdout });
      assert.notEqual(pyBroken.status, 0, 'the script finds it too');
      assert.match(pyBroken.stdout.toString() + pyBroken.stderr.toString(), /record 1/);
    } finally {
      await home.cleanup();
    }
  });

  test('processes appending at once keep one whole chain', async () => {
    const home = await tempHome();
    try {
      const n = 6;
      const runs = await Promise.all(
        Array.from({ length: n }, (_, i) =>
          sds(home.root, ['users', 'add', `user${i}`, '--role', 'Standard'], { stdin: 'long enough password\n' }),
        ),
      );
      for (const r of runs) assert.equal(r.code, 0, show(r));
      const v = await sds(home.root, ['audit', 'verify', '--json']);
      assert.equal(v.code, 0, show(v));
      assert.equal(v.json().records, n);
      const targets = (await sds(home.root, ['audit', 'list', '--json']))
        .json<any[]>()
        .map((r) => r.target)
        .sort();
      assert.deepEqual(targets, Array.from({ length: n }, (_, i) => `user:user${i}`).sort());
    } finally {
      await home.cleanup();
    }
  });

  test('a backup tells the trail how far it holds it; prune keeps forever by default', async () => {
    const home = await tempHome();
    const dest = mkdtempSync(join(tmpdir(), 'sds-audit-backup-'));
    try {
      const add = await sds(home.root, ['users', 'add', 'alice', '--role', 'API'], { stdin: 'correct horse battery\n' });
      assert.equal(add.code, 0, show(add));
      if (testStoreKind() === 'sqlite') {
        const b = await sds(home.root, ['backup', join(dest, 'b'), '--json']);
        assert.equal(b.code, 0, show(b));
        assert.equal(b.json().audit_through_seq, 1);
      } else {
        // sds backup refuses a PostgreSQL store: the office says what its pg_dump took.
        const b = await sds(home.root, ['audit', 'backed-up', '--through', '1', '--json']);
        assert.equal(b.code, 0, show(b));
      }
      const v = (await sds(home.root, ['audit', 'verify', '--json'])).json();
      assert.equal(v.backed_up_seq, 1);
      const last = (await sds(home.root, ['audit', 'list', '--limit', '1', '--json'])).json<any[]>()[0];
      assert.equal(last.action, testStoreKind() === 'sqlite' ? 'backup.create' : 'audit.backed-up');
      assert.equal(last.details.through_seq, 1);

      const forever = await sds(home.root, ['audit', 'prune', '--json']);
      assert.equal(forever.code, 0, show(forever));
      assert.deepEqual([forever.json().pruned, forever.json().held_by], [0, 'forever']);
      const bad = await sds(home.root, ['audit', 'prune'], { env: { SDS_AUDIT_RETENTION_DAYS: 'soon' } });
      assert.equal(bad.code, 2, show(bad));
      assert.match(bad.stderr, /SDS_AUDIT_RETENTION_DAYS/);
      const young = await sds(home.root, ['audit', 'prune', '--json'], { env: { SDS_AUDIT_RETENTION_DAYS: '30' } });
      assert.equal(young.json().pruned, 0, 'nothing is 30 days old');
    } finally {
      rmSync(dest, { recursive: true, force: true });
      await home.cleanup();
    }
  });
});
