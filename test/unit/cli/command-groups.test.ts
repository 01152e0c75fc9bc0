/**
 * The lazy command groups of src/cli/main.ts (docs/cli.md#start-up-time): the names listed for a
 * group are exactly the top-level commands and aliases its module registers, every command of
 * the full program is in one group, and the command word of a line is found past global options.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { COMMAND_GROUPS, buildProgram, commandWord, loadCommandGroups } from '../../../src/cli/main.js';

const namesOf = (c: Command) => c.commands.flatMap((sub) => [sub.name(), ...sub.aliases()]);

test('each group lists exactly the commands its module registers, and together they are the program', async () => {
  const all: string[] = [];
  for (const group of COMMAND_GROUPS) {
    const program = new Command('sds');
    (await group.load())(program);
    assert.deepEqual(namesOf(program), [...group.names], `group ${group.names[0]}`);
    all.push(...group.names);
  }
  assert.equal(new Set(all).size, all.length, 'no command in two groups');
  assert.deepEqual(namesOf(buildProgram(await loadCommandGroups())).sort(), all.sort());
});

test('a command line loads the group it names; none, help, an unknown word or completion load all', async () => {
  assert.equal((await loadCommandGroups(['--home', '/srv/sds', 'dict', 'list'])).length, 1);
  assert.deepEqual(namesOf(buildProgram(await loadCommandGroups(['service:scheduler-run']))), [
    'schedule',
    'scheduler-run',
    'service:scheduler-run',
  ]);
  for (const args of [[], ['--help'], ['help', 'dict'], ['dcit'], ['completion', 'bash']]) {
    assert.equal((await loadCommandGroups(args)).length, COMMAND_GROUPS.length, args.join(' '));
  }
});

test('commandWord skips global options and the value of --home', () => {
  assert.equal(commandWord(['--home', 'dict', 'cases', 'list']), 'cases');
  assert.equal(commandWord(['--json', '-q', '--home=/x', 'dict']), 'dict');
  assert.equal(commandWord(['--', 'dict']), 'dict');
  assert.equal(commandWord(['--json']), undefined);
});
