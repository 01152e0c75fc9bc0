import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../../../store/open-store.js';
import { processLauncher } from './launcher.js';
import { currentNode } from '../../../shared/node-id.js';
import { jobLeaseSettings } from './lease-settings.js';

/** Path of a job's own log file. */
export function jobLogPath(store: Store, jobId: string): string {
  return join(store.home.breakoutLogs, `job-${jobId}.log`);
}

/**
 * Starts a job in its own detached process (the `run-job` entry point), so the CLI and the HTTP
 * server return at once and the job survives them. Its output goes to the job's log file. The
 * job is handed over by lease (docs/breakout.md#leases): `handoffFrom` is the node that claimed
 * it for the process (a sweep taking it over); a pending job is first reserved for this node, so
 * a process that never starts leaves a lease that runs out and the job is taken over.
 */
export async function spawnJobProcess(store: Store, jobId: string, opts: { handoffFrom?: string } = {}): Promise<number> {
  let from = opts.handoffFrom;
  if (from === undefined) {
    const node = currentNode().id;
    const until = new Date(Date.now() + jobLeaseSettings(store.home).leaseMs).toISOString();
    if (await store.jobs.reserve(jobId, node, until)) from = node;
  }
  const fd = openSync(jobLogPath(store, jobId), 'a');
  try {
    const args = ['--home', store.home.root, jobId, ...(from === undefined ? [] : ['--handoff', from])];
    const child = processLauncher.detached('run-job', args, { output: fd });
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
