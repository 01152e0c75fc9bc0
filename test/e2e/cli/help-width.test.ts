/**
 * Help fits 80 columns (issue 17, item 6): the real CLI's `--help` of every command, with
 * COLUMNS=80 and stdout a pipe, has no line over 80 characters, and no word was split: the words
 * are exactly those of the same help laid out 1000 columns wide (built in-process from the same
 * program, which is cheaper than a second process per command).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Command } from 'commander';
import { buildProgram, loadCommandGroups } from '../../../src/cli/main.js';
import { runCliAsync, show, type CliResult } from '../../helpers/run-cli.js';

/** Every command group: these tests read the whole command tree. */
const ALL_GROUPS = await loadCommandGroups();

/** `sds --help` and every visible command's, groups and subcommands included. */
function commandPaths(): string[][] {
  const out: string[][] = [[]];
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

/** Runs `fn` over `items`, at most `n` at a time (the CLI is a process each). */
async function pool<T, R>(items: T[], n: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

const words = (s: string) => s.split(/\s+/).filter(Boolean);

/** The help of a command laid out `width` columns wide, from the program built in this process. */
function helpAt(path: string[], width: number): string {
  const before = process.env.COLUMNS;
  process.env.COLUMNS = String(width);
  try {
    let cmd: Command = buildProgram(ALL_GROUPS);
    for (const name of path) cmd = cmd.commands.find((c) => c.name() === name)!;
    let text = '';
    cmd.configureOutput({ writeOut: (s) => (text += s) });
    cmd.outputHelp();
    return text;
  } finally {
    if (before === undefined) delete process.env.COLUMNS;
    else process.env.COLUMNS = before;
  }
}

test('every --help fits 80 columns, wrapped at word boundaries only', { timeout: 300_000 }, async () => {
  const paths = commandPaths();
  assert.ok(paths.length > 40, `only ${paths.length} commands found`);
  const results = await pool(paths, 3, async (p): Promise<[string[], CliResult]> => [
    p,
    await runCliAsync(null, [...p, '--help'], { env: { COLUMNS: '80' } }),
  ]);
  const long: string[] = [];
  for (const [p, narrow] of results) {
    const name = ['sds', ...p].join(' ');
    assert.equal(narrow.code, 0, `${name}: ${show(narrow)}`);
    assert.equal(narrow.stdout, helpAt(p, 80), `${name}: the CLI and the in-process program disagree`);
    long.push(
      ...narrow.stdout
        .split('\n')
        .filter((l) => l.length > 80)
        .map((l) => `${name}: ${l}`),
    );
    assert.deepEqual(words(narrow.stdout), words(helpAt(p, 1000)), `${name} --help: a word was split or lost when wrapped`);
  }
  assert.deepEqual(long, [], 'lines over 80 columns');
  // Wrapping did happen, at the spaces: the top-level help is longer at 80 columns than at 1000.
  const top80 = results[0]![1].stdout;
  assert.ok(top80.split('\n').length > helpAt([], 1000).split('\n').length, top80);
  assert.match(top80, /\n {2}process-cases-by-dict\|service:process-cases-by-dict \[options\] <name>\n {32}incremental breakout/);
});
