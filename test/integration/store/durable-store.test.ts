/**
 * Acknowledged means durable (docs/durability.md): the store fsyncs every commit. A power cut
 * cannot be simulated here; what is checked is the setting on real store files, through every
 * way the store is opened, and, under strace, that the real CLI process fsyncs the WAL after its
 * last write to it, before it exits 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Command } from 'commander';
import { openStore } from '../../../src/store/open-store.js';
import { contextOf } from '../../../src/cli/context.js';
import { fixture, sqliteDb, storeKindOf, storeSql, tempDir, tempHome } from '../../helpers/temp-home.js';
import { runCli, SDS_BIN } from '../../helpers/run-cli.js';

/** SQLite's numbering of `PRAGMA synchronous`: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA. */
const FULL = 2;

test('openStore opens the store file with synchronous = FULL in WAL mode, new or existing, read-only too', async () => {
  const home = tempDir();
  try {
    const created = await openStore(home, { create: true });
    assert.equal(sqliteDb(created).pragma('synchronous', { simple: true }), FULL);
    assert.equal(sqliteDb(created).pragma('journal_mode', { simple: true }), 'wal');
    await created.close();
    const reopened = await openStore(home);
    assert.equal(sqliteDb(reopened).pragma('synchronous', { simple: true }), FULL);
    await reopened.close();
    const readonly = await openStore(home, { readonly: true });
    assert.equal(sqliteDb(readonly).pragma('synchronous', { simple: true }), FULL);
    await readonly.close();
    // The setting belongs to the connection, not the file: a plain connection gets SQLite's
    // default, so the check above really reads what openStore set.
    const plain = new Database(home.db);
    plain.pragma('synchronous = OFF');
    assert.equal(plain.pragma('synchronous', { simple: true }), 0);
    plain.close();
  } finally {
    home.cleanup();
  }
});

test('the CLI opens the store through the same path (every command, sds serve included)', async () => {
  const home = await tempHome();
  try {
    const cmd = new Command().option('--home <dir>').option('--json');
    cmd.parse(['--home', home.root], { from: 'user' });
    const ctx = contextOf(cmd);
    try {
      const store = await ctx.store();
      if (storeKindOf(store) === 'sqlite') {
        assert.equal(sqliteDb(store).name, home.db);
        assert.equal(sqliteDb(store).pragma('synchronous', { simple: true }), FULL);
      } else {
        // The database config.json names, every commit acknowledged once on disk.
        const url = (JSON.parse(readFileSync(join(home.root, 'config.json'), 'utf8')) as { store: { url: string } }).store.url;
        const [{ db }] = (await storeSql(store, 'SELECT current_database() AS db')) as [{ db: string }];
        assert.equal(db, new URL(url).pathname.slice(1));
        assert.deepEqual(await storeSql(store, 'SHOW synchronous_commit'), [{ synchronous_commit: 'on' }]);
      }
    } finally {
      await ctx.close();
    }
  } finally {
    await home.cleanup();
  }
});

// strace must be installed and allowed to trace (some sandboxes refuse ptrace).
const probe = spawnSync('strace', ['-f', '-o', '/dev/null', process.execPath, '-e', '0'], { encoding: 'utf8' });
const straceMissing =
  probe.error || probe.status !== 0 ? `strace cannot trace here (${probe.error?.message ?? probe.stderr.trim()})` : false;
// In CI (npm test installs strace: scripts/ensure-test-tools.sh) a missing strace fails these tests instead of skipping them.
const noStrace = process.env.CI ? false : straceMissing;

/**
 * Runs `sds <args>` under strace while another connection holds the store open, as `sds serve`
 * would: the CLI's own close then cannot checkpoint (which would sync everything anyway), so only
 * its commits, or its final sync, can. Returns the trace lines about the WAL.
 */
