import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { LoginEvent } from '../core/auth/index.js';
import type { MonitoringReadings } from '../core/health/index.js';
import { currentNode } from '../shared/node-id.js';

/** Route label of a request no route matched: raw paths would make unbounded label values. */
export const UNMATCHED_ROUTE = 'unmatched';

const LINT_FAILING_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** A registry's metrics as prom-client's JSON (`getMetricsAsJSON()`): what a worker sends of its own. */
export type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/**
 * The Prometheus metrics of one app (docs/metrics.md), in a registry of its own rather than
 * prom-client's global one, so several apps in one process (tests) never share or clash. The
 * counters of what the server itself sees (requests, synced cases, logins) live here; the
 * figures kept in the home (jobs, webhooks, sizes, schedules) are read at each scrape.
 */
export class ServerMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route' | 'status'>;
  private readonly uploaded: Counter<'dictionary'>;
  private readonly uploadsChecked: Counter<'where'>;
  private readonly downloaded: Counter<'dictionary'>;
  private readonly loginFailures: Counter<'grant'>;
  private readonly loginThrottles: Counter<'grant'>;
  private readonly breakoutJobs: Counter<'outcome'>;
  private readonly breakoutCases: Counter;
  private readonly breakoutSeconds: Counter;
  private readonly webhookAttempts: Counter<'outcome'>;
  private readonly webhookQueue: Gauge<'state'>;
  private readonly storeBytes: Gauge;
  private readonly walBytes: Gauge;
  private readonly scheduleLastRun: Gauge<'dictionary'>;
  private readonly scheduleExitCode: Gauge<'dictionary'>;
  private readonly uploadMemoryHeld: Gauge;
  private readonly uploadMemorySize: Gauge;
  private readonly devicesSeen: Gauge<'dictionary'>;
  /**
   * Figures read from the home at each scrape: every worker would read the same, so a scrape over
   * the workers takes them once, from the worker that answers it (docs/metrics.md#workers).
   */
  private readonly readFromStore = new Set<string>();
  /** Metrics of the process itself, labelled with `worker` in a scrape over the workers. */
  private readonly perProcess: Set<string>;
  /** How many workers a scrape over the workers covers; in a registry of their own, as they exist only then. */
  private readonly groupRegistry = new Registry();
  private readonly workers: Gauge;
  private readonly workersScraped: Gauge;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'sds_' });
    // Gauges that prom-client names `_total`, a suffix Prometheus reserves for counters, so promtool
    // refuses them; the same figures stay under the names without it (sds_nodejs_active_handles …).
    for (const name of LINT_FAILING_DEFAULTS) this.registry.removeSingleMetric(`sds_${name}`);
    this.perProcess = new Set([
      ...this.registry.getMetricsAsArray().map((m) => m.name),
      'sds_node_info',
      'sds_sync_upload_memory_bytes',
      'sds_sync_upload_memory_budget_bytes',
    ]);
    this.workers = new Gauge({
      name: 'sds_workers',
      help: 'Worker processes this server runs (sds serve --workers).',
      registers: [this.groupRegistry],
    });
    this.workersScraped = new Gauge({
      name: 'sds_workers_scraped',
      help: 'Workers whose metrics this scrape includes; fewer than sds_workers when some did not answer in time.',
      registers: [this.groupRegistry],
    });
    // Which node of those sharing a store answers this scrape (docs/metrics.md): 1, labelled.
    const node = currentNode();
    new Gauge({
      name: 'sds_node_info',
      help: 'The node id of this server process (host:pid:start), its host and when it started; always 1.',
      labelNames: ['node', 'host', 'started_at'],
      registers,
    }).set({ node: node.id, host: node.host, started_at: node.startedAt }, 1);
    this.requests = new Counter({
      name: 'sds_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.duration = new Histogram({
      name: 'sds_http_request_duration_seconds',
      help: 'Time from the request reaching the app to its reply, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    });
    this.uploaded = new Counter({
      name: 'sds_sync_cases_uploaded_total',
      help: 'Cases received by sync uploads that were stored, by dictionary.',
      labelNames: ['dictionary'],
      registers,
    });
    this.uploadsChecked = new Counter({
      name: 'sds_sync_uploads_checked_total',
      help: 'Sync uploads stored, by where their cases were read and checked: main (the main thread) or thread (a check thread).',
      labelNames: ['where'],
      registers,
    });
    this.downloaded = new Counter({
      name: 'sds_sync_cases_downloaded_total',
      help: 'Cases sent by sync downloads, by dictionary.',
      labelNames: ['dictionary'],
      registers,
    });
    this.loginFailures = new Counter({
      name: 'sds_login_failures_total',
      help: 'Refused credentials at POST /api/token, by grant.',
      labelNames: ['grant'],
      registers,
    });
    this.loginThrottles = new Counter({
      name: 'sds_login_throttled_total',
      help: 'Login attempts refused by the failed-login throttle at POST /api/token, by grant.',
      labelNames: ['grant'],
      registers,
    });
    this.breakoutJobs = new Counter({
      name: this.fromHome('sds_breakout_jobs_total'),
      help: 'Breakout jobs finished, by outcome (completed, failed, cancelled); kept in the store.',
      labelNames: ['outcome'],
      registers,
    });
    this.breakoutCases = new Counter({
      name: this.fromHome('sds_breakout_cases_processed_total'),
      help: 'Cases processed by finished breakout jobs; kept in the store.',
      registers,
    });
    this.breakoutSeconds = new Counter({
      name: this.fromHome('sds_breakout_job_duration_seconds_total'),
      help: 'Seconds from start to end of finished breakout jobs, summed; kept in the store.',
      registers,
    });
    this.webhookAttempts = new Counter({
      name: this.fromHome('sds_webhook_delivery_attempts_total'),
      help: 'Webhook delivery attempts, by outcome (success, failed); kept in the store.',
      labelNames: ['outcome'],
      registers,
    });
    this.webhookQueue = new Gauge({
      name: this.fromHome('sds_webhook_queue_deliveries'),
      help: 'Webhook deliveries in the queue of active webhooks, by state (due, waiting, failed).',
      labelNames: ['state'],
      registers,
    });
    this.storeBytes = new Gauge({
      name: this.fromHome('sds_store_size_bytes'),
      help: 'Size of the store: the file sds.db, or the PostgreSQL database.',
      registers,
    });
    this.walBytes = new Gauge({
      name: this.fromHome('sds_store_wal_size_bytes'),
      help: 'Size of the store write-ahead log sds.db-wal.',
      registers,
    });
    this.scheduleLastRun = new Gauge({
      name: this.fromHome('sds_schedule_last_run_timestamp_seconds'),
      help: 'Start of the last run of the schedule of a dictionary, in Unix seconds.',
      labelNames: ['dictionary'],
      registers,
    });
    this.scheduleExitCode = new Gauge({
      name: this.fromHome('sds_schedule_last_exit_code'),
      help: 'Exit code of the last run of the schedule of a dictionary (-1 while it runs).',
      labelNames: ['dictionary'],
      registers,
    });
    this.uploadMemoryHeld = new Gauge({
      name: 'sds_sync_upload_memory_bytes',
      help: 'Bytes of the upload memory budget that sync uploads in flight hold (limits.upload_memory_bytes).',
      registers,
    });
    this.uploadMemorySize = new Gauge({
      name: 'sds_sync_upload_memory_budget_bytes',
      help: 'The upload memory budget: what sync uploads in flight may hold together (limits.upload_memory_bytes).',
      registers,
    });
    // Per dictionary only: a label per device would grow with the field operation (docs/metrics.md).
    this.devicesSeen = new Gauge({
      name: this.fromHome('sds_sync_devices_seen_24h'),
      help: 'Distinct devices that synced the dictionary (upload or completed download) in the last 24 hours.',
      labelNames: ['dictionary'],
      registers,
    });
    // Counters with fixed label values start at 0, so a rate() works from the first scrape.
    for (const grant of ['password', 'refresh_token']) {
      this.loginFailures.inc({ grant }, 0);
      this.loginThrottles.inc({ grant }, 0);
    }
  }

  /** Counts one answered request; `route` is the template (or UNMATCHED_ROUTE). */
  request(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.duration.observe(labels, seconds);
  }

  syncUploaded(dictionary: string, cases: number, threaded = false): void {
    this.uploaded.inc({ dictionary }, cases);
    this.uploadsChecked.inc({ where: threaded ? 'thread' : 'main' });
  }

  syncDownloaded(dictionary: string, cases: number): void {
    this.downloaded.inc({ dictionary }, cases);
  }

  login(e: LoginEvent): void {
    if (e.kind !== 'failed' && e.kind !== 'throttled') return; // a re-hash is not a failure
    (e.kind === 'throttled' ? this.loginThrottles : this.loginFailures).inc({ grant: e.grant });
  }

  /**
   * The Prometheus text of every metric, after taking in the figures read from the home and what
   * the uploads in flight hold of their memory budget (docs/limits.md#memory-of-uploads-in-flight).
   */
  async scrape(r: MonitoringReadings, uploadMemory: { held: number; size: number }): Promise<string> {
    this.takeReadings(r, uploadMemory);
    return this.registry.metrics();
  }

  /**
   * This worker's share of a scrape over the workers (docs/metrics.md#workers): its counters and
   * histograms, and its process metrics labelled `worker`; not the figures read from the home.
   */
  async workerShare(worker: number): Promise<MetricsJson> {
    return this.labelled(await this.registry.getMetricsAsJSON(), worker).filter((m) => !this.readFromStore.has(m.name));
  }

  /**
   * The Prometheus text of a scrape over the workers: this worker's metrics, with the figures read
   * from the home, combined with the other workers' shares by prom-client's aggregator, which sums
   * what has the same name and labels (docs/metrics.md#workers).
   */
  async scrapeWorkers(
    r: MonitoringReadings,
    uploadMemory: { held: number; size: number },
    worker: number,
    others: { shares: MetricsJson[]; workers: number },
  ): Promise<string> {
    this.takeReadings(r, uploadMemory);
    const own = this.labelled(await this.registry.getMetricsAsJSON(), worker);
    this.workers.set(others.workers);
    this.workersScraped.set(1 + others.shares.length);
    return AggregatorRegistry.aggregate([own, ...others.shares, await this.groupRegistry.getMetricsAsJSON()]).metrics();
  }

  /** The process metrics with a `worker` label each: one series per worker, never summed. */
  private labelled(metrics: MetricsJson, worker: number): MetricsJson {
    return metrics.map((m) =>
      this.perProcess.has(m.name)
        ? // 'sum' over one value per label set keeps each; prom-client's own aggregators would drop
          // the start time ('omit') and keep one worker's Node.js version ('first').
          { ...m, aggregator: 'sum', values: m.values.map((v) => ({ ...v, labels: { ...v.labels, worker: String(worker) } })) }
        : m,
    );
  }

  /** `name`, noted as one of the figures read from the home (readFromStore). */
  private fromHome(name: string): string {
    this.readFromStore.add(name);
    return name;
  }

  /** Takes in the figures read from the home and what the uploads in flight hold. */
  private takeReadings(r: MonitoringReadings, uploadMemory: { held: number; size: number }): void {
    this.uploadMemoryHeld.set(uploadMemory.held);
    this.uploadMemorySize.set(uploadMemory.size);
    this.setTotals(this.breakoutJobs, 'outcome', r.breakoutJobs);
    this.breakoutCases.reset();
    this.breakoutCases.inc(r.breakoutCases);
    this.breakoutSeconds.reset();
    this.breakoutSeconds.inc(r.breakoutSeconds);
    this.setTotals(this.webhookAttempts, 'outcome', r.webhookAttempts);
    this.webhookQueue.reset();
    for (const [state, n] of Object.entries(r.webhookQueue)) this.webhookQueue.set({ state }, n);
    this.storeBytes.set(r.storeBytes);
    this.walBytes.set(r.walBytes);
    // Reset first: a deleted schedule must leave the output, not stay at its last value.
    this.scheduleLastRun.reset();
    this.scheduleExitCode.reset();
    for (const s of r.schedules) {
      if (s.lastRunSeconds !== null) this.scheduleLastRun.set({ dictionary: s.dictionary }, s.lastRunSeconds);
      if (s.lastExitCode !== null) this.scheduleExitCode.set({ dictionary: s.dictionary }, s.lastExitCode);
    }
    // Reset first, as the schedules: a deleted dictionary leaves the output.
    this.devicesSeen.reset();
    for (const [dictionary, n] of Object.entries(r.devicesSeen24h)) this.devicesSeen.set({ dictionary }, n);
  }

  /** Sets a counter to totals kept in the store: prom-client counters only go up, so reset first. */
  private setTotals<L extends string>(counter: Counter<L>, label: L, totals: Record<string, number>): void {
    counter.reset();
    for (const [value, n] of Object.entries(totals)) counter.inc({ [label]: value } as Record<L, string>, n);
  }
}
