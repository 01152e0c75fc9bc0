/**
 * One definition per shape (docs/decisions.md): every schema file of src/http/schemas ties its
 * replies to the core types with the one helper of same-shape.ts; none keeps a copy of its own.
 * The tie itself is checked by the compiler (`npx tsc --noEmit -p .`); this keeps it in use.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';

const DIR = new URL('../../../src/http/schemas/', import.meta.url);
/**
 * Files without core replies: shared bodies, the helper itself, the CSWeb wire shapes (sync.ts),
 * which core writes as JSON text, and the export query (export.ts), whose reply is a file stream.
 */
const UNTIED = new Set(['common.ts', 'same-shape.ts', 'sync.ts', 'export.ts']);

test('every schema file ties its replies with same-shape.ts and defines no Same of its own', () => {
  for (const name of readdirSync(DIR).filter((n) => n.endsWith('.ts') && n !== 'same-shape.ts')) {
    const text = readFileSync(new URL(name, DIR), 'utf8');
    assert.doesNotMatch(text, /type Same</, `${name} defines its own Same; use same-shape.ts`);
    if (UNTIED.has(name)) continue;
    assert.match(text, /from '\.\/same-shape\.js'/, `${name} does not use same-shape.ts`);
    assert.match(text, /export const \w*[sS]chemasMatchCore\b/, `${name} has no schemasMatchCore tie`);
  }
});
