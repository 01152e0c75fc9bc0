/**
 * The README runs in order from a fresh clone (issue 17): every fenced `sh` block of README.md is
 * run, in page order, by `bash` with `set -euo pipefail`, in one scratch folder that looks like
 * a fresh clone after `npm ci && npm run build`: symlinks to the repository's bin/, dist/,
 * fixtures/, node_modules/ and package.json, and an empty var/ (with its .gitkeep). Never the
 * repository itself, so `./var` and `var/census.sqlite` are the scratch folder's.
 * Runs the compiled CLI: build first.
 *
 * How blocks are run (the conventions, also in docs/decisions.md, "The README runs as a test"):
 * - Each block is its own `bash -c`, as a reader pasting it into one terminal; no variable needs
 *   to survive from one block to the next (the README keeps it so).
 * - `sds` is a shell function calling the repository's bin/sds: it stands in for `npm link`,
 *   which the test never runs (it installs globally). `npm ci && npm run build && ` and the
 *   `npm test` line are left out too (the tree is built; the suite does not run itself). Any
 *   other npm command fails the test (test/helpers/readme-blocks.ts, `prepareBlock`).
 * - The README's port 8080 is replaced by a free port, so a server already listening on 8080
 *   cannot answer in place of ours.
 * - `<!-- readme-test: skip (reason) -->` right before a fence: not run (e.g. `crontab -e`).
 * - `<!-- readme-test: background -->` right before a fence: the block (`sds serve ... &`) runs
 *   in its own process group, followed by `wait` so that bash lives as long as the server; the
 *   test goes on at once (the next block waits until the server listens, as a reader must) and
 *   stops the group with SIGTERM after the last block.
 * - The environment is clean: PATH, a scratch HOME, NO_COLOR and CI; no SDS_* variable of the
 *   calling shell leaks in.
 * A block that exits non-zero (or runs past 2 minutes) fails the test, naming its README line.
 * Then the test checks what the README promises: the quickstart's tables, the CLI breakout in
 * var/census.sqlite, the target set back to it, the schedule, and the HTTP job `completed`.
 *
 * Needs the local PostgreSQL the README names (postgresql://postgres@127.0.0.1:5432/postgres):
 * its blocks only connect (`target set` and `target test` create nothing), so sharing the
 * `postgres` database with other tests is safe. A README step that writes tables there must use
 * a database of its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareBlock, readmeBlocks, type ShellBlock } from '../../helpers/readme-blocks.js';
import { runCliAsync, show, SDS_BIN } from '../../helpers/run-cli.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const BLOCK_TIMEOUT_MS = 120_000;

interface BlockRun {
  block: ShellBlock;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function scratchClone(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sds-readme-'));
  for (const name of ['bin', 'dist', 'fixtures', 'node_modules', 'package.json']) symlinkSync(join(REPO, name), join(dir, name));
  mkdirSync(join(dir, 'var'));
  writeFileSync(join(dir, 'var', '.gitkeep'), '');
  mkdirSync(join(dir, '.home'));
  return dir;
}

function blockEnv(dir: string): NodeJS.ProcessEnv {
  return {
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: join(dir, '.home'),
    LANG: 'C.UTF-8',
    NO_COLOR: '1',
    CI: '1',
  };
}

function script(code: string): string {
  return `set -euo pipefail\nsds() { ${JSON.stringify(SDS_BIN)} "$@"; }\n${code}\n`;
}

/** Runs one block; `started` gets the child so a server that dies can stop a block waiting on it. */
function runBlock(block: ShellBlock, code: string, dir: string, started: (child: ChildProcess) => void): Promise<BlockRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script(code)], { cwd: dir, env: blockEnv(dir), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    started(child);
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    // The whole group: a polling loop left behind by bash must not outlive the test.
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), BLOCK_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ block, code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // The group has already ended.
  }
}

function tail(text: string, lines = 40): string {
  return text.split('\n').slice(-lines).join('\n');
}

function describe(run: BlockRun, serverLog: string): string {
  return [
    `README.md line ${run.block.line} (${run.block.heading}): exit ${run.code}${run.signal ? ` (${run.signal})` : ''}`,
    `--- block\n${run.block.code}`,
    `--- stdout (end)\n${tail(run.stdout)}`,
    `--- stderr (end)\n${tail(run.stderr)}`,
    ...(serverLog !== '' ? [`--- background blocks' output (end)\n${tail(serverLog)}`] : []),
  ].join('\n');
}

