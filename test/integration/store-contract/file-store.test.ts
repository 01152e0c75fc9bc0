/**
 * The file store contract (docs/architecture.md#the-file-store-contract) on both stores: the
 * home's folders for SQLite, blob tables for PostgreSQL. A version is put in place whole; a
 * refused or failed write leaves the old one and nothing of its own; readers keep the version
 * they opened; writers of one name take turns; content is chunked and deduplicated on PostgreSQL,
 * and what no name holds any more is swept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as tick, setTimeout as sleep } from 'node:timers/promises';
import { testOnBothStores } from '../../helpers/store-kinds.js';
import { onPostgresStore } from '../../helpers/store-races.js';
import type { FileSnapshot, FileStore, StagedFile } from '../../../src/store/file-store-contract.js';
import type { PgFileStore } from '../../../src/store/file-store/postgresql/file-store.js';
import type { PostgresStore } from '../../../src/store/postgresql/pg-store.js';
import { openPostgresStore } from '../../../src/store/postgresql/open-postgres-store.js';
import { CHUNK_BYTES } from '../../../src/store/file-store/postgresql/blob-writer.js';

const md5 = (b: Buffer | string) => createHash('md5').update(b).digest('hex');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** A body sent in parts of `part` bytes, as a request body arrives. */
function body(bytes: Buffer, part = 64 * 1024): AsyncIterable<Buffer> {
  return (async function* () {
    for (let i = 0; i < bytes.length; i += part) yield bytes.subarray(i, i + part);
  })();
}

async function bytesOf(snap: FileSnapshot | 'directory' | undefined): Promise<Buffer> {
  assert.ok(snap !== undefined && snap !== 'directory', 'a file is there');
  const parts: Buffer[] = [];
  for await (const p of snap.stream()) parts.push(p as Buffer);
  return Buffer.concat(parts);
}

async function put(fs: FileStore, name: string, content: Buffer | string): Promise<StagedFile> {
  const staged = await fs.stage('media', name, body(Buffer.from(content)), { file: name });
  await fs.commit(staged);
  return staged;
}

testOnBothStores('file store: a version of several chunks is staged, put in place, opened, listed and removed', async (store) => {
  const fs = store.fileStore;
  // Two and a half chunks of the PostgreSQL store, sent in parts that do not fall on chunk edges.
  const big = randomBytes(CHUNK_BYTES * 2 + CHUNK_BYTES / 2);
  assert.equal(await fs.open('media', 'photos/big.jpg'), undefined);
  const staged = await fs.stage('media', 'photos/big.jpg', body(big, 100_003), { file: 'photos/big.jpg', expectedMd5: md5(big) });
  assert.deepEqual(
    { size: staged.size, md5: staged.md5, sha256: staged.sha256, head: staged.head },
    { size: big.length, md5: md5(big), sha256: sha256(big), head: big.subarray(0, 12) },
  );
  assert.equal(await fs.open('media', 'photos/big.jpg'), undefined, 'not in place before the commit');
  const recorded = await fs.commit(staged, { mtimeMs: Date.UTC(2024, 3, 1), record: async () => 'recorded' });
  assert.deepEqual(recorded, { result: 'recorded', written: true });

  const snap = await fs.open('media', 'photos/big.jpg');
  assert.ok(snap !== undefined && snap !== 'directory');
  assert.deepEqual({ size: snap.size, md5: snap.md5, sha256: snap.sha256 }, { size: big.length, md5: md5(big), sha256: sha256(big) });
  assert.equal(Math.floor(snap.mtimeMs / 1000), Date.UTC(2024, 3, 1) / 1000);
  assert.ok((await bytesOf(snap)).equals(big));
  assert.deepEqual(await fs.stat('media', 'photos/big.jpg'), { size: big.length, mtimeMs: snap.mtimeMs });

  await put(fs, 'photos/small.txt', 'small');
  await put(fs, 'top.txt', 'top');
  assert.equal(await fs.open('media', 'photos'), 'directory');
  assert.equal(await fs.stat('media', 'photos'), 'directory');
  assert.equal(await fs.present('media', 'photos', 'photos'), 'directory');
  assert.equal(await fs.present('media', 'top.txt', 'top.txt'), 'file');
  assert.equal(await fs.present('media', 'none.txt', 'none.txt'), undefined);
  await assert.rejects(fs.present('media', 'top.txt/inner.txt', 'top.txt/inner.txt'), { code: 'PATH_INVALID' });
  const sorted = (l: { name: string; type: string }[] | undefined) => l?.sort((a, b) => a.name.localeCompare(b.name));
  assert.deepEqual(sorted(await fs.list('media', '')), [
    { name: 'photos', type: 'directory' },
    { name: 'top.txt', type: 'file' },
  ]);
  assert.deepEqual(sorted(await fs.list('media', 'photos')), [
    { name: 'big.jpg', type: 'file' },
    { name: 'small.txt', type: 'file' },
  ]);
  assert.equal(await fs.list('media', 'nowhere'), undefined);
  assert.equal(await fs.list('media', 'top.txt'), undefined);

  let recordedRemoval = false;
  assert.equal(await fs.remove('media', 'photos/big.jpg', { record: async () => void (recordedRemoval = true) }), true);
  assert.ok(recordedRemoval);
  assert.equal(await fs.open('media', 'photos/big.jpg'), undefined);
  assert.equal(await fs.remove('media', 'photos/big.jpg'), false);
  // Areas are apart: the same name in another area is another file.
  assert.equal(await fs.open('apps', 'top.txt'), undefined);
});

