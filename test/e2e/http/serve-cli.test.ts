import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SDS_BIN, runCli, show } from '../../helpers/run-cli.js';
import { tempHome } from '../../helpers/temp-home.js';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';

// bin/sds runs the compiled dist/ (`npm test` builds it first, in its pretest step).
const built = fileURLToPath(new URL('../../../dist/cli/commands/serve.js', import.meta.url));

test('bin/sds serve: prints its URL, serves /api/openapi.json, exits 0 on SIGTERM', async () => {
  assert.ok(existsSync(built), 'dist/ has no serve command: run `npm run build` first');
  const home = await tempHome();
  const child = spawn(process.execPath, [SDS_BIN, '--home', home.root, 'serve', '--port', '0'], { env: { ...process.env, NO_COLOR: '1' } });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed; stderr:\n${stderr}`)), 60_000); // the default is one worker per core: several processes start
      child.stdout.on('data', (b: Buffer) => {
        stdout += b.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.once('exit', (code) => reject(new Error(`exited early with ${code}; stderr:\n${stderr}`)));
    });
    const r = await fetch(`${url}/api/openapi.json`);
    assert.equal(r.status, 200);
    const doc = (await r.json()) as { openapi: string; paths: Record<string, unknown> };
    assert.equal(doc.openapi, '3.1.0');
    assert.ok(doc.paths['/api/token']);
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code, signal] = (await exited) as [number | null, string | null];
    assert.equal(signal, null, stderr);
    assert.equal(code, 0, stderr);
    assert.match(stderr, /GET \/api\/openapi\.json 200/, 'request logged on stderr');
    assert.match(stderr, /SIGTERM received/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await home.cleanup();
  }
});

test('bin/sds serve with a bad port, upload limit or timeout: exit 2, nothing served', async () => {
  const home = await tempHome();
  try {
    for (const args of [
      ['--port', '70000'],
      ['--port', 'abc'],
      ['--max-upload-mb', '0'],
      ['--headers-timeout', '0'],
      ['--body-timeout', '1.5'],
      ['--request-timeout', '-1'],
      ['--check-threads', '65'],
      ['--check-threads', 'two'],
    ]) {
      const r = runCli(home.root, ['serve', ...args]);
      assert.equal(r.code, 2, show(r));
      assert.match(r.stderr, /USAGE|must be a whole number/, show(r));
    }
  } finally {
    await home.cleanup();
  }
});

test('bin/sds serve with a bad SDS_HTTP_*_TIMEOUT_MS: exit 2 CONFIG_INVALID naming the variable', async () => {
  const home = await tempHome();
  try {
    for (const [name, value] of [
      ['SDS_HTTP_HEADERS_TIMEOUT_MS', '0'],
      ['SDS_HTTP_BODY_TIMEOUT_MS', '30s'],
      ['SDS_HTTP_REQUEST_TIMEOUT_MS', '-5'],
      ['SDS_CHECK_THREADS', '-1'],
    ] as const) {
      const r = runCli(home.root, ['serve', '--port', '0', '--json'], { env: { [name]: value } });
      assert.equal(r.code, 2, show(r));
      assert.match(r.stdout + r.stderr, new RegExp(`CONFIG_INVALID[\\s\\S]*${name}`), show(r));
    }
  } finally {
    await home.cleanup();
  }
});

/** The threads of a running process, as Linux counts them. */
function threadsOf(pid: number): number {
  return Number(/^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
}

test('bin/sds serve --check-threads N: N more threads than --check-threads 0, and SIGTERM still ends it with 0', async () => {
  const home = await tempHome();
  const servers: ServeProcess[] = [];
  try {
    for (const n of ['0', '3']) servers.push(await startServe(home.root, {}, 0, ['--check-threads', n]));
    // Also from the environment, which the flag overrides.
    servers.push(await startServe(home.root, { SDS_CHECK_THREADS: '2' }));
    const [none, three, two] = servers.map((s) => threadsOf(s.child.pid!));
    assert.equal(three! - none!, 3);
    assert.equal(two! - none!, 2);
    for (const s of servers) {
      await s.stop(20_000);
      assert.deepEqual(s.exit(), { code: 0, signal: null }, s.errors());
    }
  } finally {
    for (const s of servers) await s.kill9();
    await home.cleanup();
  }
});

test('startServer on a port in use fails with USAGE naming the port', async () => {
  const { startServer } = await import('../../../src/http/serve.js');
  const { tempStore } = await import('../../helpers/temp-home.js');
  const t = await tempStore();
  const first = await startServer({ store: t.store, port: 0, config: { log: () => {}, env: {} } });
  try {
    await assert.rejects(
      startServer({ store: t.store, port: first.port, config: { log: () => {}, env: {} } }),
      (e: Error & { code?: string }) => {
        assert.equal(e.code, 'USAGE');
        assert.match(e.message, new RegExp(`127\\.0\\.0\\.1:${first.port}.*already in use`));
        return true;
      },
    );
  } finally {
    await first.close();
    await t.cleanup();
  }
});
