/**
 * What operators expect of a CLI: `sds completion`, `sds config` and `sds --version`, run as the
 * real CLI; the bash script is loaded into a real bash and asked for completions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { buildProgram, loadCommandGroups } from '../../../src/cli/main.js';
import { runCli, show } from '../../helpers/run-cli.js';
import { tempHome, writeHomeConfig } from '../../helpers/temp-home.js';

/** Every command group: these tests read the whole command tree. */
const ALL_GROUPS = await loadCommandGroups();

function scratch(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'sds-cliops-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The words bash completes for the command line `line` (the cursor at its end). */
function bashComplete(script: string, line: string): string[] {
  const words = line.split(' ');
  const quoted = words.map((w) => `'${w}'`).join(' ');
  const r = spawnSync(
    'bash',
    [
      '--norc',
      '--noprofile',
      '-c',
      `source "$1"; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _sds_completion; printf '%s\\n' "\${COMPREPLY[@]}"`,
      'bash',
      script,
    ],
    {
      encoding: 'utf8',
    },
  );
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean).sort();
}

const visible = (c: Command): Command[] => c.commands.filter((s) => !(s as unknown as { _hidden?: boolean })._hidden);

const shellPresent = (shell: string): boolean => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;

test('sds completion bash: a real bash completes commands, subcommands and options from the program', (t) => {
  const s = scratch();
  t.after(s.cleanup);
  const r = runCli(null, ['completion', 'bash']);
  assert.equal(r.code, 0, show(r));
  const file = join(s.dir, 'sds.bash');
  writeFileSync(file, r.stdout);

  const registered = spawnSync('bash', ['--norc', '--noprofile', '-c', 'source "$1"; complete -p sds', 'bash', file], { encoding: 'utf8' });
  assert.match(registered.stdout, /complete .*-F _sds_completion sds/, registered.stderr);

  assert.deepEqual(bashComplete(file, 'sds di'), ['dict']);
  assert.deepEqual(bashComplete(file, 'sds sch'), ['schedule', 'scheduler-run']);
  assert.deepEqual(bashComplete(file, 'sds --home /srv/sds sch'), ['schedule', 'scheduler-run'], 'the value of --home is not a command');
  assert.deepEqual(bashComplete(file, 'sds dict '), ['area-names', 'delete', 'list', 'set-gps', 'show', 'upload']);
  assert.deepEqual(bashComplete(file, 'sds dict upload --l'), ['--label']);
  assert.deepEqual(bashComplete(file, 'sds co'), ['completion', 'config']);
  assert.deepEqual(bashComplete(file, 'sds --ver'), ['--verbose', '--version']);
  assert.deepEqual(bashComplete(file, 'sds dict upload --label '), [], 'a value is left to the shell (files)');

  // Every group of the program completes exactly its subcommands: the script cannot drift.
  const program = buildProgram(ALL_GROUPS);
  const groups = (c: Command, path: string[]): [string[], string[]][] =>
    visible(c).flatMap((s) =>
      s.commands.length
        ? [
            [
              [...path, s.name()],
              visible(s)
                .map((x) => x.name())
                .sort(),
            ] as [string[], string[]],
            ...groups(s, [...path, s.name()]),
          ]
        : [],
    );
  const all = groups(program, []);
  assert.ok(all.length >= 8, 'the program has command groups');
  for (const [path, subs] of all) assert.deepEqual(bashComplete(file, `sds ${path.join(' ')} `), subs, path.join(' '));
  assert.deepEqual(
    bashComplete(file, 'sds '),
    visible(program)
      .map((c) => c.name())
      .sort(),
  );
});