testOnBothStores('file store: the logs area holds finished job and run logs; on SQLite it is logs/breakout/', async (store, kind) => {
  const fs = store.fileStore;
  const log = Buffer.from('2026-01-01T00:00:00.000Z CEN2000: full breakout into sqlite:popstan.sqlite\n');
  const staged = await fs.stage('logs', 'job-j1.log', body(log), { file: 'job-j1.log' });
  await fs.commit(staged, { mtimeMs: Date.UTC(2026, 0, 1) });
  assert.ok((await bytesOf(await fs.open('logs', 'job-j1.log'))).equals(log));
  assert.deepEqual(await fs.stat('logs', 'job-j1.log'), { size: log.length, mtimeMs: Date.UTC(2026, 0, 1) });
  assert.deepEqual(await fs.list('logs', ''), [{ name: 'job-j1.log', type: 'file' }]);
  assert.equal(await fs.open('media', 'job-j1.log'), undefined, 'areas are apart');
  // The capability the log code asks (core/logs/log-files.ts): the local store keeps the area in the home.
  assert.equal(fs.homeFolder('logs'), kind === 'sqlite' ? store.home.breakoutLogs : undefined);
  assert.equal(existsSync(join(store.home.breakoutLogs, 'job-j1.log')), kind === 'sqlite');
  assert.equal(await fs.remove('logs', 'job-j1.log'), true);
  assert.equal(await fs.open('logs', 'job-j1.log'), undefined);
  assert.deepEqual(await fs.list('logs', ''), []);
});

testOnBothStores('file store: a reader keeps the version it opened while the name is replaced', async (store) => {
  const fs = store.fileStore;
  const v1 = randomBytes(CHUNK_BYTES + 10);
  const v2 = randomBytes(CHUNK_BYTES * 2 + 7);
  await put(fs, 'paradata/log.zip', v1);
  const before = await fs.open('media', 'paradata/log.zip');
  await put(fs, 'paradata/log.zip', v2);
  assert.ok((await bytesOf(before)).equals(v1), 'the old version, whole');
  const after = await fs.open('media', 'paradata/log.zip');
  assert.ok(after !== undefined && after !== 'directory');
  assert.equal(after.md5, md5(v2));
  assert.ok((await bytesOf(after)).equals(v2));
});

