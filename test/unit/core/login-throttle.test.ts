import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  admission,
  afterCharge,
  afterClear,
  afterFailure,
  afterGiveBack,
  afterSettledFailure,
  blockLength,
  userKeyName,
} from '../../../src/core/auth/login-throttle.js';
import { DEFAULT_LOGIN_THROTTLE, loginGuardSettings } from '../../../src/core/auth/login-throttle-policy.js';
import { AppError } from '../../../src/shared/errors.js';

const P = {
  maxFailuresPerUser: 3,
  maxFailuresPerAddress: 10,
  windowMs: 600_000,
  blockMs: 60_000,
  maxBlockMs: 200_000,
  maxWaiting: 2,
  attemptTimeoutMs: 60_000,
  waitRecheckMs: 250,
};

test('afterFailure: counts in a window, blocks at the limit, doubles each further block up to the cap, forgets after a quiet window', () => {
  let s = afterFailure(undefined, 0, 3, P);
  assert.deepEqual(s, { failures: 1, windowStart: 0, blockedUntil: 0, strikes: 0, lastFailureAt: 0 });
  s = afterFailure(s, 1000, 3, P);
  s = afterFailure(s, 2000, 3, P);
  assert.deepEqual(s, { failures: 3, windowStart: 0, blockedUntil: 62_000, strikes: 1, lastFailureAt: 2000 });
  s = afterFailure(s, 62_000, 3, P);
  assert.equal(s.blockedUntil, 62_000 + 120_000);
  s = afterFailure(s, 182_000, 3, P);
  assert.equal(s.blockedUntil, 182_000 + 200_000, 'capped at maxBlockMs');
  s = afterFailure(s, 382_000, 3, P);
  assert.equal(s.failures, 6, 'still inside the window opened at 0');
  assert.equal(s.strikes, 4);
  // Once the window (600 s from 0) lapses, failures restart below the limit; the strikes stay.
  s = afterFailure(s, 600_000, 3, P);
  assert.equal(s.failures, 1);
  assert.equal(s.windowStart, 600_000);
  assert.equal(s.blockedUntil, 582_000, 'no new block');
  assert.equal(s.strikes, 4);
  // A whole quiet window after the last failure forgets the strikes too.
  s = afterFailure(s, 600_000 + 600_000, 3, P);
  assert.deepEqual(s, { failures: 1, windowStart: 1_200_000, blockedUntil: 0, strikes: 0, lastFailureAt: 1_200_000 });
});

test('blockLength and userKeyName', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 40].map((n) => blockLength(n, P)),
    [60_000, 120_000, 200_000, 200_000, 200_000],
  );
  assert.equal(userKeyName('Alice'), 'alice');
  assert.equal(userKeyName('x'.repeat(500)).length, 64);
});

test('loginGuardSettings: environment over config.json over defaults; bad values are CONFIG_INVALID', () => {
  assert.deepEqual(loginGuardSettings({}, {}), { throttle: DEFAULT_LOGIN_THROTTLE, trustedProxies: [] });
  const file = { login_throttle: { max_failures_per_user: 7, window_seconds: 60 }, trusted_proxies: ['10.0.0.1'] };
  const fromFile = loginGuardSettings(file, {});
  assert.equal(fromFile.throttle.maxFailuresPerUser, 7);
  assert.equal(fromFile.throttle.windowMs, 60_000);
  assert.equal(fromFile.throttle.maxFailuresPerAddress, DEFAULT_LOGIN_THROTTLE.maxFailuresPerAddress);
  assert.deepEqual(fromFile.trustedProxies, ['10.0.0.1']);
  const fromEnv = loginGuardSettings(file, {
    SDS_LOGIN_MAX_FAILURES_PER_USER: '4',
    SDS_LOGIN_BLOCK_SECONDS: '30',
    SDS_TRUSTED_PROXIES: '127.0.0.1, ::1',
  });
  assert.equal(fromEnv.throttle.maxFailuresPerUser, 4);
  assert.equal(fromEnv.throttle.blockMs, 30_000);
  assert.deepEqual(fromEnv.trustedProxies, ['127.0.0.1', '::1']);
  const bad = (f: Record<string, unknown>, env: NodeJS.ProcessEnv, re: RegExp) =>
    assert.throws(
      () => loginGuardSettings(f, env),
      (e: unknown) => e instanceof AppError && e.code === 'CONFIG_INVALID' && re.test(e.message),
    );
  bad({}, { SDS_LOGIN_WINDOW_SECONDS: '0' }, /SDS_LOGIN_WINDOW_SECONDS/);
  bad({}, { SDS_LOGIN_WINDOW_SECONDS: '1.5' }, /whole number/);
  bad({ login_throttle: { max_failures_per_user: -1 } }, {}, /login_throttle\.max_failures_per_user/);
  bad({ login_throttle: { max_failure: 3 } }, {}, /not a setting/);
  bad({ login_throttle: [] }, {}, /must be an object/);
  bad({ login_throttle: { block_seconds: 100, max_block_seconds: 50 } }, {}, /max_block_seconds/);
  bad({ trusted_proxies: '127.0.0.1' }, {}, /trusted_proxies/);
});