test('sds completion zsh and fish: scripts name every command; checked by the shell where it is installed', (t) => {
  const s = scratch();
  t.after(s.cleanup);
  const program = buildProgram(ALL_GROUPS);
  for (const shell of ['zsh', 'fish']) {
    const r = runCli(null, ['completion', shell]);
    assert.equal(r.code, 0, show(r));
    for (const c of visible(program)) assert.ok(r.stdout.includes(c.name()), `${shell} script names ${c.name()}`);
    assert.ok(r.stdout.includes('upload'), shell);
    assert.ok(r.stdout.includes(shell === 'zsh' ? "'--label:" : '-l label'), `${shell} script has the options of dict upload`);
    if (shellPresent(shell)) {
      const file = join(s.dir, `sds.${shell}`);
      writeFileSync(file, r.stdout);
      const check = spawnSync(shell, ['-n', file], { encoding: 'utf8' });
      assert.equal(check.status, 0, `${shell} -n: ${check.stderr}`);
    }
  }
  assert.match(runCli(null, ['completion', 'zsh']).stdout, /^#compdef sds/);
});

test('sds completion with an unknown shell is a usage error naming the shells', () => {
  const r = runCli(null, ['completion', 'powershell']);
  assert.equal(r.code, 2, show(r));
  assert.match(r.stderr, /USAGE: unknown shell "powershell"; use one of bash, zsh, fish/);
});

interface ConfigJson {
  home: { path: string; source: string; from?: string; exists: boolean };
  config_file: { path: string; exists: boolean };
  unknown_keys: { key: string; file: string; message: string }[];
  settings: { name: string; value: unknown; source: string; from?: string }[];
}

test('sds config: each setting says whether it came from the environment, config.json or the default', async (t) => {
  const home = await tempHome();
  t.after(home.cleanup);
  mkdirSync(home.root, { recursive: true });
  writeHomeConfig(home, { timezone: 'Europe/Paris', limits: { page_bytes: 4096, note_chars: 100 }, scheduler: { keep_runs: 7 } });
  const r = runCli(home.root, ['config', '--json'], {
    env: { SDS_LIMIT_NOTE_CHARS: '200', SDS_JWT_SECRET: 's'.repeat(40), SDS_HTTP_BODY_TIMEOUT_MS: '1234' },
  });
  assert.equal(r.code, 0, show(r));
  const c = r.json<ConfigJson>();
  const get = (name: string) => c.settings.find((s) => s.name === name) ?? assert.fail(`no setting ${name}`);
  assert.deepEqual(c.home, { path: home.root, source: 'flag', from: '--home', exists: true });
  assert.deepEqual(c.unknown_keys, []);
  assert.deepEqual(get('timezone'), { name: 'timezone', value: 'Europe/Paris', source: 'config.json', from: 'timezone' });
  assert.deepEqual(get('limits.page_bytes'), { name: 'limits.page_bytes', value: 4096, source: 'config.json', from: 'limits.page_bytes' });
  assert.deepEqual(
    get('limits.note_chars'),
    { name: 'limits.note_chars', value: 200, source: 'environment', from: 'SDS_LIMIT_NOTE_CHARS' },
    'the environment wins over config.json',
  );
  assert.deepEqual(get('limits.json_depth'), { name: 'limits.json_depth', value: 64, source: 'default' });
  assert.deepEqual(get('scheduler.keep_runs'), {
    name: 'scheduler.keep_runs',
    value: 7,
    source: 'config.json',
    from: 'scheduler.keep_runs',
  });
  assert.deepEqual(get('scheduler.timeout_seconds'), { name: 'scheduler.timeout_seconds', value: 3600, source: 'default' });
  assert.deepEqual(get('http.body_timeout_ms'), {
    name: 'http.body_timeout_ms',
    value: 1234,
    source: 'environment',
    from: 'SDS_HTTP_BODY_TIMEOUT_MS',
  });
  assert.equal(get('login_throttle.window_seconds').value, 900);
  assert.equal(get('webhooks.connect_timeout_ms').value, 5000);
  // The secret's presence, never its value.
  assert.deepEqual(get('jwt_secret'), { name: 'jwt_secret', value: 'set', source: 'environment', from: 'SDS_JWT_SECRET' });
  assert.ok(!r.stdout.includes('s'.repeat(40)));

  const human = runCli(home.root, ['config'], { env: { SDS_LIMIT_NOTE_CHARS: '200' } });
  assert.equal(human.code, 0, show(human));
  assert.match(human.stdout, /^limits\.note_chars +200 +environment \(SDS_LIMIT_NOTE_CHARS\)$/m);
  assert.match(human.stdout, /^limits\.page_bytes +4096 +config\.json \(limits\.page_bytes\)$/m);
  assert.match(human.stdout, /^limits\.json_depth +64 +default$/m);
  assert.match(human.stdout, /^jwt_secret +not set .*default$/m);
});

test('unknown config.json keys are warned about by every command reading the file and listed by sds config', async (t) => {
  const home = await tempHome();
  t.after(home.cleanup);
  assert.equal(runCli(home.root, ['init']).code, 0);
  const file = join(home.root, 'config.json');
  writeHomeConfig(home, { timezone: 'UTC', CEN2000_PASSWORD: 'x', scheduler: { keep_run: 3 } });

  const c = runCli(home.root, ['config', '--json']);
  assert.equal(c.code, 0, show(c));
  assert.deepEqual(
    c.json<ConfigJson>().unknown_keys.map((u) => [u.key, u.file]),
    [
      ['CEN2000_PASSWORD', file],
      ['scheduler.keep_run', file],
    ],
  );
  assert.match(
    c.stderr,
    new RegExp(
      `^sds: warning: CEN2000_PASSWORD in ${file} is not a setting and is ignored \\(known: timezone, scheduler, limits, login_throttle, trusted_proxies, logs, health, store, jobs, workers, audit\\)$`,
      'm',
    ),
  );
  assert.equal(c.stderr.match(/CEN2000_PASSWORD/g)?.length, 1, 'one warning per key, however many settings read the file');

  const human = runCli(home.root, ['config']);
  assert.match(human.stdout, /^unknown keys \(ignored\): CEN2000_PASSWORD, scheduler\.keep_run$/m);

  // Another command reading config.json warns too, and still works.
  const list = runCli(home.root, ['schedule', 'list']);
  assert.equal(list.code, 0, show(list));
  assert.match(
    list.stderr,
    new RegExp(
      `sds: warning: scheduler\\.keep_run in ${file} is not a setting and is ignored \\(known: scheduler\\.timeout_seconds, scheduler\\.kill_grace_seconds, scheduler\\.keep_runs, scheduler\\.foreign_run_grace_seconds\\)`,
    ),
  );
  assert.match(list.stderr, /CEN2000_PASSWORD/);
});

test('sds config refuses a bad value as the commands do, and creates no home', (t) => {
  const s = scratch();
  t.after(s.cleanup);
  const missing = join(s.dir, 'nohome');
  const r = runCli(missing, ['config', '--json']);
  assert.equal(r.code, 0, show(r));
  const c = r.json<ConfigJson>();
  assert.deepEqual(c.home, { path: missing, source: 'flag', from: '--home', exists: false });
  assert.equal(c.config_file.exists, false);
  assert.equal(existsSync(missing), false, 'sds config created the home');

  const byEnv = runCli(null, ['config', '--json'], { cwd: s.dir, env: { SDS_HOME: missing } });
  assert.deepEqual(byEnv.json<ConfigJson>().home.source, 'environment');
  const byDefault = runCli(null, ['config', '--json'], { cwd: s.dir, env: { SDS_HOME: undefined } });
  assert.deepEqual(byDefault.json<ConfigJson>().home, { path: join(s.dir, 'var'), source: 'default', exists: false });
  assert.deepEqual(readdirSync(s.dir), []);

  const bad = runCli(missing, ['config'], { env: { SDS_TIMEZONE: 'Mars/Olympus' } });
  assert.equal(bad.code, 2, show(bad));
  assert.match(bad.stderr, /CONFIG_INVALID/);
});

test("sds --version: package, store schema (latest and the home's) and Node, without creating a home", (t) => {
  const s = scratch();
  t.after(s.cleanup);
  const home = join(s.dir, 'home');
  const latest = Math.max(
    ...readdirSync(new URL('../../../src/store/migrations/', import.meta.url))
      .filter((f) => /^\d{4}-/.test(f))
      .map((f) => Number(f.slice(0, 4))),
  );
  const { version } = JSON.parse(
    spawnSync('cat', [new URL('../../../package.json', import.meta.url).pathname], { encoding: 'utf8' }).stdout,
  ) as { version: string };

  const before = runCli(home, ['--version']);
  assert.equal(before.code, 0, show(before));
  assert.equal(before.stdout, `sds ${version}\nstore schema ${latest} (applied: no store at ${home})\nnode ${process.version}\n`);
  assert.equal(existsSync(home), false, '--version created the home');

  assert.equal(runCli(home, ['init']).code, 0);
  const after = runCli(home, ['--version', '--json']);
  assert.equal(after.code, 0, show(after));
  assert.deepEqual(after.json(), { version, schema: { latest, home, applied: latest }, node: process.version });
  assert.equal(
    runCli(null, ['-V'], { cwd: s.dir, env: { SDS_HOME: home } }).stdout.split('\n')[1],
    `store schema ${latest} (applied: ${latest} in ${home})`,
  );
});