testOnBothStores('file store: a refused or failed write leaves the old version and nothing of its own', async (store) => {
  const fs = store.fileStore;
  await put(fs, 'a.txt', 'old version');
  const tooBig = randomBytes(CHUNK_BYTES + 1);
  await assert.rejects(fs.stage('media', 'a.txt', body(tooBig), { file: 'a.txt', maxBytes: CHUNK_BYTES }), { code: 'PAYLOAD_TOO_LARGE' });
  await assert.rejects(fs.stage('media', 'a.txt', body(Buffer.from('new')), { file: 'a.txt', expectedMd5: md5('other') }), {
    code: 'CHECKSUM_MISMATCH',
  });
  // A client that goes away mid-body.
  const cut = (async function* () {
    yield randomBytes(CHUNK_BYTES + 5);
    throw new Error('the client went away');
  })();
  await assert.rejects(fs.stage('media', 'a.txt', cut, { file: 'a.txt' }));
  // The overwrite check refuses in the name's turn: the staged version is dropped.
  const staged = await fs.stage('media', 'a.txt', body(Buffer.from('refused')), { file: 'a.txt' });
  await assert.rejects(
    fs.commit(staged, {
      check: async (_scope, present) => {
        assert.equal(present, 'file');
        throw Object.assign(new Error('refused'), { code: 'AUTH-004' });
      },
    }),
    { code: 'AUTH-004' },
  );
  // A staged version dropped by its writer.
  await fs.discard(await fs.stage('media', 'b.txt', body(Buffer.from('b')), { file: 'b.txt' }));
  assert.equal((await bytesOf(await fs.open('media', 'a.txt'))).toString(), 'old version');
  assert.deepEqual(await fs.list('media', ''), [{ name: 'a.txt', type: 'file' }], 'nothing left of the refused writes');
  const swept = await fs.removeStale({ now: Date.now(), maxAgeMs: 0, selfPid: process.pid, alive: () => true });
  assert.deepEqual(swept.removed, [], 'no temporary upload was left behind');
});

testOnBothStores('file store: content-addressed names keep the version they have', async (store) => {
  const fs = store.fileStore;
  const content = Buffer.from('photo bytes');
  const name = `dict/${md5(content)}`;
  const first = await fs.stage('binary-items', name, body(content), { file: name, expectedMd5: md5(content) });
  assert.equal((await fs.commit(first, { keepExisting: true })).written, true);
  const again = await fs.stage('binary-items', name, body(content), { file: name, expectedMd5: md5(content) });
  assert.equal((await fs.commit(again, { keepExisting: true })).written, false);
  assert.ok((await bytesOf(await fs.open('binary-items', name))).equals(content));
});

testOnBothStores('file store: writers of one name take turns from the check to the commit', async (store, kind) => {
  const fs = store.fileStore;
  const events: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let firstChecking!: () => void;
  const checking = new Promise<void>((resolve) => (firstChecking = resolve));
  const a = await fs.stage('media', 'shared.txt', body(Buffer.from('first')), { file: 'shared.txt' });
  const b = await fs.stage('media', 'shared.txt', body(Buffer.from('second')), { file: 'shared.txt' });
  const first = fs.commit(a, {
    check: async (_s, present) => {
      events.push(`first sees ${present ?? 'nothing'}`);
      firstChecking();
      await released;
    },
  });
  await checking;
  const second = fs.commit(b, { check: async (_s, present) => void events.push(`second sees ${present ?? 'nothing'}`) });
  // Let the second go as far as it can: it must not reach its check while the first holds the name.
  // On PostgreSQL it is seen waiting for the name's advisory lock (polls counted, not the clock).
  if (kind === 'postgresql') {
    const pool = (store as PostgresStore).pool;
    for (let polls = 0; ; polls++) {
      assert.ok(polls < 1000, 'the second writer neither waited nor ended');
      const r = await pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      if (r.rows[0]!.n > 0) break;
      await sleep(5);
    }
  } else for (let i = 0; i < 50; i++) await tick();
  events.push('first released');
  release();
  await Promise.all([first, second]);
  assert.deepEqual(events, ['first sees nothing', 'first released', 'second sees file']);
  assert.equal((await bytesOf(await fs.open('media', 'shared.txt'))).toString(), 'second');
});

