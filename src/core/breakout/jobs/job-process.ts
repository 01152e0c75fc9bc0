import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Store } from '../../../store/open-store.js';

/** bin/sds of this installation (src/core/breakout/jobs and dist/core/breakout/jobs are both four levels down). */
const SDS_BIN = fileURLToPath(new URL('../../../../bin/sds', import.meta.url));

/** Path of a job's own log file. */
export function jobLogPath(store: Store, jobId: string): string {
  return join(store.home.breakoutLogs, `job-${jobId}.log`);
}

/**
 * Starts a job in its own detached process (`sds breakout run-job`), so the CLI and the HTTP
 * server return at once and the job survives them. Its output goes to the job's log file.
 */
export function spawnJobProcess(store: Store, jobId: string): number {
  const fd = openSync(jobLogPath(store, jobId), 'a');
  try {
    const child = spawn(process.execPath, [SDS_BIN, '--home', store.home.root, 'breakout', 'run-job', jobId], {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: process.env,
    });
    child.unref();
    store.jobs.setPid(jobId, child.pid!);
    return child.pid!;
  } finally {
    closeSync(fd);
  }
}

/** True while a process with this pid exists (signal 0 checks without signalling). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