test('admission: blocked refuses; a charge past the limit waits while others are in flight, else it is charged (one probe after a block)', () => {
  const at = (failures: number, blockedUntil = 0) => ({
    failures,
    windowStart: 0,
    blockedUntil,
    strikes: blockedUntil ? 1 : 0,
    lastFailureAt: 0,
  });
  assert.deepEqual(admission(at(3, 5000), 1000, 3, 0, P), { kind: 'blocked', until: 5000 });
  assert.equal(admission(at(2), 1000, 3, 2, P).kind, 'charge', 'the 3rd charge fits the limit of 3');
  assert.equal(admission(at(3), 1000, 3, 1, P).kind, 'wait', 'a 4th waits while one is in flight');
  const probe = admission(at(3), 70_000, 3, 0, P);
  assert.deepEqual(
    probe,
    { kind: 'charge', next: { failures: 4, windowStart: 0, blockedUntil: 0, strikes: 0, lastFailureAt: 70_000 } },
    'nothing in flight: charged, not blocked',
  );
  // A lapsed window starts afresh but keeps the charges of the attempts still in flight.
  assert.deepEqual(afterCharge(at(3), 600_000, P, 2), {
    failures: 3,
    windowStart: 600_000,
    blockedUntil: 0,
    strikes: 0,
    lastFailureAt: 600_000,
  });
});

test('afterSettledFailure blocks on settled failures only; afterClear keeps the charges in flight; afterGiveBack restores', () => {
  const charged = { failures: 3, windowStart: 0, blockedUntil: 0, strikes: 0, lastFailureAt: 0 };
  assert.equal(afterSettledFailure(charged, 10, 3, 2, P).blockedUntil, 0, '1 settled, 2 in flight');
  assert.equal(afterSettledFailure(charged, 10, 3, 1, P).blockedUntil, 0, '2 settled');
  assert.deepEqual(afterSettledFailure(charged, 10, 3, 0, P), { ...charged, strikes: 1, blockedUntil: 60_010 });
  assert.deepEqual(
    afterSettledFailure(undefined, 10, 3, 0, P),
    { failures: 1, windowStart: 10, blockedUntil: 0, strikes: 0, lastFailureAt: 10 },
    'removed meanwhile: counted afresh',
  );
  assert.equal(afterClear(charged, 10, 0), null);
  assert.deepEqual(afterClear({ ...charged, strikes: 2, blockedUntil: 99 }, 10, 2), {
    failures: 2,
    windowStart: 0,
    blockedUntil: 0,
    strikes: 0,
    lastFailureAt: 0,
  });
  const before = { failures: 1, windowStart: 0, blockedUntil: 0, strikes: 0, lastFailureAt: 0 };
  const after = { ...before, failures: 2, lastFailureAt: 5 };
  assert.deepEqual(afterGiveBack(after, before, after), before, 'untouched since the charge: as it was');
  assert.deepEqual(afterGiveBack({ ...after, failures: 3 }, before, after), { ...after, failures: 2 }, 'touched: one less');
  assert.equal(afterGiveBack({ ...after, failures: 1, windowStart: 7 }, undefined, after), null, 'nothing left: gone');
});

test('loginGuardSettings: max_waiting', () => {
  assert.equal(DEFAULT_LOGIN_THROTTLE.maxWaiting, 200);
  assert.equal(loginGuardSettings({ login_throttle: { max_waiting: 50 } }, {}).throttle.maxWaiting, 50);
  assert.equal(loginGuardSettings({ login_throttle: { max_waiting: 50 } }, { SDS_LOGIN_MAX_WAITING: '7' }).throttle.maxWaiting, 7);
  assert.throws(() => loginGuardSettings({}, { SDS_LOGIN_MAX_WAITING: '0' }), /SDS_LOGIN_MAX_WAITING must be a whole number/);
});
