import { spawn } from 'node:child_process';

/** Most bytes kept of each of stdout and stderr; the rest is dropped with a note. */
export const MAX_CAPTURE_BYTES = 8 * 1024 * 1024;

export interface ChildSpec {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** The child is stopped (SIGTERM) when it runs longer than this. */
  timeoutMs: number;
  /** After SIGTERM, how long the child has to exit before SIGKILL. */
  graceMs: number;
}

export interface ChildResult {
  /** The exit code, or null when a signal ended the child. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** True when the time limit stopped the child. */
  timedOut: boolean;
  /** True when SIGTERM was not enough and SIGKILL was sent. */
  killed: boolean;
  stdout: string;
  stderr: string;
  /** Set when the child could not be started at all. */
  spawnError?: string;
}

function capture(stream: NodeJS.ReadableStream | null): () => string {
  const chunks: Buffer[] = [];
  let size = 0;
  let dropped = 0;
  stream?.on('data', (b: Buffer) => {
    const room = MAX_CAPTURE_BYTES - size;
    if (room > 0) chunks.push(b.subarray(0, room));
    size += Math.min(room, b.length);
    dropped += Math.max(0, b.length - Math.max(room, 0));
  });
  return () => Buffer.concat(chunks).toString('utf8') + (dropped ? `\n[${dropped} more bytes not kept]\n` : '');
}

/**
 * Runs a child to its end, capturing its output, with a time limit: past `timeoutMs` it gets
 * SIGTERM (a breakout stops after the page it is writing), and SIGKILL when it is still there
 * `graceMs` later. Never rejects: a child that cannot start is a result with `spawnError`.
 */
export function runChild(spec: ChildSpec): Promise<ChildResult> {
  return new Promise((resolve) => {
    const child = spawn(spec.command, spec.args, { env: spec.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout = capture(child.stdout);
    const stderr = capture(child.stderr);
    let timedOut = false;
    let killed = false;
    let graceTimer: NodeJS.Timeout | undefined;
    const limitTimer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      graceTimer = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, spec.graceMs);
    }, spec.timeoutMs);
    const done = (r: Pick<ChildResult, 'exitCode' | 'signal' | 'spawnError'>) => {
      clearTimeout(limitTimer);
      clearTimeout(graceTimer);
      resolve({ ...r, timedOut, killed, stdout: stdout(), stderr: stderr() });
    };
    child.once('error', (err) => done({ exitCode: null, signal: null, spawnError: err.message }));
    child.once('close', (code, signal) => done({ exitCode: code, signal }));
  });
}
