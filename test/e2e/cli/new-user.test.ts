/**
 * The CLI as a new user meets it (issue 8 C): usage errors printed once with a hint, required
 * options checked after the arguments, unknown commands with --help, a closed pipe, progress on
 * a terminal, a CLI not built yet, and target flags never ignored. Progress needs a terminal:
 * the command runs under `script` (util-linux), which gives it a pseudo-terminal.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, runCliAsync as sds, SDS_BIN, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** Runs `sds --home home ...args` on a pseudo-terminal; returns everything the terminal received. */
function onTerminal(home: string, args: string[]): { code: number | null; out: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.CI;
  const cmd = [process.execPath, SDS_BIN, '--home', home, ...args].map(quote).join(' ');
  const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { env, input: '', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { code: r.status, out: r.stdout.toString('utf8') };
}

test('a usage error is printed once, with the hint naming the command', () => {
  const r = runCli(null, ['cases', 'list']);
  assert.equal(r.code, 2, show(r));
  assert.equal(r.stderr, "sds: USAGE: missing required argument 'dict'\n(see sds cases list --help)\n");
  assert.equal(r.stdout, '');
  const j = runCli(null, ['cases', 'list', '--json']);
  assert.equal(j.code, 2, show(j));
  assert.equal(j.stderr, '');
  assert.deepEqual(j.json(), { error: 'USAGE', message: "missing required argument 'dict'", details: { help: 'sds cases list --help' } });
});

test('dict upload without arguments names the missing file; --help marks the required --label', () => {
  const r = runCli(null, ['dict', 'upload']);
  assert.equal(r.code, 2, show(r));
  assert.match(r.stderr, /^sds: USAGE: missing required argument 'file'\n/);
  const l = runCli(null, ['dict', 'upload', 'census.dcf']);
  assert.equal(l.code, 2, show(l));
  assert.match(l.stderr, /^sds: USAGE: required option '--label <label>' not specified\n\(see sds dict upload --help\)\n$/);
  const h = runCli(null, ['dict', 'upload', '--help']);
  assert.equal(h.code, 0, show(h));
  assert.match(h.stdout, /--label <label>\s+\(required\) short label/);
  const u = runCli(null, ['users', 'add', '--help']);
  assert.match(u.stdout, /--role <role>\s+\(required\)/);
});

test('an unknown command with --help says it is unknown and exits 2, at the top and in a group', () => {
  for (const args of [
    ['webhookz', '--help'],
    ['--home', 'x', 'webhookz', '-h'],
    ['dict', 'nosuch', '--help'],
  ]) {
    const r = runCli(null, args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${show(r)}`);
    assert.match(r.stderr, /unknown command '(webhookz|nosuch)'/, args.join(' '));
    assert.doesNotMatch(r.stdout, /Usage:/, args.join(' '));
  }
  // A known command's --help still works, `help` too.
  assert.equal(runCli(null, ['dict', '--help']).code, 0);
  assert.equal(runCli(null, ['help', 'dict']).code, 0);
});

test('bin/sds before `npm run build` says to build first, without a module trace', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sds-nobuild-'));
  try {
    mkdirSync(join(dir, 'bin'));
    copyFileSync(SDS_BIN, join(dir, 'bin', 'sds'));
    const r = spawnSync(process.execPath, [join(dir, 'bin', 'sds'), '--help'], { encoding: 'utf8' });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /^sds: the CLI is not built yet .*npm run build/);
    assert.doesNotMatch(r.stderr, /ERR_MODULE_NOT_FOUND|at /);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('with the census imported', async () => {
  const home = await tempHome();
  after(() => home.cleanup());
  before(async () => {
    const up = await sds(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan']);
    assert.equal(up.code, 0, show(up));
  });

  test('cases import on a terminal shows a percentage and an ETA, never a literal token', () => {
    const r = onTerminal(home.root, ['cases', 'import', 'CEN2000', fixture('popstan-census.dat')]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /importing \[[^\]]*\] +\d+% \| \d+ cases \| ETA /);
    assert.doesNotMatch(r.out, /\{\w+\}|NFs/);
  });

  test('a closed pipe ends the command quietly (sds cases list | head -2)', async () => {
    const child = spawn(process.execPath, [SDS_BIN, '--home', home.root, 'cases', 'list', 'CEN2000', '--limit', '1000'], {
      env: { ...process.env, NO_COLOR: '1' },
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    // Read the first chunk, then close the pipe as `head` does.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    assert.equal(stderr, '');
    assert.equal(code, 0);
  });

  test('breakout start --wait on a terminal: the bar names the dictionary and the ETA, no {dictionary} or NFs', () => {
    const r = onTerminal(home.root, ['breakout', 'start', 'CEN2000', '--wait']);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /(waiting|CEN2000) \[[^\]]*\] +\d+% \| \d+\/\d+ cases \| ETA /);
    assert.doesNotMatch(r.out, /\{\w+\}|NFs/);
    assert.match(r.out, /status +completed/);
  });

  test('process-cases-by-dict on a terminal shows its progress', () => {
    const r = onTerminal(home.root, ['process-cases-by-dict', 'CEN2000', '--overwrite']);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /CEN2000 \[[^\]]*\] +\d+% \| \d+\/\d+ cases \| ETA /);
    assert.doesNotMatch(r.out, /\{\w+\}|NFs/);
    // Without a terminal there is no bar: scripts and logs get no control characters.
    const piped = runCli(home.root, ['process-cases-by-dict', 'CEN2000', '--overwrite'], { env: { CI: '' } });
    assert.equal(piped.code, 0, show(piped));
    assert.equal(piped.stderr, '');
  });
});

describe('target set never ignores a flag', async () => {
  const home = await tempHome();
  after(() => home.cleanup());
  before(async () => {
    const up = await sds(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan']);
    assert.equal(up.code, 0, show(up));
  });

  test('--database with --type sqlite is the file', async () => {
    const file = join(home.root, 'census.sqlite');
    const r = await sds(home.root, ['target', 'set', 'CEN2000', '--type', 'sqlite', '--database', file, '--json']);
    assert.equal(r.code, 0, show(r));
    assert.equal(r.json().target, `sqlite ${file}`);
    const shown = await sds(home.root, ['target', 'show', 'CEN2000', '--json']);
    assert.equal(shown.json().target, `sqlite ${file}`);
  });

  test('flags that do not apply to the type are refused (exit 2), and nothing is changed', async () => {
    const before = (await sds(home.root, ['target', 'show', 'CEN2000', '--json'])).json();
    // Core names the setting; the CLI adds the flag that set it (docs/decisions.md, domain words).
    for (const [args, flags] of [
      [['--type', 'sqlite', '--host', 'db'], ['--host']],
      [
        ['--type', 'sqlite', '--user', 'census', '--password-env', 'PW'],
        ['--user', '--password-env'],
      ],
      [['--type', 'postgresql', '--url', 'postgresql://census@db/census', '--file', 'x.sqlite'], ['--file']],
      [
        ['--type', 'sqlite', '--database', 'a.sqlite', '--file', 'b.sqlite'],
        ['--database', '--file'],
      ],
    ] as const) {
      const r = await sds(home.root, ['target', 'set', 'CEN2000', ...args]);
      assert.equal(r.code, 2, show(r));
      assert.match(r.stderr, /^sds: USAGE: /, show(r));
      for (const flag of flags) assert.ok(r.stderr.includes(flag), `${flag} not named: ${show(r)}`);
    }
    assert.deepEqual((await sds(home.root, ['target', 'show', 'CEN2000', '--json'])).json(), before);
  });
});
