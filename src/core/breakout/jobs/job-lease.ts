import type { Store } from '../../../store/open-store.js';
import type { JobRow } from '../../../store/jobs-repo.js';
import type { JobLeaseSettings } from './lease-settings.js';

const plus = (at: Date, ms: number): string => new Date(at.getTime() + ms).toISOString();

/**
 * Claims a job for `node` with a lease from `now` (docs/breakout.md#leases): a pending job, one
 * handed over by `handoffFrom`, or one whose lease is over. Undefined when it is not claimable.
 */
export function claimJob(
  store: Store,
  c: { id?: string; node: string; now: Date; leases: JobLeaseSettings; handoffFrom?: string; deadNodes?: string[] },
): Promise<JobRow | undefined> {
  return store.jobs.claim({
    id: c.id,
    node: c.node,
    pid: process.pid,
    now: c.now.toISOString(),
    leaseUntil: plus(c.now, c.leases.leaseMs),
    handoffFrom: c.handoffFrom,
    deadNodes: c.deadNodes,
  });
}

/**
 * Keeps the lease of the job this node runs: renewed every `renewMs` of the injected clock,
 * checked whenever the runner asks (before each page) and by a timer for long pages. Once
 * another node holds the job, `lost` stays true and the runner stops without ending the job:
 * the job is the other node's now.
 */
export class JobLeaseKeeper {
  lost = false;
  private lastRenew: number;
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly jobId: string,
    readonly node: string,
    private readonly settings: JobLeaseSettings,
    private readonly now: () => Date,
  ) {
    this.lastRenew = now().getTime();
  }

  /** Renews on a timer too, so a page longer than the renewal interval does not let the lease run out. */
  start(): void {
    this.timer = setInterval(() => void this.renewIfDue().catch(() => undefined), this.settings.renewMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  /** Renews the lease when the renewal interval has passed; marks it lost when the node no longer holds it. */
  renewIfDue(): Promise<void> {
    const at = this.now();
    if (this.lost || at.getTime() - this.lastRenew < this.settings.renewMs) return this.renewing ?? Promise.resolve();
    this.renewing ??= (async () => {
      try {
        if (!(await this.store.jobs.renewLease(this.jobId, this.node, plus(at, this.settings.leaseMs), at.toISOString()))) this.lost = true;
        else this.lastRenew = at.getTime();
      } finally {
        this.renewing = undefined;
      }
    })();
    return this.renewing;
  }

  /** Whether the runner should stop before its next page: the job was cancelled, or is no longer this node's. */
  async shouldStop(): Promise<boolean> {
    await this.renewIfDue();
    const lease = await this.store.jobs.leaseOf(this.jobId);
    if (!lease || lease.node !== this.node || lease.status !== 'running') this.lost = true;
    return this.lost || lease?.cancelRequested === true;
  }
}
