/**
 * `sds csweb import` as a user runs it, against a CSWeb-shaped MariaDB database: the table and
 * exit codes, --json, --dry-run writing nothing, a partial failure (exit 2 naming dictionary
 * and guid), and the time zone read from CSWeb's config.php.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hash } from 'bcryptjs';
import { join } from 'node:path';
import { runCli, show } from '../../helpers/run-cli.js';
import { fixture, tempDir, tempHome } from '../../helpers/temp-home.js';
import { createCswebFixture } from '../../helpers/csweb-fixture.js';

const SIMPLE = readFileSync(fixture('simple-capi.dcf'), 'utf8');
const G = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const json = (hh: number) => JSON.stringify({ id: { CLUSTER: 1, HHNO: hh }, POPULATION_REC: [{ P1: `P${hh}` }] });

test('sds csweb import and verify: dry run, import, partial failure, config.php zone, rerun', async () => {
  const f = await createCswebFixture();
  const home = await tempHome();
  try {
    await f.addDictionary('SIMPLECAPI_DICT', 'simple CAPI', SIMPLE);
    await f.upload('SIMPLECAPI_DICT', [
      {
        guid: G(1),
        caseids: '001001',
        level1: json(1),
        notes: [{ operatorId: 'op', field: 'P1', content: 'n', modifiedTime: '2024-01-01 12:00:00' }],
      },
      { guid: G(2), caseids: '001002', questionnaire: Buffer.from([0x1f, 0x8b, 0x08, 0x00, 9]) },
    ]);
    const noZone = runCli(home.root, ['csweb', 'import', '--from', f.url]);
    assert.equal(noZone.code, 2, show(noZone));
    assert.match(noZone.stderr, /CSWEB_TIMEZONE_REQUIRED.*--timezone/);

    const dry = runCli(home.root, ['csweb', 'import', '--from', f.url, '--timezone', 'Asia/Kolkata', '--dry-run', '--json']);
    const dryReport = dry.json<{ dryRun: boolean; total: { read: number } }>();
    assert.equal(dryReport.dryRun, true);
    assert.equal(dryReport.total.read, 2);
    const list = runCli(home.root, ['dict', 'list', '--json']);
    assert.deepEqual(list.json<unknown[]>(), [], 'a dry run writes nothing');

    const config = join(home.root, 'config.php');
    writeFileSync(config, "<?php\ndefine('DEFAULT_TIMEZONE', 'Asia/Kolkata');\ndefine('FILES_FOLDER', '/var/csweb/files');\n");
    const real = runCli(home.root, ['csweb', 'import', '--from', f.url, '--csweb-config', config]);
    assert.equal(real.code, 2, show(real));
    assert.match(real.stderr, /CSWEB_CASE_UNREADABLE: .*\[SIMPLECAPI_DICT 00000000-0000-4000-8000-000000000002\]/);
    assert.match(real.stderr, /CSWEB_IMPORT_PARTIAL/);
    assert.match(real.stdout, /SIMPLECAPI_DICT\s+simple_CAPI\s+created\s+2\s+1\s+0\s+1/);
    const c = runCli(home.root, ['cases', 'show', 'SIMPLECAPI_DICT', G(1), '--json']).json<{ notes: { modifiedTime: string }[] }>();
    assert.equal(c.notes[0]!.modifiedTime, '2024-01-01T06:30:00Z');

    const verify = runCli(home.root, ['csweb', 'verify', '--from', f.url, '--timezone', 'Asia/Kolkata']);
    assert.equal(verify.code, 1, show(verify));
    assert.match(verify.stderr, /SIMPLECAPI_DICT: cases: 2 in CSWeb, 1 in sds/);
    assert.match(verify.stderr, /1 CSWeb case\(s\) cannot be decoded/);
    assert.match(verify.stderr, /CSWEB_VERIFY_DIFFERS/);

    const again = runCli(home.root, ['csweb', 'import', '--from', f.url, '--timezone', 'Asia/Kolkata', '--json']);
    assert.equal(again.code, 0, show(again));
    assert.equal(again.json<{ total: { read: number } }>().total.read, 0);

    await f.conn.query('DELETE FROM SIMPLECAPI_DICT WHERE caseids = ?', ['001002']);
    const same = runCli(home.root, ['csweb', 'verify', '--from', f.url, '--timezone', 'Asia/Kolkata', '--json']);
    assert.equal(same.code, 0, show(same));
    assert.equal(same.json<{ same: boolean }>().same, true);
  } finally {
    await home.cleanup();
    await f.drop();
  }
});

test('sds csweb import brings the accounts (their CSWeb passwords) and, with --files, the synced files; --no-users leaves accounts out', async () => {
  const f = await createCswebFixture();
  const home = await tempHome();
  const files = tempDir();
  try {
    await f.addDictionary('SIMPLECAPI_DICT', 'simple CAPI', SIMPLE);
    await f.upload('SIMPLECAPI_DICT', [{ guid: G(1), caseids: '001001', level1: json(1) }]);
    // As CSWeb's POST /api/users writes them: bcrypt cost 8 with PHP's $2y$ prefix.
    const bcrypt = (await hash('field-pass-1', 8)).replace(/^\$2[ab]\$/, '$2y$');
    await f.conn.query("INSERT INTO cspro_users (username, password, first_name, last_name, role) VALUES ('amina', ?, 'Amina', 'O', 1)", [
      bcrypt,
    ]);
    mkdirSync(join(files.root, 'paradata'), { recursive: true });
    writeFileSync(join(files.root, 'paradata', 'day1.txt'), 'tablet paradata\n');

    const without = runCli(home.root, ['csweb', 'import', '--from', f.url, '--timezone', 'UTC', '--no-users', '--json']);
    assert.equal(without.code, 0, show(without));
    assert.equal(without.json<{ users?: unknown }>().users, undefined);
    assert.deepEqual(runCli(home.root, ['users', 'list', '--json']).json<unknown[]>(), []);

    const run = runCli(home.root, ['csweb', 'import', '--from', f.url, '--timezone', 'UTC', '--files', files.root, '--json']);
    assert.equal(run.code, 0, show(run));
    const r = run.json<{ users: { added: number }; files: { files: { copied: number } } }>();
    assert.equal(r.users.added, 1);
    assert.equal(r.files.files.copied, 1);
    const users = runCli(home.root, ['users', 'list', '--json']).json<{ username: string; role: string; password_scheme: string }[]>();
    assert.deepEqual(
      users.map((u) => [u.username, u.role, u.password_scheme]),
      [['amina', 'Standard User', 'bcrypt']],
    );
    const got = runCli(home.root, ['files', 'get', 'paradata/day1.txt']);
    assert.equal(got.code, 0, show(got));
    assert.equal(got.stdout, 'tablet paradata\n');

    const human = runCli(home.root, ['csweb', 'import', '--from', f.url, '--timezone', 'UTC', '--files', files.root]);
    assert.equal(human.code, 0, show(human));
    assert.match(human.stdout, /accounts: 0 added, 0 updated, 1 unchanged/);
    assert.match(human.stdout, /files: 0 copied, 1 unchanged, 0 refused/);
  } finally {
    await home.cleanup();
    files.cleanup();
    await f.drop();
  }
});

test('sds csweb import run twice: each warning prints once, errors every time; --json and --all-warnings list them all; names in any script', async () => {
  const f = await createCswebFixture();
  const home = await tempHome();
  const files = tempDir();
  const put = (path: string, content: string) => {
    const full = join(files.root, ...path.split('/'));
    mkdirSync(join(full, '..'), { recursive: true });
    writeFileSync(full, content);
  };
  const base = ['csweb', 'import', '--from', f.url, '--timezone', 'UTC', '--files', files.root];
  const warningLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('sds: warning: '));
  try {
    await f.addDictionary('SIMPLECAPI_DICT', 'simple CAPI', SIMPLE);
    // A Standard User account: its role maps with a warning (sds's Standard cannot delete dictionaries).
    const bcrypt = (await hash('field-pass-1', 8)).replace(/^\$2[ab]\$/, '$2y$');
    await f.conn.query("INSERT INTO cspro_users (username, password, first_name, last_name, role) VALUES ('amina', ?, 'Amina', 'O', 1)", [
      bcrypt,
    ]);
    put('données/énumération_1.csv', 'id,région\n1,Île-de-France\n');
    put('بيانات.txt', 'بيانات\n');
    put('.htaccess', 'deny from all'); // refused: an error on every run
    put('apps/Unlisted.zip', 'PK');
    await f.conn.query(
      'INSERT INTO cspro_apps (name, description, build_time, path, version, files, signature) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ['Enquête', 'Enquête ménages 2025', '2025-02-03 04:05:06', 'apps/Enquête.zip', '3.1', '[]', '0'.repeat(32)],
    );
    put('apps/Enquête.zip', 'PK\u0005\u0006' + '\u0000'.repeat(18));

    // --quiet shows no warning, so none counts as reported.
    const quiet = runCli(home.root, [...base, '--quiet']);
    assert.equal(quiet.code, 2, show(quiet));
    assert.deepEqual(warningLines(quiet.stderr), []);

    const first = runCli(home.root, base);
    assert.equal(first.code, 2, show(first));
    const warned = warningLines(first.stderr);
    const warnedCodes = warned.map((l) => /^sds: warning: (\w+):/.exec(l)![1]).sort();
    assert.ok(warnedCodes.includes('CSWEB_APP_UNLISTED'), show(first));
    assert.ok(
      warnedCodes.some((c) => c!.startsWith('CSWEB_ROLE_')),
      show(first),
    );
    assert.doesNotMatch(first.stderr, /CSWEB_APP_METADATA_NOT_KEPT/);
    assert.match(first.stderr, /^sds: CSWEB_FILE_REFUSED: .*\.htaccess/m);
    assert.doesNotMatch(first.stderr, /already reported/);

    const second = runCli(home.root, base);
    assert.equal(second.code, 2, show(second));
    assert.deepEqual(warningLines(second.stderr), [], show(second));
    assert.match(second.stderr, /^sds: CSWEB_FILE_REFUSED: .*\.htaccess/m, 'errors print on every run');
    assert.match(second.stderr, new RegExp(`^sds: ${warned.length} warnings already reported on earlier runs \\(see --json\\)$`, 'm'));

    const all = runCli(home.root, [...base, '--json']);
    const entries = all.json<{ entries: { level: string; code: string }[] }>().entries;
    assert.deepEqual(
      entries
        .filter((e) => e.level === 'warn')
        .map((e) => e.code)
        .sort(),
      warnedCodes,
    );

    const again = runCli(home.root, [...base, '--all-warnings']);
    assert.deepEqual(warningLines(again.stderr).sort(), [...warned].sort());
    assert.doesNotMatch(again.stderr, /already reported/);

    // A new warning prints once, beside the count of the old ones.
    put('apps/Another.zip', 'PK');
    const third = runCli(home.root, base);
    assert.deepEqual(
      warningLines(third.stderr).map((l) => /^sds: warning: (\w+):/.exec(l)![1]),
      ['CSWEB_APP_UNLISTED'],
      show(third),
    );
    assert.match(third.stderr, /Another\.zip/);
    assert.match(third.stderr, new RegExp(`^sds: ${warned.length} warnings already reported`, 'm'));

    // The files with names in French and Arabic, and the package with its metadata.
    const list = runCli(home.root, ['files', 'list', '--json']).json<{ name: string }[]>();
    assert.deepEqual(list.map((x) => x.name).sort(), ['données/énumération_1.csv', 'بيانات.txt'].sort());
    const got = runCli(home.root, ['files', 'get', 'données/énumération_1.csv']);
    assert.equal(got.code, 0, show(got));
    assert.equal(got.stdout, 'id,région\n1,Île-de-France\n');
  } finally {
    await home.cleanup();
    files.cleanup();
    await f.drop();
  }
});
