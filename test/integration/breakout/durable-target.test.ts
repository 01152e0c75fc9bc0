/**
 * A SQLite target commits without fsync (`synchronous = NORMAL`), so the breakout must fsync the
 * target's WAL before it saves the store cursor over the pages it committed
 * (docs/durability.md#breakout-targets). A power cut cannot be simulated; what is checked, under
 * strace on a real breakout into a real target file, is the order of the system calls: every
 * cursor save comes after an fsync of the target's WAL that follows the last write to that WAL.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { popstanStore, datLines, groupPopstan } from '../../helpers/breakout-helpers.js';
import { fixture } from '../../helpers/temp-home.js';

const CHILD = fileURLToPath(new URL('../../helpers/durable-breakout-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

// strace must be installed and allowed to trace (some sandboxes refuse ptrace).
const probe = spawnSync('strace', ['-f', '-o', '/dev/null', process.execPath, '-e', '0'], { encoding: 'utf8' });
const straceMissing =
  probe.error || probe.status !== 0 ? `strace cannot trace here (${probe.error?.message ?? probe.stderr.trim()})` : false;
// In CI (npm test installs strace: scripts/ensure-test-tools.sh) a missing strace fails this test instead of skipping it.
const noStrace = process.env.CI ? false : straceMissing;

test(
  'SQLite target: every store cursor save follows an fsync of the target WAL after its last write',
  { skip: noStrace, timeout: 240_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sds-target-durable-'));
    const target = join(dir, 'target.sqlite');
    const trace = join(dir, 'trace.txt');
    const marker = join(dir, 'cursor-saves.txt');
    // The parent keeps the store open, as `sds serve` would, so only the child's own syncs count.
    const t = await popstanStore([fixture('popstan-census.dat')], { type: 'sqlite', file: target });
    try {
      const pageSize = 400;
      const everyPages = 2;
      const r = spawnSync(
        'strace',
        [
          '-f',
          '-y',
          '-e',
          'trace=write,pwrite64,pwritev,fsync,fdatasync',
          '-o',
          trace,
          process.execPath,
          '--import',
          'tsx',
          CHILD,
          t.home.root,
          marker,
          String(pageSize),
          String(everyPages),
        ],
        { encoding: 'utf8', cwd: ROOT, timeout: 200_000 },
      );
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { status: string; saved: { revision: number; guid: string }[] };
      assert.equal(out.status, 'completed');
      const pages = Math.ceil(groupPopstan(datLines()).length / pageSize);
      // A save every 2 pages, and one at the end (over the last page and up to the last case).
      assert.equal(out.saved.length, Math.floor(pages / everyPages) + 1);
      assert.deepEqual((await t.store.breakoutState.get(1))?.cursor, out.saved.at(-1));

      const lines = readFileSync(trace, 'utf8')
        .split('\n')
        .filter((l) => l.includes('target.sqlite-wal>') || l.includes('cursor-saves.txt>'));
      const isWalWrite = (l: string) => l.includes('target.sqlite-wal>') && /\b(write|pwrite64|pwritev)\(/.test(l);
      const isWalSync = (l: string) => l.includes('target.sqlite-wal>') && /\b(fsync|fdatasync)\(/.test(l);
      const saves = lines.flatMap((l, i) => (l.includes('cursor-saves.txt>') && /\bwrite\(/.test(l) ? [i] : []));
      assert.equal(saves.length, out.saved.length, 'every cursor save is in the trace');
      for (const [n, at] of saves.entries()) {
        const before = lines.slice(0, at);
        const lastWrite = before.findLastIndex(isWalWrite);
        const lastSync = before.findLastIndex(isWalSync);
        assert.ok(lastWrite >= 0, `save ${n + 1}: the target's WAL was written before it`);
        assert.ok(
          lastSync > lastWrite,
          `save ${n + 1}: the target's last WAL write (line ${lastWrite}) is not fsynced before the cursor save (line ${at})`,
        );
      }
    } finally {
      await t.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
