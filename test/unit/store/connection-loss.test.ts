/**
 * Which failures of the PostgreSQL store's server become STORE_UNAVAILABLE
 * (docs/production.md#while-the-primary-is-away): the loss of the server, never an error of a
 * statement, whose code the repositories read (a unique violation, a serialization failure).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { storeUnavailableOr } from '../../../src/store/postgresql/connection-loss.js';
import { AppError } from '../../../src/shared/errors.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

test('a refused, reset or ended connection, or one that timed out, is STORE_UNAVAILABLE without the address', () => {
  for (const err of [
    withCode('connect ECONNREFUSED 10.1.2.3:5432', 'ECONNREFUSED'),
    withCode('read ECONNRESET', 'ECONNRESET'),
    withCode('terminating connection due to administrator command', '57P01'),
    withCode('the database system is starting up', '57P03'),
    withCode('connection failure', '08006'),
    new Error('Connection terminated unexpectedly'),
    new Error('Connection terminated due to connection timeout'),
    new Error('timeout exceeded when trying to connect'),
    new Error('timeout expired'),
    new Error('Query read timeout'),
  ]) {
    const out = storeUnavailableOr(err);
    assert.ok(out instanceof AppError && out.code === 'STORE_UNAVAILABLE', err.message);
    assert.equal(out.http, 503);
    assert.doesNotMatch(out.message, /10\.1\.2\.3/);
    assert.equal((out as Error & { cause?: unknown }).cause, err, 'the original error is kept for the log');
  }
});

test('a write refused by a read-only server (a standby, a demoted primary) is STORE_UNAVAILABLE saying so', () => {
  const err = withCode('cannot execute INSERT in a read-only transaction', '25006');
  const out = storeUnavailableOr(err);
  assert.ok(out instanceof AppError && out.code === 'STORE_UNAVAILABLE');
  assert.match(out.message, /takes no writes \(25006: a standby, or a primary being switched over\)/);
});

test('errors of a statement and AppErrors pass unchanged', () => {
  for (const err of [withCode('duplicate key', '23505'), withCode('could not serialize', '40001'), new Error('boom')]) {
    assert.equal(storeUnavailableOr(err), err);
  }
  const app = new AppError('NOT_FOUND', 'x');
  assert.equal(storeUnavailableOr(app), app);
});
