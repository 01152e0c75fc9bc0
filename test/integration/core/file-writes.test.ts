import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { openFile, putFile } from '../../../src/core/files/files.js';
import { listClientFolder, openClientFile, putClientFile } from '../../../src/core/sync/files.js';
import { AppError } from '../../../src/shared/errors.js';
import { storeSql, tempStore } from '../../helpers/temp-home.js';
import { pendingUploads, putByHand, storedBytes, storedNames } from '../../helpers/stored-files.js';

const code =
  (c: string, check: (e: AppError) => void = () => {}) =>
  (e: unknown) => {
    assert.ok(e instanceof AppError, String(e));
    assert.equal(e.code, c, e.message);
    check(e);
    return true;
  };

async function readAll(s: AsyncIterable<unknown>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** A body of `n` chunks of `size` bytes that counts how many chunks were taken from it. */
function counted(n: number, size: number): { body: AsyncIterable<Buffer>; taken: () => number } {
  let taken = 0;
  return {
    body: (async function* () {
      for (let i = 0; i < n; i++) {
        taken++;
        yield Buffer.alloc(size, 0x61 + (i % 26));
      }
    })(),
    taken: () => taken,
  };
}

test('size limit: refused at the chunk that crosses it, 413 details {file, limit}, the old version and nothing else left', async () => {
  const { store, cleanup } = await tempStore();
  try {
    await putFile(store, 'paradata/log.zip', Readable.from([Buffer.from('old version')]));
    const { body, taken } = counted(100, 1000);
    await assert.rejects(
      putFile(store, 'paradata/log.zip', body, { maxBytes: 4500 }),
      code('PAYLOAD_TOO_LARGE', (e) => {
        assert.deepEqual(e.details, { file: 'paradata/log.zip', limit: 4500 });
        assert.match(e.message, /paradata\/log\.zip.*4500 bytes/);
      }),
    );
    assert.equal(taken(), 5, 'the body was not read past the chunk that crossed the limit');
    assert.equal((await storedBytes(store, 'media', 'paradata/log.zip'))?.toString(), 'old version');
    assert.deepEqual(await storedNames(store, 'media', 'paradata'), ['log.zip']);
    assert.equal(await pendingUploads(store), 0, 'no temporary file left');
    assert.equal((await store.files.find('paradata/log.zip'))!.size, 'old version'.length);
    // Exactly the limit is accepted.
    const exact = await putFile(store, 'paradata/log.zip', counted(3, 1500).body, { maxBytes: 4500 });
    assert.equal(exact.size, 4500);
  } finally {
    await cleanup();
  }
});

test('a wrong Content-MD5 or a body that fails midway: the old version stays, no temporary file', async () => {
  const { store, cleanup } = await tempStore();
  try {
    const writer = { username: 'interviewer', role: 'Standard User', filesWrite: false };
    await putClientFile(store, 'paradata/pds.txt', Readable.from([Buffer.from('uuid-1')]), { writer });
    await assert.rejects(
      putClientFile(store, 'paradata/pds.txt', Readable.from([Buffer.from('uuid-2')]), { writer, expectedMd5: '0'.repeat(32) }),
      code('CHECKSUM_MISMATCH'),
    );
    const failing = (async function* () {
      yield Buffer.from('half of a ');
      throw new AppError('USAGE', 'the upload was interrupted: aborted');
    })();
    await assert.rejects(putClientFile(store, 'paradata/pds.txt', failing, { writer }), code('USAGE'));
    assert.equal((await storedBytes(store, 'media', 'paradata/pds.txt'))?.toString(), 'uuid-1');
    assert.deepEqual(await storedNames(store, 'media', 'paradata'), ['pds.txt']);
    assert.equal(await pendingUploads(store), 0, 'no temporary file left');
    const md5 = createHash('md5').update('uuid-3').digest('hex');
    const ok = await putClientFile(store, 'media/paradata/pds.txt', Readable.from([Buffer.from('uuid-3')]), {
      writer,
      expectedMd5: md5.toUpperCase(),
    });
    assert.deepEqual(
      { ...ok, lastModified: undefined },
      { type: 'file', name: 'pds.txt', directory: 'paradata', md5, size: 6, lastModified: undefined },
    );
  } finally {
    await cleanup();
  }
});

test('overwrite rule in core: a field account may not replace an office file, may replace a field file; the row records the writer', async () => {
  const { store, cleanup } = await tempStore();
  try {
    const standard = { username: 'interviewer', role: 'Standard User', filesWrite: false };
    await putFile(store, 'photos/logo.jpg', Readable.from([Buffer.from([0xff, 0xd8, 0xff, 1])]));
    assert.deepEqual(
      [(await store.files.find('photos/logo.jpg'))!.writtenBy, (await store.files.find('photos/logo.jpg'))!.office],
      [null, true],
    );
    const denied = code('AUTH-004', (e) => {
      assert.equal(e.details.oauth_error, 'access_denied');
      assert.equal(e.details.permission, 'files.write');
    });
    await assert.rejects(putFile(store, 'photos/logo.jpg', Readable.from([Buffer.from('<script>')]), { writer: standard }), denied);
    assert.deepEqual(await storedBytes(store, 'media', 'photos/logo.jpg'), Buffer.from([0xff, 0xd8, 0xff, 1]));

    await putFile(store, 'photos/case-1.jpg', Readable.from([Buffer.from('v1')]), { writer: standard });
    assert.deepEqual(
      [(await store.files.find('photos/case-1.jpg'))!.writtenBy, (await store.files.find('photos/case-1.jpg'))!.office],
      ['interviewer', false],
    );
    await putFile(store, 'photos/case-1.jpg', Readable.from([Buffer.from('v2')]), {
      writer: { username: 'second', role: 'Standard User', filesWrite: false },
    });
    assert.equal((await store.files.find('photos/case-1.jpg'))!.writtenBy, 'second');
    // An API account takes the file over: from then on it is an office file.
    await putFile(store, 'photos/case-1.jpg', Readable.from([Buffer.from('v3')]), {
      writer: { username: 'integration', role: 'API', filesWrite: true },
    });
    assert.equal((await store.files.find('photos/case-1.jpg'))!.office, true);
    await assert.rejects(putFile(store, 'photos/case-1.jpg', Readable.from([Buffer.from('v4')]), { writer: standard }), denied);

    // A file put in the folder by hand (no metadata) is the office's too.
    await putByHand(store, 'media', 'by-hand.csv', 'a,b\n');
    await assert.rejects(putFile(store, 'by-hand.csv', Readable.from([Buffer.from('x')]), { writer: standard }), denied);
    // Rows from before migration 0014 count as office files.
    await storeSql(
      store,
      "INSERT INTO files (name, size, sha256, content_type, created_at, updated_at) VALUES ('old.pdf', 1, ?, 'application/pdf', 'x', 'x')",
      ['0'.repeat(64)],
    );
    assert.equal((await store.files.find('old.pdf'))!.office, true);

    // A folder of the path that is a file: PATH_INVALID, not an I/O error.
    await assert.rejects(putFile(store, 'by-hand.csv/inner.txt', Readable.from([Buffer.from('x')])), code('PATH_INVALID'));
  } finally {
    await cleanup();
  }
});

test('a snapshot keeps the version it opened: headers and bytes agree while the file is replaced', async () => {
  const { store, cleanup } = await tempStore();
  try {
    const v1 = Buffer.alloc(300_000, 0x31);
    const v2 = Buffer.alloc(70_000, 0x32);
    await putFile(store, 'media.bin', Readable.from([v1]));
    const media = await openFile(store, 'media.bin');
    const client = await openClientFile(store, 'media.bin');
    await putFile(store, 'media.bin', Readable.from([v2]));
    assert.equal(media.info.size, v1.length);
    assert.equal(media.info.sha256, createHash('sha256').update(v1).digest('hex'));
    assert.deepEqual(await readAll(media.snapshot.stream()), v1);
    assert.equal(client.info.md5, createHash('md5').update(v1).digest('hex'));
    assert.deepEqual(await readAll(client.snapshot.stream()), v1);
    // The next open sees the new version.
    const after = await openClientFile(store, 'media.bin');
    assert.equal(after.info.size, v2.length);
    assert.deepEqual(await readAll(after.snapshot.stream()), v2);
    const listed = await listClientFolder(store, '');
    assert.deepEqual(
      listed.map((e) => e.type === 'file' && [e.name, e.size, e.md5]),
      [['media.bin', v2.length, createHash('md5').update(v2).digest('hex')]],
    );
  } finally {
    await cleanup();
  }
});
