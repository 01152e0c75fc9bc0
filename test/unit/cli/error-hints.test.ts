/** The CLI's hints: core errors say what is wrong; the CLI adds the flag or command that fixes it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliHint, withCliHint } from '../../../src/cli/error-hints.js';
import { AppError } from '../../../src/shared/errors.js';

test('a command hint by code, from the structured details', () => {
  const e = (code: ConstructorParameters<typeof AppError>[0], details: Record<string, unknown>) =>
    withCliHint(new AppError(code, 'm', details)).message;
  assert.equal(e('SCHEDULE_NOT_FOUND', { dictionary: 'D' }), 'm; add one with: sds schedule add D');
  assert.equal(e('SCHEDULE_EXISTS', { dictionary: 'D' }), 'm; change it with: sds schedule update D');
  assert.equal(e('TARGET_NOT_CONFIGURED', { dictionary: 'D' }), 'm: sds target set D --type ...');
  assert.equal(e('DICT_IN_USE', { dictionary: 'D', tables: ['t'] }), 'm (sds breakout drop D)');
  // The refusal for cases is not fixed by dropping tables.
  assert.equal(e('DICT_IN_USE', { dictionary: 'D', cases: 3 }), 'm');
  assert.equal(
    e('NOT_FOUND', { dictionary: 'D', suggestion: 'run a breakout of D first' }),
    'm; run a breakout of D first: sds breakout start D',
  );
  assert.equal(e('NOT_FOUND', { dictionary: 'D', case: 'x' }), 'm');
  // A schedule named by id has no dictionary to name.
  assert.equal(e('SCHEDULE_NOT_FOUND', { schedule_id: 4 }), 'm');
});

test('a flag hint from the settings an error names; unknown settings add nothing', () => {
  assert.equal(cliHint(new AppError('USAGE', 'm', { settings: ['port'] })), ' (option --port)');
  assert.equal(cliHint(new AppError('USAGE', 'm', { settings: ['url', 'host', 'database'] })), ' (options --url, --host, --database)');
  assert.equal(cliHint(new AppError('USAGE', 'm', { settings: ['nothing-we-know'] })), undefined);
  assert.equal(cliHint(new AppError('USAGE', 'm', { field: 'port' })), undefined);
  const hinted = withCliHint(new AppError('USAGE', 'the port must be a whole number', { field: 'port', settings: ['port'] }));
  assert.equal(hinted.code, 'USAGE');
  assert.deepEqual(hinted.details, { field: 'port', settings: ['port'] });
});

test('no core message names a CLI flag or an sds command (messages say what is wrong)', async () => {
  const { readdirSync, readFileSync, statSync } = await import('node:fs');
  const { join } = await import('node:path');
  const root = new URL('../../../src/', import.meta.url).pathname;
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : n.endsWith('.ts') ? [join(dir, n)] : []));
  const wrong: string[] = [];
  for (const layer of ['core', 'breakout', 'scheduler', 'webhooks', 'sync']) {
    for (const file of files(join(root, layer))) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/^\s*(\*|\/\/|\/\*)/.test(line)) return;
          // Messages are thrown or returned as strings: a flag or a command inside a string literal.
          if (/new AppError\(|message:|suggestion:/.test(line) && /['`"][^'`"]*(\s--[a-z]|\bsds (?!home|for|honours)[a-z])/.test(line))
            wrong.push(`${file.slice(root.length)}:${i + 1}: ${line.trim()}`);
        });
    }
  }
  assert.deepEqual(wrong, []);
});
