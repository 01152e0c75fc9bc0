import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Command } from 'commander';
import { buildProgram, loadCommandGroups } from '../../../src/cli/main.js';
import { runCli, runCliAsync, show, type CliResult } from '../../helpers/run-cli.js';
import { tempHome } from '../../helpers/temp-home.js';

/** Every command group: these tests read the whole command tree. */
const ALL_GROUPS = await loadCommandGroups();

/** Every visible command path of the program, groups and subcommands included. */
function commandPaths(): string[][] {
  const out: string[][] = [];
  const walk = (c: Command, path: string[]): void => {
    for (const s of c.commands) {
      if ((s as unknown as { _hidden?: boolean })._hidden) continue;
      const p = [...path, s.name()];
      out.push(p);
      walk(s, p);
    }
  };
  walk(buildProgram(ALL_GROUPS), []);
  return out;
}

test('sds --help shows the commands and an Examples: section', () => {
  const r = runCli(null, ['--help']);
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout, /Usage: sds/);
  for (const c of ['init', 'migrate', 'quickstart', 'dict', 'cases', 'users', 'files'])
    assert.match(r.stdout, new RegExp(`\\n  ${c}\\b`), c);
  assert.match(r.stdout, /\nExamples:\n {2}\$ sds /, show(r));
});

/** The help a command prints for `--help`, built in-process from the same program (cheap). */
function helpOf(path: string[]): string {
  const program = buildProgram(ALL_GROUPS);
  let cmd: Command = program;
  for (const name of path) cmd = cmd.commands.find((c) => c.name() === name)!;
  let text = '';
  const capture = (c: Command): void => {
    c.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
    c.commands.forEach(capture);
  };
  capture(program);
  cmd.outputHelp();
  return text;
}

test('<command> --help shows an Examples: section for every visible command and subcommand', async () => {
  const paths = commandPaths();
  // The foundation groups and their subcommands must all be there.
  for (const p of [
    'dict upload',
    'dict list',
    'dict show',
    'dict delete',
    'cases import',
    'cases list',
    'cases show',
    'users add',
    'users list',
    'users remove',
    'users passwd',
    'files put',
    'files get',
    'files info',
    'files list',
    'files rm',
    'init',
    'migrate',
    'quickstart',
  ]) {
    assert.ok(
      paths.some((x) => x.join(' ') === p),
      `command ${p} is registered`,
    );
  }
  // Every command through the real CLI would cost one node start each (~40): the top-level
  // commands and groups go through bin/sds, their subcommands through the same program in-process.
  const top = paths.filter((p) => p.length === 1);
  const missing: string[] = [];
  const results: CliResult[] = [];
  for (let i = 0; i < top.length; i += 6)
    results.push(...(await Promise.all(top.slice(i, i + 6).map((p) => runCliAsync(null, [...p, '--help'])))));
  for (const [i, p] of top.entries()) {
    const r = results[i]!;
    assert.equal(r.code, 0, `${p.join(' ')} --help: ${show(r)}`);
    assert.match(r.stdout, new RegExp(`Usage: sds ${p.join(' ')}\\b`), `${p.join(' ')} --help prints its usage`);
    if (!/\nExamples:\n {2}\$ /.test(r.stdout)) missing.push(p.join(' '));
  }
  for (const p of paths.filter((x) => x.length > 1)) {
    const text = helpOf(p);
    assert.match(text, new RegExp(`Usage: sds ${p.join(' ')}\\b`), `${p.join(' ')} help prints its usage`);
    if (!/\nExamples:\n {2}\$ /.test(text)) missing.push(p.join(' '));
  }
  assert.deepEqual(missing, [], `commands whose --help has no Examples: section`);
  // One subcommand through the real CLI too, to tie both paths together.
  const r = runCli(null, ['dict', 'upload', '--help']);
  assert.equal(r.code, 0, show(r));
  assert.equal(r.stdout, helpOf(['dict', 'upload']).replace(/\r/g, ''));
});

test('an unknown command exits 2 with a message; with --json the error is JSON on stdout', async () => {
  const home = await tempHome();
  try {
    const r = runCli(home.root, ['frobnicate']);
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /unknown command 'frobnicate'/);
    assert.equal(r.stdout, '');

    const j = runCli(home.root, ['--json', 'frobnicate']);
    assert.equal(j.code, 2, show(j));
    const body = j.json();
    assert.equal(body.error, 'USAGE');
    assert.match(body.message, /unknown command 'frobnicate'/);
    assert.equal(j.stderr, '', 'with --json nothing on stderr');
  } finally {
    await home.cleanup();
  }
});

test('an unknown option, a missing argument and a missing required option exit 2 (USAGE), in text and JSON', async () => {
  const home = await tempHome();
  try {
    const r = runCli(home.root, ['dict', 'list', '--bogus']);
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /unknown option '--bogus'/);

    const j = runCli(home.root, ['dict', 'list', '--bogus', '--json']);
    assert.equal(j.code, 2, show(j));
    assert.deepEqual(
      { error: j.json().error, hasMessage: /unknown option '--bogus'/.test(j.json().message) },
      { error: 'USAGE', hasMessage: true },
    );

    const g = runCli(home.root, ['--json', '--bogus-global', 'init']);
    assert.equal(g.code, 2, show(g));
    assert.equal(g.json().error, 'USAGE');

    const a = runCli(home.root, ['--json', 'dict', 'show']);
    assert.equal(a.code, 2, show(a));
    assert.equal(a.json().error, 'USAGE');
    assert.match(a.json().message, /missing required argument/);

    const o = runCli(home.root, ['--json', 'dict', 'upload', 'x.dcf']);
    assert.equal(o.code, 2, show(o));
    assert.equal(o.json().error, 'USAGE');
    assert.match(o.json().message, /--label/);
  } finally {
    await home.cleanup();
  }
});

test('sds --version prints the version and exits 0', () => {
  const r = runCli(null, ['--version']);
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout.trim(), /^sds \d+\.\d+\.\d+/);
});
