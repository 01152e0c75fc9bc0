import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prepareBlock, readmeBlocks } from '../helpers/readme-blocks.js';

const page = [
  '# Title',
  '```sh',
  'echo one',
  '```',
  '## Second',
  '```',
  'not shell',
  '```',
  '<!-- readme-test: skip (edits the crontab) -->',
  '```sh',
  'crontab -e',
  '```',
  '',
  '<!-- readme-test: background -->',
  '',
  '```sh',
  'sds serve &',
  '```',
  '```json',
  '{"a": 1}',
  '```',
].join('\n');

test('readmeBlocks: sh blocks in order with their heading, line, marker and reason; other fences ignored', () => {
  assert.deepEqual(readmeBlocks(page), [
    { line: 2, heading: 'Title', mode: 'run', code: 'echo one' },
    { line: 10, heading: 'Second', mode: 'skip', reason: 'edits the crontab', code: 'crontab -e' },
    { line: 16, heading: 'Second', mode: 'background', code: 'sds serve &' },
  ]);
});

test('readmeBlocks: a marker inside a code block is code, not a marker', () => {
  const blocks = readmeBlocks(['```text', '<!-- readme-test: skip (x) -->', '```', '```sh', 'ls', '```'].join('\n'));
  assert.deepEqual(blocks, [{ line: 4, heading: '', mode: 'run', code: 'ls' }]);
});

test('readmeBlocks: unknown markers, a skip without reason, stray or misplaced markers are errors', () => {
  assert.throws(() => readmeBlocks('<!-- readme-test: skipp (x) -->\n```sh\nls\n```'), /unknown readme-test marker "skipp \(x\)"/);
  assert.throws(() => readmeBlocks('<!-- readme-test: skip -->\n```sh\nls\n```'), /unknown readme-test marker "skip"/);
  assert.throws(() => readmeBlocks('<!-- readme-test: skip () -->\n```sh\nls\n```'), /unknown readme-test marker/);
  assert.throws(
    () => readmeBlocks('<!-- readme-test: background -->\nSome prose.\n```sh\nls\n```'),
    /line 1: readme-test marker not followed by a code block/,
  );
  assert.throws(() => readmeBlocks('text\n<!-- readme-test: background -->\n'), /line 2: readme-test marker not followed/);
  assert.throws(() => readmeBlocks('<!-- readme-test: background -->\n```json\n{}\n```'), /before a "json" block/);
  assert.throws(() => readmeBlocks('<!--readme-test skip-->\n```sh\nls\n```'), /malformed readme-test marker/);
  assert.throws(() => readmeBlocks('```sh\nls\n'), /line 1: code block is never closed/);
});

test('prepareBlock: drops the build, npm test and npm link, keeps the rest, replaces the port', () => {
  const code = [
    'npm ci && npm run build && ./bin/sds quickstart   # the main job',
    'npm test                                          # everything',
    'npm link                                          # or: alias sds="$PWD/bin/sds"',
    'sds serve --port 8080 &',
    'BASE=http://127.0.0.1:8080',
    'echo 18080 80801',
  ].join('\n');
  assert.equal(
    prepareBlock(code, 40123),
    ['./bin/sds quickstart   # the main job', 'sds serve --port 40123 &', 'BASE=http://127.0.0.1:40123', 'echo 18080 80801'].join('\n'),
  );
});

test('prepareBlock: any other npm command is refused, wherever it is on the line', () => {
  assert.throws(() => prepareBlock('npm install -g sds', 1), /does not know how to run: npm install -g sds/);
  assert.throws(() => prepareBlock('cd x && npm run bench', 1), /does not know how to run/);
  assert.equal(prepareBlock('echo "pnpm is not npm"', 1), 'echo "pnpm is not npm"');
});
