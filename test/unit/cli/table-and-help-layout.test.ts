/** The pure layout rules behind tables on pipes and help at 80 columns (docs/cli.md). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Help } from 'commander';
import { plainTables, table } from '../../../src/cli/render.js';
import { DEFAULT_HELP_WIDTH, formatHelpItem, helpWidth, MAX_TERM_WIDTH } from '../../../src/cli/help-layout.js';
import { SIGNAL_EXIT } from '../../../src/cli/interrupt.js';

test('a plain table is a header line and one tab-separated line per row; tabs and line breaks in cells become spaces', () => {
  assert.equal(
    table(
      ['a', 'b', 'c'],
      [
        [1, null, 'x\ty'],
        [true, undefined, 'two\r\nlines'],
      ],
      true,
    ),
    'a\tb\tc\n1\t\tx y\ntrue\t\ttwo lines',
  );
  assert.equal(table(['only'], [], true), 'only');
  const boxed = table(['a'], [['1']]);
  assert.match(boxed, /┌/);
  assert.doesNotMatch(boxed, /\t/);
});

test('tables are plain off a terminal or with --plain', () => {
  assert.equal(plainTables(undefined, true), false);
  assert.equal(plainTables(true, true), true);
  assert.equal(plainTables(undefined, false), true);
  assert.equal(plainTables(undefined, undefined), true);
});

test('help width: COLUMNS, else the terminal, else 80', () => {
  assert.equal(helpWidth({ COLUMNS: '100' }, { isTTY: true, columns: 120 }), 100);
  assert.equal(helpWidth({}, { isTTY: true, columns: 120 }), 120);
  assert.equal(helpWidth({}, { isTTY: false }), DEFAULT_HELP_WIDTH);
  assert.equal(helpWidth({ COLUMNS: 'wide' }, {}), 80);
});

test('a help item wraps at spaces within the width; a long term gets a line of its own', () => {
  const help = new Help();
  help.minWidthToWrap = 20;
  const desc = 'incremental breakout of one dictionary in the foreground: only cases changed since the last run';
  const short = formatHelpItem('logs [options]', 20, desc, help, 80).split('\n');
  assert.ok(
    short.every((l) => l.length <= 80),
    short.join('\n'),
  );
  assert.equal(short[0]!.indexOf('incremental'), 2 + 20 + 2);
  assert.deepEqual(short.join(' ').split(/\s+/).filter(Boolean), ['logs', '[options]', ...desc.split(' ')]);
  const term = 'process-cases-by-dict|service:process-cases-by-dict [options] <name>';
  const long = formatHelpItem(term, term.length, desc, help, 80).split('\n');
  assert.equal(long[0], `  ${term}`);
  assert.ok(
    long.slice(1).every((l) => l.startsWith(' '.repeat(2 + MAX_TERM_WIDTH + 2)) && l.length <= 80),
    long.join('\n'),
  );
});

test('an interrupted command exits 128 + the signal number', () => {
  assert.deepEqual(SIGNAL_EXIT, { SIGINT: 130, SIGTERM: 143 });
});
