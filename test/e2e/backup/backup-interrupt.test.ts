import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SDS_BIN } from '../../helpers/run-cli.js';
import { backupRefusedOnPostgres } from '../../helpers/backup-store.js';
import { tempDir, tempHome } from '../../helpers/temp-home.js';

// Ctrl-C during a backup (docs/cli.md, "Ctrl-C and SIGTERM"): the copy stops, its hidden partial
// folder is removed, and the command exits 130, so no half-made backup is left in DEST.
test('SIGINT during the file copy removes the partial backup and exits 130', async () => {
  const home = await tempHome();
  const dest = tempDir();
  try {
    if (backupRefusedOnPostgres(home.root)) return;
    // A large (sparse) media file, so the copy is still running when the signal comes.
    const big = join(home.media, 'big.bin');
    writeFileSync(big, '');
    truncateSync(big, 512 * 1024 * 1024);
    const child = spawn(process.execPath, [SDS_BIN, '--home', home.root, 'backup', dest.root], {
      env: { ...process.env, NO_COLOR: '1', CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    let exited = false;
    void closed.then(() => (exited = true));
    // Signal once the copy of big.bin has begun in the hidden folder.
    const copying = () =>
      existsSync(dest.root) &&
      readdirSync(dest.root).some((n) => n.startsWith('.sds-backup-') && existsSync(join(dest.root, n, 'files', 'media', 'big.bin')));
    while (!copying() && !exited) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(exited, false, `the backup ended before it could be interrupted: ${stderr}`);
    child.kill('SIGINT');
    const code = await closed;
    assert.equal(code, 130, stderr);
    assert.match(stderr, /interrupted by SIGINT: no backup was made/);
    assert.deepEqual(readdirSync(dest.root), [], 'neither a backup nor its partial folder is left');
  } finally {
    await home.cleanup();
    dest.cleanup();
  }
});
