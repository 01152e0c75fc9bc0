import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { SDS_BIN } from './run-cli.js';

/** A real `sds serve` child process over a home (runs the compiled dist/: build first). */
export interface ServeProcess {
  url: string;
  child: ChildProcess;
  /** Everything the server wrote on stderr (its request log and errors), kept for reports. */
  stderr(): string;
  /** The last lines of stderr that are not request-log lines: what a crash or an internal error said. */
  errors(lines?: number): string;
  /** Exit code and signal once it has ended; null while it runs. */
  exit(): { code: number | null; signal: NodeJS.Signals | null } | null;
  /** Resolves when the process has ended. */
  ended: Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it has ended. */
  stop(graceMs?: number): Promise<void>;
  /** `kill -9`. */
  kill9(): Promise<void>;
}

/**
 * Starts `sds --home HOME serve --port PORT --json` (any free port by default) and resolves with
 * its URL once it listens.
 * `env` is added to this process's environment (e.g. SDS_JWT_SECRET so tokens survive a restart);
 * `args` are more options of `serve` (e.g. `--log-format json`); `bin` another build's `bin/sds` (benchmarks alternate builds).
 */
export async function startServe(
  home: string,
  env: NodeJS.ProcessEnv = {},
  port = 0,
  args: string[] = [],
  bin = SDS_BIN,
): Promise<ServeProcess> {
  const argv = [bin, '--home', home, 'serve', '--host', '127.0.0.1', '--port', String(port), '--json', ...args];
  const child = spawn(process.execPath, argv, {
    // One process unless the test asks for workers (SDS_WORKERS or --workers): what a test
    // reads of one process (its metrics, its upload budget) stays that process's.
    env: { ...process.env, NO_COLOR: '1', SDS_WORKERS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const errChunks: string[] = [];
  let errLen = 0;
  // The log of a long soak can be large: keep the last 4 MB.
  child.stderr!.on('data', (b: Buffer) => {
    errChunks.push(b.toString());
    errLen += b.length;
    while (errLen > 4 * 1024 * 1024 && errChunks.length > 1) errLen -= errChunks.shift()!.length;
  });
  let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  // 'close' rather than 'exit': by then stderr is read to the end, the crash's stack included.
  const ended = new Promise<void>((resolve) => child.once('close', (code, signal) => ((exited = { code, signal }), resolve())));
  const url = await new Promise<string>((resolve, reject) => {
    // 60 s: a group of workers starts several processes, on a machine others share.
    const timer = setTimeout(() => reject(new Error(`sds serve printed no URL in 60 s; stderr:\n${errChunks.join('')}`)), 60_000);
    void ended.then(() =>
      reject(new Error(`sds serve exited (${JSON.stringify(exited)}) before listening; stderr:\n${errChunks.join('')}`)),
    );
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve((JSON.parse(line) as { url: string }).url);
      } catch {
        reject(new Error(`sds serve printed ${line}`));
      }
    });
  });
  child.stdout!.resume();
  return {
    url,
    child,
    stderr: () => errChunks.join(''),
    errors: (lines = 30) =>
      errChunks
        .join('')
        .split('\n')
        .filter((l) => l.trim() !== '' && !/^\S+Z [A-Z]+ \S+ \d{3} \d+ms/.test(l))
        .slice(-lines)
        .join('\n'),
    exit: () => exited,
    ended,
    async stop(graceMs = 10_000) {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await ended;
      clearTimeout(timer);
    },
    async kill9() {
      if (exited) return;
      child.kill('SIGKILL');
      await ended;
    },
  };
}
