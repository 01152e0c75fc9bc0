/**
 * The identity of this process among the nodes and workers that share one store
 * (docs/production.md, "Several nodes"): host, process id and start time, so that a restarted
 * process on the same host, even with a reused pid, is a new node. Leases and claims name it;
 * logs, `/readyz` and metrics show it.
 */
import { hostname } from 'node:os';

/** Who this process is, for leases, claims, logs and metrics. */
export interface NodeIdentity {
  /** `host:pid:start`, start in epoch milliseconds (base 36): unique across restarts. */
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  /** When this process started, ISO 8601. */
  readonly startedAt: string;
}

/** The identity of a process started on `host` with `pid` at `startedMs` (pure, for tests). */
export function nodeIdentity(host: string, pid: number, startedMs: number): NodeIdentity {
  return { id: `${host}:${pid}:${startedMs.toString(36)}`, host, pid, startedAt: new Date(startedMs).toISOString() };
}

let current: NodeIdentity | undefined;

/** This process's identity, fixed at its first use. */
export function currentNode(): NodeIdentity {
  current ??= nodeIdentity(hostname(), process.pid, Math.round(Date.now() - process.uptime() * 1000));
  return current;
}
