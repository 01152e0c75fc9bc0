/** The durable file helpers (src/shared/durable-file.ts) on real files. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fsyncDirectory, fsyncFile, temporaryPathFor, writeFileDurably } from '../../../src/shared/durable-file.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'sds-durable-file-'));
}

test('writeFileDurably creates, then replaces a file whole, and leaves no temporary file behind', () => {
  const dir = tempDir();
  try {
    const path = join(dir, 'config.json');
    writeFileDurably(path, '{"a":1}\n');
    assert.equal(readFileSync(path, 'utf8'), '{"a":1}\n');
    const big = Buffer.alloc(3 * 1024 * 1024, 7);
    writeFileDurably(path, big);
    assert.deepEqual(readFileSync(path), big);
    assert.deepEqual(readdirSync(dir), ['config.json']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('writeFileDurably that cannot rename leaves the old file as it was and removes its temporary file', () => {
  const dir = tempDir();
  try {
    // A directory where the file should be: the rename over it fails (EISDIR / ENOTEMPTY).
    const path = join(dir, 'taken');
    mkdirSync(path);
    writeFileSync(join(path, 'inside'), 'x');
    assert.throws(() => writeFileDurably(path, 'new'), (err: NodeJS.ErrnoException) => typeof err.code === 'string');
    assert.deepEqual(readdirSync(dir), ['taken']);
    assert.equal(readFileSync(join(path, 'inside'), 'utf8'), 'x');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

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

test('the temporary name is in the same folder (a rename within one file system is atomic) and hidden', () => {
  const tmp = temporaryPathFor('/srv/sds/files/media/photo.jpg');
  assert.match(tmp, /^\/srv\/sds\/files\/media\/\.photo\.jpg\.\d+\.[0-9a-z]+\.tmp$/);
});
