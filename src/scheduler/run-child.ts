import { spawn } from 'node:child_process';

/** Most bytes kept of each of stdout and stderr; the rest is dropped with a note. */
const MAX_CAPTURE_BYTES = 8 * 1024 * 1024;

export interface ChildSpec {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** The child is stopped (SIGTERM) when it runs longer than this. */
  timeoutMs: number;
  /** After SIGTERM, how long the child has to exit before SIGKILL. */
  graceMs: number;
  /**
   * Aborted when the command running the child is interrupted: the child gets the signal named
   * by the reason (else SIGTERM), then SIGKILL after `graceMs`. The child then runs in its own
   * process group, so a Ctrl-C at the terminal reaches it only through here, once.
   */
  stop?: AbortSignal;
}

export interface ChildResult {
  /** The exit code, or null when a signal ended the child. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** True when the time limit stopped the child. */
  timedOut: boolean;
  /** True when SIGTERM was not enough and SIGKILL was sent. */
  killed: boolean;
  /** The signal passed on to the child when `stop` aborted, if it did. */
  stoppedBy?: NodeJS.Signals;
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
    const child = spawn(spec.command, spec.args, {
      env: spec.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: spec.stop !== undefined,
    });
    const stdout = capture(child.stdout);
    const stderr = capture(child.stderr);
    let timedOut = false;
    let killed = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let stoppedBy: NodeJS.Signals | undefined;
    const end = (sig: NodeJS.Signals) => {
      child.kill(sig);
      graceTimer ??= setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, spec.graceMs);
    };
    const limitTimer = setTimeout(() => {
      if (stoppedBy) return;
      timedOut = true;
      end('SIGTERM');
    }, spec.timeoutMs);
    const onStop = () => {
      if (timedOut || stoppedBy) return;
      const reason: unknown = spec.stop?.reason;
      stoppedBy = reason === 'SIGINT' || reason === 'SIGTERM' ? reason : 'SIGTERM';
      end(stoppedBy);
    };
    if (spec.stop?.aborted) onStop();
    else spec.stop?.addEventListener('abort', onStop, { once: true });
    const done = (r: Pick<ChildResult, 'exitCode' | 'signal' | 'spawnError'>) => {
      clearTimeout(limitTimer);
      clearTimeout(graceTimer);
      spec.stop?.removeEventListener('abort', onStop);
      resolve({ ...r, timedOut, killed, stoppedBy, stdout: stdout(), stderr: stderr() });
    };
    child.once('error', (err) => done({ exitCode: null, signal: null, spawnError: err.message }));
    child.once('close', (code, signal) => done({ exitCode: code, signal }));
  });
}
