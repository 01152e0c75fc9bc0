import type { QueueDepth } from '../../store/monitoring-repo.js';
import type { Store } from '../../store/open-store.js';
import { devicesSeen } from '../reports/index.js';

/** A schedule's last run, for the per-schedule gauges. */
export interface ScheduleReading {
  dictionary: string;
  /** Unix seconds of the last run's start; null when it never ran. */
  lastRunSeconds: number | null;
  /** Exit code of the last finished run (the schedule's `last_exit_code`); null while none finished. */
  lastExitCode: number | null;
}

/** What `GET /metrics` reads from the home at each scrape (docs/metrics.md). */
export interface MonitoringReadings {
  /** sds.db, or the PostgreSQL store's database. */
  storeBytes: number;
  /** 0 when there is no WAL file (right after a truncating checkpoint), and on PostgreSQL. */
  walBytes: number;
  /** Finished breakout jobs by final state: completed, failed, cancelled. */
  breakoutJobs: Record<string, number>;
  breakoutCases: number;
  breakoutSeconds: number;
  /** Webhook delivery attempts by outcome: success, failed. */
  webhookAttempts: Record<string, number>;
  webhookQueue: QueueDepth;
  schedules: ScheduleReading[];
  /** Per dictionary, the distinct devices that synced it in the last 24 hours. */
  devicesSeen24h: Record<string, number>;
}

const seconds = (iso: string | null): number | null => {
  if (iso === null) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms / 1000;
};

/**
 * Reads the figures of the metrics that live in the home rather than in the server's memory:
 * store and WAL sizes (of sds.db, or of the PostgreSQL database), the durable job and webhook counters (kept by the store's triggers, so
 * they count the work of job processes and `sds scheduler-run` too, and pruning never lowers
 * them; docs/decisions.md), the webhook queue depth, each schedule's last run, and the devices
 * that synced each dictionary in the last 24 hours.
 */
export async function monitoringReadings(store: Store, nowMs: number): Promise<MonitoringReadings> {
  const breakoutJobs: Record<string, number> = { completed: 0, failed: 0, cancelled: 0 };
  const webhookAttempts: Record<string, number> = { success: 0, failed: 0 };
  let breakoutCases = 0;
  let breakoutSeconds = 0;
  for (const c of await store.monitoring.counters()) {
    if (c.name === 'breakout_jobs') breakoutJobs[c.label] = c.value;
    else if (c.name === 'webhook_attempts') webhookAttempts[c.label] = c.value;
    else if (c.name === 'breakout_cases') breakoutCases = c.value;
    else if (c.name === 'breakout_seconds') breakoutSeconds = c.value;
  }
  const schedules = (await store.schedules.list()).map((s) => ({
    dictionary: s.dictionary,
    lastRunSeconds: seconds(s.lastRun),
    lastExitCode: s.lastExitCode,
  }));
  const { storeBytes, walBytes } = await store.monitoring.sizes();
  return {
    storeBytes,
    walBytes,
    breakoutJobs,
    breakoutCases,
    breakoutSeconds,
    webhookAttempts,
    webhookQueue: await store.monitoring.queueDepth(nowMs),
    schedules,
    devicesSeen24h: await devicesSeen(store, nowMs),
  };
}