test('README.md: every sh block runs in order from a fresh clone and does what its prose says', async () => {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const blocks = readmeBlocks(readme);
  const dir = scratchClone();
  const port = await freePort();
  const background: { child: ChildProcess; ended: Promise<void> }[] = [];
  const bgOutput: Buffer[] = [];
  const serverLog = (): string => Buffer.concat(bgOutput).toString('utf8');
  const runs: BlockRun[] = [];
  let current: ChildProcess | null = null;
  let stopping = false;
  try {
    try {
      for (const block of blocks) {
        if (block.mode === 'skip') continue;
        const code = prepareBlock(block.code, port);
        if (block.mode === 'background') {
          // `wait` keeps bash alive as long as what it started, and the pipes stay open until the
          // server itself exits: 'close' then means the whole group has ended.
          const child = spawn('bash', ['-c', script(`${code}\nwait`)], {
            cwd: dir,
            env: blockEnv(dir),
            detached: true,
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          child.stdout!.on('data', (b: Buffer) => bgOutput.push(b));
          child.stderr!.on('data', (b: Buffer) => bgOutput.push(b));
          const ended = new Promise<void>((resolve) =>
            child.once('close', () => {
              // A server that dies early would leave the next block waiting for it forever.
              if (!stopping && current) killGroup(current, 'SIGTERM');
              resolve();
            }),
          );
          background.push({ child, ended });
          continue;
        }
        const run = await runBlock(block, code, dir, (child) => (current = child));
        current = null;
        runs.push(run);
        assert.equal(run.code, 0, describe(run, serverLog()));
      }
    } finally {
      stopping = true;
      for (const b of background) killGroup(b.child, 'SIGTERM');
      await Promise.all(background.map((b) => b.ended));
    }

    // The page is what it says: blocks run, the crontab edit skipped, one server in the background.
    assert.ok(runs.length >= 6, `runnable blocks found: ${runs.length}`);
    assert.deepEqual(
      blocks.filter((b) => b.mode === 'skip').map((b) => b.code.split('\n')[0]),
      ['crontab -e'],
      'only the crontab edit is skipped',
    );
    assert.equal(background.length, 1, 'one background block (sds serve)');
    const home = join(dir, 'var');

    // Quickstart: its home in ./var, the census broken out into the embedded default.
    const quick = runs.find((r) => r.block.code.includes('quickstart'))!;
    // A box on a terminal, tab-separated on a pipe: the row is on one line either way.
    assert.match(quick.stdout, /^.*\bpopstan_person\b.*\brecord\b.*\b24271\b/m, 'quickstart prints its tables');
    assert.ok(existsSync(join(home, 'targets', 'breakout.sqlite')), 'quickstart broke out into var/targets/breakout.sqlite');

    // Everyday use and the PostgreSQL section: CEN2000 back on var/census.sqlite, its tables there.
    const target = await runCliAsync(home, ['target', 'show', 'CEN2000', '--json']);
    assert.equal(target.code, 0, show(target));
    assert.equal(target.json().type, 'sqlite', target.stdout);
    assert.match(JSON.stringify(target.json()), /var\/census\.sqlite/);
    const tables = await runCliAsync(home, ['breakout', 'tables', 'CEN2000', '--json']);
    assert.equal(tables.code, 0, show(tables));
    const rows = Object.fromEntries(tables.json().tables.map((t: { name: string; row_count: number }) => [t.name, t.row_count]));
    assert.equal(rows.popstan_cases, 4872, tables.stdout);
    assert.equal(rows.popstan_person, 24271, tables.stdout);
    assert.ok(existsSync(join(home, 'census.sqlite')));
    const metrics = await runCliAsync(home, ['metrics', '--json']);
    assert.equal(metrics.code, 0, show(metrics));
    assert.deepEqual(metrics.json().cases_by_dictionary, { CEN2000: 4872, PSC_HOUSEHOLD_DICT: 4 });

    // Scheduled breakouts: the schedule the README adds.
    const schedules = await runCliAsync(home, ['schedule', 'list', '--json']);
    assert.equal(schedules.code, 0, show(schedules));
    const cen = schedules.json().schedules.find((s: { dictionary: string }) => s.dictionary === 'CEN2000');
    assert.ok(cen, schedules.stdout);
    assert.equal(cen.enabled, true);
    assert.equal(cen.cron_expression, '30 1 * * *');

    // The HTTP walk-through: its start made a job, and the polling loop saw it end `completed`.
    const http = runs.find((r) => r.block.code.includes('/api/breakout/start'))!;
    const seen = [...http.stdout.matchAll(/^\{"job_id":"([0-9a-f-]{36})","status":"(\w+)"/gm)];
    assert.ok(seen.length > 0, `the polling loop printed job statuses:\n${http.stdout}`);
    const [, jobId, lastStatus] = seen.at(-1)!;
    assert.equal(lastStatus, 'completed', http.stdout);
    const job = await runCliAsync(home, ['breakout', 'status', jobId!, '--json']);
    assert.equal(job.code, 0, show(job));
    assert.equal(job.json().status, 'completed', job.stdout);
    assert.equal(job.json().result.total_cases, 4872, job.stdout);
    assert.match(http.stdout, /"name": "popstan_cases"/, 'the tables reply is printed');
    assert.match(http.stdout, /"breakout_status": \{\s*"CEN2000": "completed"/, 'the metrics reply is printed');
    assert.match(serverLog(), /listening on http:\/\/127\.0\.0\.1:\d+/, 'the server said where it listens');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
