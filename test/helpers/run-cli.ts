import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Path of the real CLI entry point (runs the compiled dist/). */
export const SDS_BIN = fileURLToPath(new URL('../../bin/sds', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout as raw bytes (for byte-exact checks). */
  raw: Buffer;
  /** stdout parsed as JSON; fails with the whole output when it is not JSON. */
  json<T = any>(): T;
}

export interface RunOptions {
  /** Written to the child's stdin (then closed). Without it stdin is empty (closed at once). */
  stdin?: string | Buffer;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/**
 * Runs `node bin/sds [--home home] ...args` as a subprocess and waits for it. `home` may be
 * null to run without `--home` (e.g. for `--help`).
 */
export function runCli(home: string | null, args: string[], opts: RunOptions = {}): CliResult {
  const argv = [SDS_BIN, ...(home === null ? [] : ['--home', home]), ...args];
  const r = spawnSync(process.execPath, argv, {
    input: opts.stdin ?? '',
    cwd: opts.cwd,
    env: { ...process.env, NO_COLOR: '1', CI: '1', ...opts.env },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 60_000,
  });
  if (r.error) throw r.error;
  const raw = r.stdout;
  const stdout = raw.toString('utf8');
  const stderr = r.stderr.toString('utf8');
  return {
    code: r.status,
    stdout,
    stderr,
    raw,
    json<T>() {
      try {
        return JSON.parse(stdout) as T;
      } catch {
        throw new Error(`stdout is not JSON (exit ${r.status}):\n${stdout}\nstderr:\n${stderr}`);
      }
    },
  };
}

/** Like `runCli` without blocking the test process, so independent runs can go in parallel. */
export function runCliAsync(home: string | null, args: string[], opts: RunOptions = {}): Promise<CliResult> {
  const argv = [SDS_BIN, ...(home === null ? [] : ['--home', home]), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: opts.cwd, env: { ...process.env, NO_COLOR: '1', CI: '1', ...opts.env } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => {
      const raw = Buffer.concat(out);
      const stdout = raw.toString('utf8');
      const stderr = Buffer.concat(err).toString('utf8');
      resolve({
        code,
        stdout,
        stderr,
        raw,
        json<T>() {
          try {
            return JSON.parse(stdout) as T;
          } catch {
            throw new Error(`stdout is not JSON (exit ${code}):\n${stdout}\nstderr:\n${stderr}`);
          }
        },
      });
    });
    child.stdin.end(opts.stdin ?? '');
  });
}

/** Formats a result for assertion messages. */
export function show(r: CliResult): string {
  return `exit ${r.code}\n--- stdout\n${r.stdout.slice(0, 4000)}\n--- stderr\n${r.stderr.slice(0, 4000)}`;
}
