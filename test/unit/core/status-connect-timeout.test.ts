import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_STATUS_CONNECT_TIMEOUT_MS, statusConnectTimeout } from '../../../src/core/breakout/status.js';
import { AppError } from '../../../src/shared/errors.js';

test('status connect timeout: the flag, else SDS_STATUS_CONNECT_TIMEOUT_MS, else 3000; a bad value is refused, never defaulted', () => {
  assert.equal(statusConnectTimeout(undefined, {}), DEFAULT_STATUS_CONNECT_TIMEOUT_MS);
  assert.equal(statusConnectTimeout(undefined, { SDS_STATUS_CONNECT_TIMEOUT_MS: '250' }), 250);
  assert.equal(statusConnectTimeout('40', { SDS_STATUS_CONNECT_TIMEOUT_MS: '250' }), 40);
  assert.throws(
    () => statusConnectTimeout(undefined, { SDS_STATUS_CONNECT_TIMEOUT_MS: '3s' }),
    (e: unknown) => e instanceof AppError && e.code === 'CONFIG_INVALID' && /SDS_STATUS_CONNECT_TIMEOUT_MS .*"3s"/.test(e.message),
  );
  for (const bad of ['0', '-5', 'soon', '1.5']) {
    assert.throws(
      () => statusConnectTimeout(bad, {}),
      // Core names the setting; the flag is the CLI's to add (test/unit/cli/error-hints.test.ts).
      (e: unknown) =>
        e instanceof AppError && e.code === 'invalid_parameter' && e.message.includes('connect timeout') && !e.message.includes('--'),
      bad,
    );
  }
});
