import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../src/shared/errors.js';
import { jobError, jobErrorLabel } from '../../../src/core/breakout/jobs/job-error.js';
import { parseThreads } from '../../../src/core/breakout/jobs/jobs.js';

test("a failed job's error.code is the spec's breakout code; the catalogue code goes in details", () => {
  for (const code of ['DB-001', 'DB-002', 'DB-003', 'DB-004', 'DB-005', 'DB_CONNECTION_ERROR'] as const) {
    const e = jobError(
      new AppError(code, 'cannot connect to PostgreSQL at 127.0.0.1:1/x', { target: '127.0.0.1:1/x', driverCode: 'ECONNREFUSED' }),
    );
    assert.equal(e.code, 'DB_CONNECTION_ERROR', code);
    assert.equal(e.message, 'cannot connect to PostgreSQL at 127.0.0.1:1/x');
    assert.equal(typeof e.details, 'string');
    assert.deepEqual(JSON.parse(e.details), { diagnostic: code, target: '127.0.0.1:1/x', driverCode: 'ECONNREFUSED' });
  }
  assert.equal(jobError(new AppError('BRK-001', 'x')).code, 'DICTIONARY_NOT_FOUND');
  assert.equal(jobError(new AppError('BRK-004', 'x')).code, 'TABLES_ALREADY_EXIST');
  assert.equal(jobError(new AppError('AUTH-004', 'x')).code, 'INSUFFICIENT_PERMISSIONS');
  assert.equal(jobError(new AppError('INVALID_THREADS', 'x')).code, 'INVALID_THREADS');
  // No breakout code names a name collision: it keeps its own.
  assert.equal(jobError(new AppError('NAME_COLLISION', 'x')).code, 'NAME_COLLISION');
});

test('the log label of a job error names both codes when they differ', () => {
  assert.equal(jobErrorLabel(jobError(new AppError('DB-002', 'refused'))), 'DB_CONNECTION_ERROR (DB-002)');
  assert.equal(jobErrorLabel(jobError(new AppError('NAME_COLLISION', 'x'))), 'NAME_COLLISION');
  assert.equal(jobErrorLabel({ code: 'BRK-002', message: 'died', details: 'not json' }), 'BRK-002');
});

test('threads: an integer 1 to 10; a string such as "2" is refused with INVALID_THREADS, as the docs say', () => {
  assert.equal(parseThreads(1), 1);
  assert.equal(parseThreads(10), 10);
  for (const bad of ['2', ' 3 ', '', 0, 11, 2.5, null, true]) {
    assert.throws(
      () => parseThreads(bad),
      (e: unknown) => e instanceof AppError && e.code === 'INVALID_THREADS',
      JSON.stringify(bad),
    );
  }
});