test('file store on PostgreSQL: one blob per content, chunked; a version no name holds is swept', async () => {
  await onPostgresStore(async (store) => {
    const fs = store.fileStore as PgFileStore;
    const count = async (sql: string) => (await store.pool.query<{ n: number }>(sql)).rows[0]!.n;
    const content = randomBytes(CHUNK_BYTES * 3 + 1);
    await put(fs, 'a.bin', content);
    await put(fs, 'copy/a.bin', content);
    assert.equal(await count('SELECT count(*)::int AS n FROM file_blobs'), 1, 'the same bytes are stored once');
    assert.equal(await count('SELECT count(*)::int AS n FROM file_blob_chunks'), 4, 'in chunks of 1 MiB');
    assert.equal(await count('SELECT max(length(bytes))::int AS n FROM file_blob_chunks'), CHUNK_BYTES);

    // Replacing one name leaves the blob the other still holds.
    fs.orphanGraceMs = 0;
    await put(fs, 'a.bin', 'new');
    assert.ok((await bytesOf(await fs.open('media', 'copy/a.bin'))).equals(content));
    assert.equal(await count('SELECT count(*)::int AS n FROM file_blobs WHERE orphaned_ms IS NOT NULL'), 0);
    // The last name lets go: the blob is orphaned in that transaction, and swept past its grace.
    await fs.remove('media', 'copy/a.bin');
    assert.equal(await count(`SELECT count(*)::int AS n FROM file_blobs WHERE size = ${content.length}`), 0, 'swept at once with no grace');
    assert.equal(await count('SELECT count(*)::int AS n FROM file_blob_chunks'), 1, 'only the chunk of "new" is left');

    // With a grace, an orphan waits for it: a download that opened it still reads it whole.
    fs.orphanGraceMs = 60 * 60 * 1000;
    const opened = await fs.open('media', 'a.bin');
    await put(fs, 'a.bin', 'newer');
    assert.equal((await bytesOf(opened)).toString(), 'new');
    assert.equal(await count('SELECT count(*)::int AS n FROM file_blobs WHERE orphaned_ms IS NOT NULL'), 1);
    const swept = await fs.removeStale({ now: Date.now() + 2 * 60 * 60 * 1000, maxAgeMs: 1000, selfPid: process.pid, alive: () => true });
    assert.equal(swept.removed.length, 1, JSON.stringify(swept));
    assert.equal(await count('SELECT count(*)::int AS n FROM file_blobs'), 1);

    // A metadata write that fails rolls the commit back: the old version stays in place, and the
    // upload's blob is dropped.
    const failing = await fs.stage('media', 'a.bin', body(Buffer.from('never')), { file: 'a.bin' });
    await assert.rejects(
      fs.commit(failing, {
        record: async () => {
          throw new Error('the metadata could not be written');
        },
      }),
      /metadata could not be written/,
    );
    assert.equal((await bytesOf(await fs.open('media', 'a.bin'))).toString(), 'newer');
    assert.equal(await count('SELECT count(*)::int AS n FROM file_blobs WHERE sha256 IS NULL'), 0);

    // An upload a crash cut (chunks, no name): kept while its writer lives, swept once it is gone.
    await store.pool.query(
      `WITH b AS (INSERT INTO file_blobs (writer, touched_ms) VALUES ($1, $2) RETURNING id)
       INSERT INTO file_blob_chunks (blob_id, seq, bytes) SELECT id, 0, '\\x00' FROM b`,
      [`${(await import('node:os')).hostname()}:999999`, Date.now()],
    );
    const live = await fs.removeStale({ now: Date.now(), maxAgeMs: 60_000, selfPid: process.pid, alive: () => true });
    assert.deepEqual({ removed: live.removed, kept: live.kept }, { removed: [], kept: 1 });
    const dead = await fs.removeStale({ now: Date.now(), maxAgeMs: 60_000, selfPid: process.pid, alive: () => false });
    assert.equal(dead.removed.length, 1, JSON.stringify(dead));
    assert.equal(await count('SELECT count(*)::int AS n FROM file_blobs WHERE sha256 IS NULL'), 0);
  });
});

