/**
 * The escaping of docs/logs.md#control-characters, function by function, then the two places that
 * build lines from a request: the request line and the login event line.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeJsonLogLine, escapeLogText } from '../../../src/shared/log-escape.js';
import { requestLine } from '../../../src/http/request-log.js';
import { loginEventLine } from '../../../src/http/login-log.js';

/** Every character escapeLogText must not leave raw. */
const CONTROLS = [
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)),
  ...Array.from({ length: 0x21 }, (_, i) => String.fromCharCode(0x7f + i)),
  '\u2028',
  '\u2029',
];
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const RAW = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

test('escapeLogText writes each control character visibly and nothing else changes', () => {
  assert.equal(escapeLogText('/api/x\nFAKE-LINE 200 GET /admin'), '/api/x\\nFAKE-LINE 200 GET /admin');
  assert.equal(escapeLogText('a\r\n\tb'), 'a\\r\\n\\tb');
  assert.equal(escapeLogText('nul\u0000 esc\u001b[31m del\u007f'), 'nul\\x00 esc\\x1b[31m del\\x7f');
  assert.equal(escapeLogText('c1\u0085\u009b'), 'c1\\x85\\x9b');
  assert.equal(escapeLogText('ls\u2028ps\u2029'), 'ls\\u2028ps\\u2029');
  assert.equal(escapeLogText('hi\ud800 lo\udfff'), 'hi\\ud800 lo\\udfff');
  // A whole pair is a character like any other; so are accents, tabs' neighbours and backslashes.
  assert.equal(escapeLogText('😀 é ñ ~ \\n \u00a0'), '😀 é ñ ~ \\n \u00a0');
  assert.equal(escapeLogText('\ud83d\ud83d\ude00'), '\\ud83d😀', 'a lone high surrogate before a pair');
  assert.equal(escapeLogText('\ud83d\ude00\ude00'), '😀\\ude00', 'a lone low surrogate after a pair');
  for (const ch of CONTROLS) {
    const out = escapeLogText(`a${ch}b`);
    assert.ok(!RAW.test(out), `U+${ch.charCodeAt(0).toString(16)} left raw: ${JSON.stringify(out)}`);
    assert.equal(escapeLogText(out), out, 'escaping twice changes nothing');
  }
});

test('escapeJsonLogLine leaves a JSON line parsing to the same values, with no raw control character', () => {
  const value = { path: '/x\n\u0000\u007f\u0085\u2028\u2029\ud800\udfff😀"\\', n: 1 };
  const line = escapeJsonLogLine(JSON.stringify(value) + '\n');
  assert.ok(line.endsWith('}\n'));
  assert.ok(!RAW.test(line.slice(0, -1)), line);
  assert.deepEqual(JSON.parse(line), value);
  // The characters JSON.stringify leaves raw become \u escapes.
  assert.equal(escapeJsonLogLine('{"a":"\u007f\u0085\u2028"}'), '{"a":"\\u007f\\u0085\\u2028"}');
  assert.equal(escapeJsonLogLine('{"a":"\ud800"}'), '{"a":"\\ud800"}');
});

test('a request line is one line of six fields, whatever the path and account hold', () => {
  const line = requestLine({
    time: new Date('2026-06-30T12:00:00.123Z'),
    requestId: 'r',
    method: 'GET',
    route: null,
    path: '/api/x\nFAKE-LINE 200 GET /admin\u0000',
    status: 404,
    aborted: false,
    durationMs: 3,
    account: 'a b\u2028',
  });
  assert.equal(line, '2026-06-30T12:00:00.123Z GET /api/x\\nFAKE-LINE\\x20200\\x20GET\\x20/admin\\x00 404 3ms a\\x20b\\u2028');
  assert.equal(line.split(' ').length, 6);
});

test('a login event line quotes and escapes the user name as sent', () => {
  const line = loginEventLine({
    kind: 'failed',
    grant: 'password',
    username: 'eve\n2026-06-30T12:00:00.000Z auth login-ok\u0085\u2028\ud800',
    address: '127.0.0.1',
    at: Date.parse('2026-06-30T12:00:00.000Z'),
    reason: 'unknown user',
  });
  assert.equal(
    line,
    '2026-06-30T12:00:00.000Z auth login-failed grant=password ' +
      'user="eve\\n2026-06-30T12:00:00.000Z auth login-ok\\x85\\u2028\\ud800" address=127.0.0.1 reason="unknown user"',
  );
});
