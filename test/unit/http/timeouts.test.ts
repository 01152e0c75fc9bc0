import { test } from 'node:test';
import assert from 'node:assert/strict';
import { httpConfig } from '../../../src/http/config.js';
import { DEFAULT_HTTP_TIMEOUTS, httpTimeouts } from '../../../src/http/timeouts.js';

test('slow-client timeouts: defaults near 30 s (headers, body) and 300 s (whole request)', () => {
  assert.deepEqual(httpTimeouts({}), { headersTimeoutMs: 30_000, bodyTimeoutMs: 30_000, requestTimeoutMs: 300_000 });
  assert.deepEqual(DEFAULT_HTTP_TIMEOUTS, httpTimeouts({}));
});

test('slow-client timeouts: the environment overrides the defaults, explicit values (config, flags) override both', () => {
  const env = { SDS_HTTP_HEADERS_TIMEOUT_MS: '1000', SDS_HTTP_BODY_TIMEOUT_MS: ' 2000 ', SDS_HTTP_REQUEST_TIMEOUT_MS: '0' };
  assert.deepEqual(httpTimeouts(env), { headersTimeoutMs: 1000, bodyTimeoutMs: 2000, requestTimeoutMs: 0 });
  assert.deepEqual(httpTimeouts(env, { bodyTimeoutMs: 500, headersTimeoutMs: undefined }), {
    headersTimeoutMs: 1000,
    bodyTimeoutMs: 500,
    requestTimeoutMs: 0,
  });
  assert.deepEqual(httpTimeouts({ SDS_HTTP_BODY_TIMEOUT_MS: '' }).bodyTimeoutMs, 30_000, 'an empty variable is unset');
  const c = httpConfig({ env, requestTimeoutMs: 9000 });
  assert.equal(c.headersTimeoutMs, 1000);
  assert.equal(c.requestTimeoutMs, 9000);
});

test('slow-client timeouts: a value that is not whole milliseconds is CONFIG_INVALID naming where it came from, never the default', () => {
  const refused = (f: () => unknown, field: RegExp) =>
    assert.throws(f, (e: Error & { code?: string }) => {
      assert.equal(e.code, 'CONFIG_INVALID');
      assert.match(e.message, field);
      return true;
    });
  refused(() => httpTimeouts({ SDS_HTTP_BODY_TIMEOUT_MS: '30s' }), /SDS_HTTP_BODY_TIMEOUT_MS.*"30s"/);
  refused(() => httpTimeouts({ SDS_HTTP_HEADERS_TIMEOUT_MS: '0' }), /SDS_HTTP_HEADERS_TIMEOUT_MS must be .* ≥ 1/);
  refused(() => httpTimeouts({ SDS_HTTP_REQUEST_TIMEOUT_MS: '-1' }), /SDS_HTTP_REQUEST_TIMEOUT_MS/);
  refused(() => httpTimeouts({}, { bodyTimeoutMs: 0 }), /bodyTimeoutMs/);
  refused(() => httpTimeouts({}, { headersTimeoutMs: 1.5 }), /headersTimeoutMs/);
  refused(() => httpConfig({ env: { SDS_HTTP_BODY_TIMEOUT_MS: 'soon' } }), /SDS_HTTP_BODY_TIMEOUT_MS/);
});
