import type { UploadChecker } from '../../core/sync/index.js';
import type { Store } from '../../core/home/index.js';
import type { TokenService } from '../../core/auth/index.js';
import type { FsSpace } from '../../core/health/index.js';
import type { MemoryBudget } from '../../shared/memory-budget.js';
import type { HttpConfig } from '../config.js';
import type { ServerMetrics } from '../prometheus.js';
import type { WorkerMetricsLink } from '../worker-metrics-ipc.js';

/** What route groups get: the store, the token service, the HTTP settings, the server's metrics and its upload memory budget. */
export interface RouteDeps {
  store: Store;
  tokens: TokenService;
  config: HttpConfig;
  /** Current time in epoch milliseconds (the app's injected clock; rate-limit windows use it). */
  clock: () => number;
  /**
   * The Prometheus metrics and the token of `GET /metrics`, and in a worker of `sds serve --workers N`
   * the link to the other workers; absent when SDS_METRICS_TOKEN is unset.
   */
  prometheus?: { metrics: ServerMetrics; token: string; workers?: WorkerMetricsLink };
  /** Readiness settings, resolved (docs/http-api.md#health-and-readiness). */
  health: { minFreeBytes: number; readyCacheMs: number; statfs?: (path: string) => FsSpace };
  /** The memory the sync uploads in flight may hold together, one per server (docs/limits.md#memory-of-uploads-in-flight). */
  uploadMemory: MemoryBudget;
  /** Where sync uploads are checked against their dictionary: in the server's check threads, or inline. */
  checker: UploadChecker;
}
