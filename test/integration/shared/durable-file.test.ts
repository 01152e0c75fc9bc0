/** The durable file helpers (src/shared/durable-file.ts) on real files. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fsyncDirectory, fsyncFile } from '../../../src/shared/durable-file.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'sds-durable-file-'));
}

test('fsyncFile and fsyncDirectory sync existing paths and fail on missing ones', () => {
  const dir = tempDir();
  try {
    const file = join(dir, 'f');
    writeFileSync(file, 'data');
    fsyncFile(file);
    fsyncDirectory(dir);
    assert.throws(() => fsyncFile(join(dir, 'absent')), /ENOENT/);
    assert.throws(() => fsyncDirectory(join(dir, 'absent')), /ENOENT/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
