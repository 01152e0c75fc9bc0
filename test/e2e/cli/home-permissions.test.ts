import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { runCli, SDS_BIN, show } from '../../helpers/run-cli.js';
import { fixture, tempDir } from '../../helpers/temp-home.js';

const modeOf = (path: string): string => '0' + (statSync(path).mode & 0o777).toString(8);

/** `sds --home HOME ...args` under `umask 000`, where every bit the code does not drop stays. */
function runUmask000(home: string, args: string[]) {
  const r = spawnSync('sh', ['-c', 'umask 000 && exec "$0" "$@"', process.execPath, SDS_BIN, '--home', home, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', CI: '1' },
    timeout: 60_000,
  });
  if (r.error) throw r.error;
  return r;
}

/**
 * Starts `sds serve` on a free port (under `umask 000` when asked), runs `whileUp` once it listens,
 * then stops it with SIGTERM and returns everything it wrote on stderr.
 */
async function serveOnce(home: string, args: string[], opts: { umask000?: boolean; whileUp?: () => void } = {}): Promise<string> {
  const argv = [SDS_BIN, '--home', home, 'serve', '--host', '127.0.0.1', '--port', '0', ...args];
  const child = opts.umask000
    ? spawn('sh', ['-c', 'umask 000 && exec "$0" "$@"', process.execPath, ...argv], { env: { ...process.env, NO_COLOR: '1' } })
    : spawn(process.execPath, argv, { env: { ...process.env, NO_COLOR: '1' } });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve));
  const listening = await Promise.race([
    new Promise<boolean>((resolve) => createInterface({ input: child.stdout }).once('line', () => resolve(true))),
    closed.then(() => false),
  ]);
  assert.ok(listening, `sds serve ended before listening: ${stderr}`);
  try {
    opts.whileUp?.();
  } finally {
    child.kill('SIGTERM');
    await closed;
  }
  return stderr;
}

test('under umask 000 a new home is 0700, its store with -wal and -shm 0600, and so is the embedded target', async (t) => {
  const home = tempDir();
  t.after(home.cleanup);
  const init = runUmask000(home.root, ['init']);
  assert.equal(init.status, 0, init.stderr);
  assert.equal(modeOf(home.root), '0700');
  assert.equal(modeOf(home.db), '0600');
  for (const dir of [home.media, home.breakoutLogs, home.locks, home.targets]) assert.equal(modeOf(dir), '0700', dir);

  const stderr = await serveOnce(home.root, [], {
    umask000: true,
    whileUp: () => {
      // The server holds the store open in WAL mode: SQLite made these from the store file's mode.
      assert.equal(modeOf(`${home.db}-wal`), '0600');
      assert.equal(modeOf(`${home.db}-shm`), '0600');
    },
  });
  assert.doesNotMatch(stderr, /warning/, stderr);

  for (const args of [
    ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan'],
    ['cases', 'import', 'CEN2000', fixture('popstan-census.dat')],
    ['breakout', 'start', 'CEN2000', '--wait'],
  ]) {
    const r = runUmask000(home.root, args);
    assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
  }
  assert.equal(modeOf(join(home.targets, 'breakout.sqlite')), '0600');
  assert.equal(modeOf(home.db), '0600');
});

test('sds serve warns about each path of the home others can reach, with its chmod; init run again makes them private', async (t) => {
  const home = tempDir();
  t.after(home.cleanup);
  assert.equal(runCli(home.root, ['init']).code, 0);
  const config = join(home.root, 'config.json');
  writeFileSync(config, '{}\n');
  chmodSync(config, 0o644);
  chmodSync(home.db, 0o644);
  chmodSync(home.root, 0o755);

  const human = await serveOnce(home.root, ['--quiet']);
  const lines = human.split('\n').filter((l) => l.startsWith('sds: warning: '));
  assert.deepEqual(lines, [
    `sds: warning: the home folder ${home.root} has mode 0755: group and others can enter it; fix: chmod 700 ${home.root}`,
    `sds: warning: the file ${home.db} has mode 0644: group and others can read or write it; fix: chmod 600 ${home.db}`,
    // Open in WAL mode: SQLite gave them the store file's mode.
    `sds: warning: the file ${home.db}-wal has mode 0644: group and others can read or write it; fix: chmod 600 ${home.db}-wal`,
    `sds: warning: the file ${home.db}-shm has mode 0644: group and others can read or write it; fix: chmod 600 ${home.db}-shm`,
    `sds: warning: the file ${config} has mode 0644: group and others can read or write it; fix: chmod 600 ${config}`,
  ]);

  const json = await serveOnce(home.root, ['--json']);
  const warnings = json
    .split('\n')
    .filter((l) => l.startsWith('{"warning"'))
    .map((l) => JSON.parse(l) as { warning: string; path: string; mode: string; expected: string; fix: string });
  assert.deepEqual(
    warnings.map((w) => [w.warning, w.path, w.mode, w.expected, w.fix]),
    [
      ['HOME_PERMISSIONS', home.root, '0755', '0700', `chmod 700 ${home.root}`],
      ['HOME_PERMISSIONS', home.db, '0644', '0600', `chmod 600 ${home.db}`],
      ['HOME_PERMISSIONS', `${home.db}-wal`, '0644', '0600', `chmod 600 ${home.db}-wal`],
      ['HOME_PERMISSIONS', `${home.db}-shm`, '0644', '0600', `chmod 600 ${home.db}-shm`],
      ['HOME_PERMISSIONS', config, '0644', '0600', `chmod 600 ${config}`],
    ],
  );

  // Other commands leave an existing home's modes alone; only init run again tightens them.
  assert.equal(runCli(home.root, ['dict', 'list']).code, 0);
  assert.equal(modeOf(home.db), '0644');
  const again = runCli(home.root, ['--json', 'init']);
  assert.equal(again.code, 0, show(again));
  assert.deepEqual(
    again
      .json<{ permissions_tightened: { path: string; mode: string; expected: string }[] }>()
      .permissions_tightened.map((p) => [p.path, p.mode, p.expected]),
    [
      [home.root, '0755', '0700'],
      [home.db, '0644', '0600'],
      [`${home.db}-wal`, '0644', '0600'],
      [`${home.db}-shm`, '0644', '0600'],
      [config, '0644', '0600'],
    ],
  );
  assert.deepEqual([modeOf(home.root), modeOf(home.db), modeOf(config)], ['0700', '0600', '0600']);
  const quiet = await serveOnce(home.root, []);
  assert.doesNotMatch(quiet, /warning/, quiet);
  const third = runCli(home.root, ['--json', 'init']);
  assert.deepEqual(third.json<{ permissions_tightened: unknown[] }>().permissions_tightened, []);
});
