/**
 * Homes are made only by `sds init` and `sds quickstart` (issue 17, item 1; docs/decisions.md).
 * Every other command on a missing home exits 3 with HOME_NOT_FOUND naming the path it looked
 * at and how it was chosen (--home, SDS_HOME, the default ./var of the current directory), and
 * creates nothing. Real CLI subprocesses in a scratch directory that is checked to stay empty.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SDS_BIN, show, type CliResult } from '../../helpers/run-cli.js';
import { startServe } from '../../helpers/serve-process.js';

/** One command of each group, plus the three of the issue (scheduler-run, dict list, serve) and a job child. */
const COMMANDS: string[][] = [
  ['scheduler-run'],
  ['dict', 'list'],
  // Must fail before listening: a server would never exit and the run would time out.
  ['serve', '--port', '0'],
  ['migrate'],
  ['cases', 'list', 'CEN2000'],
  ['users', 'list'],
  ['files', 'list'],
  ['target', 'show', 'CEN2000'],
  ['breakout', 'jobs'],
  ['breakout', 'run-job', '1'],
  ['process-cases-by-dict', 'CEN2000'],
  ['drop-breakout-tables', 'CEN2000'],
  ['check-database-drivers'],
  ['metrics'],
  ['logs'],
  ['schedule', 'list'],
  ['webhooks', 'list'],
  ['status'],
];

interface Run {
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

/** `node bin/sds ...args` in `cwd`, killed after 30 s (a `serve` that listens fails the test, not the run). */
function sds(args: string[], run: Run): Promise<CliResult> {
  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', CI: '1', ...run.env };
    for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
    execFile(
      process.execPath,
      [SDS_BIN, ...args],
      { cwd: run.cwd, env, timeout: 30_000, killSignal: 'SIGKILL', encoding: 'buffer' },
      (err, out, errOut) => {
        const stdout = out.toString('utf8');
        const stderr = errOut.toString('utf8');
        const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
        resolve({
          code,
          stdout,
          stderr,
          raw: out,
          json<T>() {
            try {
              return JSON.parse(stdout) as T;
            } catch {
              throw new Error(`stdout is not JSON (exit ${code}):\n${stdout}\nstderr:\n${stderr}`);
            }
          },
        });
      },
    );
  });
}

/** Runs `jobs` four at a time (the machine's cores are shared with other tests). */
async function inBatches<T>(jobs: (() => Promise<T>)[], width = 4): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < jobs.length; i += width) out.push(...(await Promise.all(jobs.slice(i, i + width).map((j) => j()))));
  return out;
}

