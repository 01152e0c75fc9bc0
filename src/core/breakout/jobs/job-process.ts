import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../../../store/open-store.js';
import { processLauncher } from './launcher.js';

/** Path of a job's own log file. */
export function jobLogPath(store: Store, jobId: string): string {
  return join(store.home.breakoutLogs, `job-${jobId}.log`);
}

/**
 * Starts a job in its own detached process (the `run-job` entry point), so the CLI and the HTTP
 * server return at once and the job survives them. Its output goes to the job's log file.
 */
export async function spawnJobProcess(store: Store, jobId: string): Promise<number> {
  const fd = openSync(jobLogPath(store, jobId), 'a');
  try {
    const child = processLauncher.detached('run-job', ['--home', store.home.root, jobId], { output: fd });
    await store.jobs.setPid(jobId, child.pid!);
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