function walTraceOf(args: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'sds-durable-'));
  const home = join(dir, 'home');
  const trace = join(dir, 'trace.txt');
  try {
    assert.equal(runCli(home, ['init']).code, 0);
    assert.equal(runCli(home, ['dict', 'upload', fixture('popstan-census.text.dcf'), '--label', 'popstan']).code, 0);
    const other = new Database(join(home, 'sds.db'));
    other.prepare('SELECT 1').get();
    try {
      const r = spawnSync(
        'strace',
        ['-f', '-y', '-e', 'trace=write,pwrite64,pwritev,fsync,fdatasync', '-o', trace, process.execPath, SDS_BIN, '--home', home, ...args],
        {
          encoding: 'utf8',
          env: { ...process.env, NO_COLOR: '1', CI: '1' },
          timeout: 120_000,
        },
      );
      assert.equal(r.status, 0, r.stderr);
    } finally {
      other.close();
    }
    return readFileSync(trace, 'utf8')
      .split('\n')
      .filter((l) => l.includes('sds.db-wal>'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function assertWalSyncedAfterLastWrite(wal: string[]): void {
  const lastWrite = wal.findLastIndex((l) => /\b(write|pwrite64|pwritev)\(/.test(l));
  const lastSync = wal.findLastIndex((l) => /\b(fsync|fdatasync)\(/.test(l));
  assert.ok(lastWrite >= 0, 'the command wrote to the WAL');
  assert.ok(lastSync > lastWrite, `the last write to the WAL (line ${lastWrite}) is not followed by an fsync (last at ${lastSync})`);
}

test('the real CLI fsyncs the WAL after its last write to it, before exiting 0 (a commit)', { skip: noStrace }, () => {
  assertWalSyncedAfterLastWrite(walTraceOf(['dict', 'upload', fixture('capi-household.dcf'), '--label', 'household']));
});

test('sds cases import fsyncs the WAL after its last batch, before exiting 0', { skip: noStrace }, () => {
  assertWalSyncedAfterLastWrite(walTraceOf(['cases', 'import', 'CEN2000', fixture('popstan-census.dat')]));
});

test(
  'sds serve answers 200 only after its group fsync of the WAL has ended, which started after the commit',
  { skip: noStrace },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sds-durable-'));
    const home = join(dir, 'home');
    const trace = join(dir, 'trace.txt');
    try {
      assert.equal(runCli(home, ['init']).code, 0);
      // A name no background write of the server holds: the request's own commits are the WAL
      // writes that carry it (strace prints their bytes, -s).
      const probe = 'durable-probe-7f3a9c';
      assert.equal(runCli(home, ['users', 'add', probe, '--role', 'API', '--password-stdin'], { stdin: 'a-long-password-1\n' }).code, 0);
      const server = spawn(
        'strace',
        [
          '-f',
          '-y',
          '-s',
          '8500',
          '-e',
          'trace=openat,write,writev,pwrite64,pwritev,fsync,fdatasync',
          '-o',
          trace,
          process.execPath,
          SDS_BIN,
          '--home',
          home,
          'serve',
          '--host',
          '127.0.0.1',
          '--port',
          '0',
          '--json',
        ],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
          env: { ...process.env, NO_COLOR: '1', CI: '1' },
        },
      );
      try {
        const [line] = (await once(createInterface({ input: server.stdout! }), 'line')) as [string];
        const url = (JSON.parse(line) as { url: string }).url;
        // The password grant stores a refresh token and an audit record: writes acknowledged by
        // the 200. The second request is the one checked, its commits told from the server's
        // own (start-up duties, the job sweep) by the account's name in the pages written.
        for (let i = 0; i < 2; i++) {
          const reply = await fetch(`${url}/api/token`, {
            method: 'POST',
            body: new URLSearchParams({ grant_type: 'password', username: probe, password: 'a-long-password-1' }),
          });
          assert.equal(reply.status, 200);
          await reply.json();
        }
      } finally {
        // strace passes no signal on: stop the traced server itself (its child), then strace ends.
        const children = readFileSync(`/proc/${server.pid}/task/${server.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
        for (const pid of children) process.kill(Number(pid), 'SIGTERM');
        if (server.exitCode === null) await once(server, 'exit');
      }
      const lines = readFileSync(trace, 'utf8').split('\n');
      const answers = lines.flatMap((l, i) => (l.includes('HTTP/1.1 200') ? [i] : []));
      assert.equal(answers.length, 2, 'both 200 answers are in the trace');
      const [previous, answer] = answers as [number, number];
      const tid = lines[answer]!.split(' ')[0]!;
      const before = lines.slice(0, answer);
      // The commit: the request's thread writes the WAL (and, in group commit, does not fsync it).
      // A background write of the server landing after it, unawaited by the answer, is not it.
      const lastWrite = before.findLastIndex(
        (l, i) =>
          i > previous &&
          l.startsWith(`${tid} `) &&
          l.includes('sds.db-wal>') &&
          /\b(write|pwrite64|pwritev)\(/.test(l) &&
          l.includes(probe),
      );
      assert.ok(lastWrite >= 0, 'the request committed on the thread that answered');
      // The group fsync opens the WAL read-write without O_CREAT (SQLite's own descriptors have it; the
      // checkpoint thread's fsyncs must not count): that descriptor is fsynced after the commit, and
      // the fsync has returned before the answer.
      // The store opens it once and holds it (docs/durability.md#group-commit), often while other
      // threads start: strace may then print the open in two lines, its result on the second.
      const groupFds = new Set(
        before.flatMap((l, i) => {
          if (!/openat\(.*sds\.db-wal", O_RDWR\|O_CLOEXEC/.test(l)) return [];
          const whole = /\) = (\d+)/.exec(l);
          if (whole) return [whole[1]!];
          const opener = l.split(' ')[0]!;
          const resumed = before.slice(i + 1).find((r) => r.startsWith(`${opener} <... openat resumed>`));
          const fd = resumed && /= (\d+)/.exec(resumed);
          return fd ? [fd[1]!] : [];
        }),
      );
      const syncStart = before.findIndex(
        (l, i) => i > lastWrite && [...groupFds].some((fd) => new RegExp(`\\bfsync\\(${fd}<[^>]*sds\\.db-wal>`).test(l)),
      );
      assert.ok(syncStart > lastWrite, 'no group fsync of the WAL after the commit');
      const syncTid = before[syncStart]!.split(' ')[0]!;
      const syncEnded =
        /= 0$/.test(before[syncStart]!) ||
        before.slice(syncStart + 1).some((l) => l.startsWith(`${syncTid} <... fsync resumed>`) && /= 0$/.test(l));
      assert.ok(syncEnded, 'the answer came before the fsync returned');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('deferSync turns the per-commit fsync off only while it runs, failing or not', async () => {
  const home = await tempHome();
  const store = await openStore(home);
  if (storeKindOf(store) === 'postgresql') {
    // PostgreSQL makes every commit durable itself (synchronous_commit): deferSync only runs fn.
    try {
      const inside = await store.deferSync(async () => storeSql(store, 'SHOW synchronous_commit'));
      assert.deepEqual(inside, [{ synchronous_commit: 'on' }]);
      await assert.rejects(
        store.deferSync(async () => {
          throw new Error('the import failed');
        }),
        /the import failed/,
      );
    } finally {
      await store.close();
      await home.cleanup();
    }
    return;
  }
  const db = sqliteDb(store);
  try {
    db.exec('CREATE TABLE t (x)');
    const inside = await store.deferSync(async () => {
      db.prepare('INSERT INTO t VALUES (1)').run();
      return db.pragma('synchronous', { simple: true });
    });
    assert.equal(inside, 1);
    assert.equal(db.pragma('synchronous', { simple: true }), FULL);
    await assert.rejects(
      store.deferSync(async () => {
        db.prepare('INSERT INTO t VALUES (2)').run();
        throw new Error('the import failed');
      }),
      /the import failed/,
    );
    assert.equal(db.pragma('synchronous', { simple: true }), FULL);
    assert.equal((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n, 2);
  } finally {
    await store.close();
    await home.cleanup();
  }
});
