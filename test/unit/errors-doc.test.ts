import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { renderErrorDocs } from '../../scripts/error-docs.js';
import { AppError, ERROR_CODES, EXIT, formatLocation } from '../../src/shared/errors.js';

test('docs/errors.md lists exactly the codes of the registry', () => {
  assert.equal(readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8'), renderErrorDocs());
});

test('every code maps to a known exit code and an HTTP error status', () => {
  const exits = new Set<number>(Object.values(EXIT));
  for (const [code, spec] of Object.entries(ERROR_CODES)) {
    assert.ok(exits.has(spec.exit), code);
    assert.ok(spec.http >= 400 && spec.http < 600, code);
  }
  const e = new AppError('TABLES_ALREADY_EXIST', 'x');
  assert.equal(e.http, 409);
  assert.equal(e.exit, 4);
});

test('locations read as file:line (item, case)', () => {
  assert.equal(formatLocation({ file: 'a.dat', line: 12, item: 'P03_AGE', case: '0101' }), 'a.dat:12 (item P03_AGE, case 0101)');
  assert.equal(formatLocation({ path: 'levels[0].name' }), '(at levels[0].name)');
});
