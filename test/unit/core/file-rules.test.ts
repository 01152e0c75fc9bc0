import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mayReplace } from '../../../src/core/files/files.js';
import { contentTypeOf } from '../../../src/core/files/media-path.js';
import type { FileRow } from '../../../src/store/files-repo.js';

const row = (office: boolean): FileRow => ({
  name: 'photos/a.jpg',
  size: 1,
  sha256: '0'.repeat(64),
  contentType: 'image/jpeg',
  createdAt: '2025-01-15T09:00:00.000Z',
  updatedAt: '2025-01-15T09:00:00.000Z',
  writtenBy: office ? 'integration' : 'interviewer',
  office,
});

test('overwrite rule: files.write and the operator replace anything; a field account creates, and replaces field files only', () => {
  const standard = { username: 'interviewer', role: 'Standard User', filesWrite: false };
  for (const [existing, onDisk] of [
    [undefined, false],
    [undefined, true],
    [row(true), true],
    [row(false), true],
  ] as const) {
    assert.equal(mayReplace(existing, onDisk, undefined), true, 'the operator (CLI)');
    assert.equal(mayReplace(existing, onDisk, { username: 'ops', role: 'API', filesWrite: true }), true, 'API');
    assert.equal(mayReplace(existing, onDisk, { username: 'boss', role: 'Administrator', filesWrite: true }), true, 'Administrator');
  }
  assert.equal(mayReplace(undefined, false, standard), true, 'a new file');
  assert.equal(mayReplace(row(false), true, standard), true, 'a file a field account wrote');
  assert.equal(mayReplace(row(false), false, standard), true, 'a field file whose bytes are gone');
  assert.equal(mayReplace(row(true), true, standard), false, 'an office file');
  assert.equal(mayReplace(row(true), false, standard), false, 'an office row decides even with the bytes gone');
  assert.equal(mayReplace(undefined, true, standard), false, 'a file put in the folder by hand (no metadata)');
});

test('content type: the extension, kept only when the bytes carry the type signature', () => {
  const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
  const script = Buffer.from('<script>alert(1)</script>');
  assert.equal(contentTypeOf('a.jpg'), 'image/jpeg', 'no bytes: the name decides (metadata listings)');
  assert.equal(contentTypeOf('a.JPG', jpeg), 'image/jpeg');
  assert.equal(contentTypeOf('a.jpg', script), 'application/octet-stream');
  assert.equal(contentTypeOf('a.jpg', Buffer.alloc(0)), 'application/octet-stream', 'an empty file is no image');
  assert.equal(contentTypeOf('a.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'image/png');
  assert.equal(contentTypeOf('a.png', jpeg), 'application/octet-stream');
  assert.equal(contentTypeOf('a.gif', Buffer.from('GIF89a....')), 'image/gif');
  assert.equal(contentTypeOf('a.webp', Buffer.from('RIFF\0\0\0\0WEBP')), 'image/webp');
  assert.equal(contentTypeOf('a.wav', Buffer.from('RIFF\0\0\0\0WEBP')), 'application/octet-stream');
  assert.equal(contentTypeOf('a.pdf', Buffer.from('%PDF-1.7')), 'application/pdf');
  assert.equal(contentTypeOf('a.zip', Buffer.from('PK\x03\x04', 'latin1')), 'application/zip');
  assert.equal(contentTypeOf('a.zip', Buffer.from('PK\x05\x06', 'latin1')), 'application/zip', 'an empty zip');
  assert.equal(contentTypeOf('a.m4a', Buffer.from('\0\0\0\x20ftypM4A ', 'latin1')), 'audio/mp4');
  assert.equal(contentTypeOf('a.txt', script), 'text/plain', 'types without a signature keep the extension');
  assert.equal(contentTypeOf('a.unknown', jpeg), 'application/octet-stream');
});