test('file store on PostgreSQL: two nodes write the same bytes at once under other names, and one name at once; nothing is lost', async () => {
  await onPostgresStore(async (store) => {
    // A second store on the same database: another node, with a pool of its own.
    const url = (store.pool.options as { connectionString: string }).connectionString;
    const other = await openPostgresStore({ connectionString: url, max: 4 }, store.home, { migrate: false });
    try {
      const content = randomBytes(CHUNK_BYTES + 99);
      await Promise.all([put(store.fileStore, 'node-a/photo.jpg', content), put(other.fileStore, 'node-b/photo.jpg', content)]);
      const count = async (sql: string) => (await store.pool.query<{ n: number }>(sql)).rows[0]!.n;
      assert.equal(await count('SELECT count(*)::int AS n FROM file_blobs'), 1, 'one blob for the same bytes');
      assert.ok((await bytesOf(await other.fileStore.open('media', 'node-a/photo.jpg'))).equals(content));
      assert.ok((await bytesOf(await store.fileStore.open('media', 'node-b/photo.jpg'))).equals(content));
      // Both nodes replace one name at once, many times: each read is one of the versions, whole.
      const versions = [0, 1, 2, 3, 4, 5].map((i) => Buffer.alloc(1000 + i, 65 + i));
      await Promise.all(versions.map((v, i) => put(i % 2 === 0 ? store.fileStore : other.fileStore, 'shared.txt', v)));
      const last = await bytesOf(await other.fileStore.open('media', 'shared.txt'));
      assert.ok(versions.some((v) => v.equals(last)));
      assert.equal(await count("SELECT count(*)::int AS n FROM file_entries WHERE name = 'shared.txt'"), 1);
      assert.equal(await count('SELECT count(*)::int AS n FROM file_blobs WHERE sha256 IS NULL'), 0, 'no upload left unnamed');
    } finally {
      await other.close();
    }
  });
});

test('file store on PostgreSQL: a file and a folder of one name written at once on two nodes: one of them is refused', async () => {
  await onPostgresStore(async (store) => {
    const url = (store.pool.options as { connectionString: string }).connectionString;
    const other = await openPostgresStore({ connectionString: url, max: 4 }, store.home, { migrate: false });
    try {
      for (let round = 0; round < 5; round++) {
        const [file, inFolder] = [`r${round}`, `r${round}/inside.txt`];
        const a = await store.fileStore.stage('media', file, body(Buffer.from('a file')), { file });
        const b = await other.fileStore.stage('media', inFolder, body(Buffer.from('in a folder')), { file: inFolder });
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        let firstChecking!: () => void;
        const checking = new Promise<void>((resolve) => (firstChecking = resolve));
        // Round by round, either writer holds its lock first, and the other comes while it does.
        const [first, second] = round % 2 === 0 ? [a, b] : [b, a];
        const [firstStore, secondStore] = round % 2 === 0 ? [store.fileStore, other.fileStore] : [other.fileStore, store.fileStore];
        const one = firstStore.commit(first, {
          check: async () => {
            firstChecking();
            await released;
          },
        });
        await checking;
        const two = secondStore.commit(second);
        try {
          // The second is seen waiting for a lock of the first (polls counted, not the clock).
          for (let polls = 0; ; polls++) {
            assert.ok(polls < 1000, 'the second writer did not wait for the first');
            const r = await store.pool.query<{ n: number }>(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
            );
            if (r.rows[0]!.n > 0) break;
            await sleep(5);
          }
        } finally {
          release();
        }
        const outcomes = await Promise.allSettled([one, two]);
        assert.equal(outcomes[0]!.status, 'fulfilled');
        assert.equal(outcomes[1]!.status, 'rejected', 'the second of a file and a folder of one name is refused');
        assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /PATH_INVALID|folder/);
        const names = await store.pool.query<{ name: string }>("SELECT name FROM file_entries WHERE area = 'media' AND name LIKE $1", [
          `r${round}%`,
        ]);
        assert.equal(names.rows.length, 1, `one of ${file} and ${inFolder}, not both`);
      }
    } finally {
      await other.close();
    }
  });
});