function scratch(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'sds-home-required-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The three ways of choosing a home, each pointing at a path under `dir` that does not exist. */
function sources(dir: string) {
  return [
    {
      name: 'flag',
      path: join(dir, 'typo-home'),
      from: '--home',
      human: /\(given by --home\)/,
      pre: ['--home', join(dir, 'typo-home')],
      run: { cwd: dir, env: { SDS_HOME: undefined } },
    },
    {
      name: 'environment',
      path: join(dir, 'env-home'),
      from: 'SDS_HOME',
      human: /\(given by SDS_HOME\)/,
      pre: [],
      run: { cwd: dir, env: { SDS_HOME: join(dir, 'env-home') } },
    },
    {
      name: 'default',
      path: join(dir, 'var'),
      from: undefined,
      human: /\(the default \.\/var of the current directory/,
      pre: [],
      run: { cwd: dir, env: { SDS_HOME: undefined } },
    },
  ] as const;
}

test(
  'every command that needs a home, on a missing one, exits 3 HOME_NOT_FOUND naming the path and its source, and creates nothing',
  { timeout: 240_000 },
  async (t) => {
    const s = scratch();
    t.after(s.cleanup);
    const jobs = sources(s.dir).flatMap((src) =>
      COMMANDS.map((cmd) => async () => {
        const label = `${src.name}: sds ${cmd.join(' ')}`;
        const r = await sds([...src.pre, '--json', ...cmd], src.run);
        assert.equal(r.code, 3, `${label}\n${show(r)}`);
        let e: { error: string; message: string };
        if (cmd[0] === 'status') {
          // sds status --json keeps the status webhook's failure envelope (docs/status-and-incoming-webhooks.md).
          const env = r.json<{ success: boolean; error: { code: string; message: string } }>();
          assert.equal(env.success, false, label);
          e = { error: env.error.code, message: env.error.message };
        } else {
          const j = r.json<{ error: string; message: string; details: Record<string, unknown> }>();
          assert.deepEqual(
            j.details,
            { path: src.path, source: src.name, ...(src.from ? { from: src.from } : {}), reason: 'missing' },
            label,
          );
          e = j;
        }
        assert.equal(e.error, 'HOME_NOT_FOUND', label);
        assert.ok(e.message.includes(src.path), `${label}: the message names the path: ${e.message}`);
        assert.match(e.message, src.human, label);
        assert.match(e.message, /sds .*init/, `${label}: the message says how to make one`);
      }),
    );
    await inBatches(jobs);
    assert.deepEqual(readdirSync(s.dir), [], 'a failing command created something');
  },
);

test('the human error names the path, how it was chosen and the `sds init` that makes it', async (t) => {
  const s = scratch();
  t.after(s.cleanup);
  const [flag, env, def] = sources(s.dir);
  const byFlag = await sds([...flag.pre, 'scheduler-run'], flag.run);
  assert.equal(byFlag.code, 3, show(byFlag));
  assert.equal(byFlag.stdout, '', 'no "no schedules due"');
  assert.equal(
    byFlag.stderr,
    `sds: HOME_NOT_FOUND: no sds home at ${flag.path} (given by --home): the directory does not exist; run \`sds --home ${flag.path} init\` to make it\n`,
  );
  const byEnv = await sds(['dict', 'list'], env.run);
  assert.equal(byEnv.code, 3, show(byEnv));
  assert.equal(
    byEnv.stderr,
    `sds: HOME_NOT_FOUND: no sds home at ${env.path} (given by SDS_HOME): the directory does not exist; run \`sds init\` with the same SDS_HOME to make it\n`,
  );
  const byDefault = await sds(['dict', 'list'], def.run);
  assert.equal(byDefault.code, 3, show(byDefault));
  assert.equal(
    byDefault.stderr,
    `sds: HOME_NOT_FOUND: no sds home at ${def.path} (the default ./var of the current directory, as neither --home nor SDS_HOME is set): the directory does not exist; run \`sds init\` in this directory to make it\n`,
  );
  assert.deepEqual(readdirSync(s.dir), []);
});

test('an existing directory without a store is not a home: HOME_NOT_FOUND says so and leaves it empty; sds config agrees', async (t) => {
  const s = scratch();
  t.after(s.cleanup);
  const empty = join(s.dir, 'empty');
  mkdirSync(empty);
  const r = await sds(['--home', empty, '--json', 'dict', 'list'], { cwd: s.dir });
  assert.equal(r.code, 3, show(r));
  const e = r.json<{ error: string; message: string; details: Record<string, unknown> }>();
  assert.equal(e.error, 'HOME_NOT_FOUND');
  assert.equal(e.details.reason, 'no_store');
  assert.match(e.message, /exists but has no store sds\.db, so it is not an sds home/);
  assert.deepEqual(readdirSync(empty), []);

  const c = await sds(['--home', empty, '--json', 'config'], { cwd: s.dir });
  assert.equal(c.code, 0, show(c));
  assert.equal(c.json<{ home: { exists: boolean } }>().home.exists, false);
  // A plain file where the home should be.
  const plain = join(s.dir, 'plain-file');
  writeFileSync(plain, '');
  const file = await sds(['--home', plain, '--json', 'logs'], { cwd: s.dir });
  assert.equal(file.code, 3, show(file));
  assert.equal(file.json<{ details: { reason: string } }>().details.reason, 'not_a_directory');
  // init cannot make a home there either, and says which folder, not a stack trace.
  const init = await sds(['--home', plain, '--json', 'init'], { cwd: s.dir });
  assert.equal(init.code, 1, show(init));
  assert.equal(init.json<{ error: string }>().error, 'IO_ERROR');
  assert.match(init.json<{ message: string }>().message, new RegExp(`cannot create the folder ${plain} of the home ${plain}: EEXIST`));
});

test('sds init makes the home, chosen each of the three ways, and then the same commands work', { timeout: 120_000 }, async (t) => {
  const s = scratch();
  t.after(s.cleanup);
  for (const src of sources(s.dir)) {
    const init = await sds([...src.pre, '--json', 'init'], src.run);
    assert.equal(init.code, 0, `${src.name}: ${show(init)}`);
    assert.equal(init.json<{ home: string; created: boolean }>().home, src.path);
    assert.ok(existsSync(join(src.path, 'sds.db')), src.name);
    for (const cmd of [['scheduler-run'], ['dict', 'list'], ['status']]) {
      const r = await sds([...src.pre, ...cmd], src.run);
      assert.equal(r.code, 0, `${src.name}: sds ${cmd.join(' ')}\n${show(r)}`);
    }
  }
  assert.deepEqual(readdirSync(s.dir).sort(), ['env-home', 'typo-home', 'var']);

  // serve, refused above, now listens.
  const server = await startServe(join(s.dir, 'typo-home'));
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(server.exit(), null, 'sds serve is running');
  } finally {
    await server.stop();
  }
});
