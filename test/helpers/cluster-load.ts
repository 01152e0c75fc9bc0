/**
 * Tablets syncing through the load balancer of a cluster (test/helpers/cluster.ts) while nodes
 * die: uploaders that retry a failed upload with the very same request until it is acknowledged
 * (as the CSPro client does; the retry is idempotent by case id and clock, docs/production.md#the-load-balancer),
 * and downloaders that run complete downloads again and again. Used by
 * test/e2e/cluster/kill-node.test.ts and bench/soak-cluster.ts.
 */
import { loginAt, callerAt, postUpload } from './cluster-client.js';
import { popstanCases, SyncDevice } from './sync-client.js';

/** What tablets may see while a node dies: the balancer's 502/504, a cut connection, a 503 of a node losing the store. */
const RETRYABLE = new Set([0, 502, 503, 504]);
/** Tries of one upload before it counts as lost (far more than a node's death costs). */
const MAX_TRIES = 200;

export interface TabletOptions {
  /** nginx's URL. */
  base: string;
  dict: string;
  uploaders: number;
  downloaders: number;
  /** Cases per upload request. */
  casesPerUpload: number;
  /** Uploads each uploader makes at least; it goes on until `stop()` after that. */
  minUploads: number;
  /** Cases per download page. */
  pageSize?: number;
  /** A tablet's pause between two uploads or two downloads, in ms (default none): a field's pace, not a benchmark's. */
  pauseMs?: number;
}

export interface TabletReport {
  /** Case ids whose upload was answered 200. */
  acked: string[];
  /** Upload requests answered, by status (0: no answer); the retries included. */
  uploadStatuses: Record<string, number>;
  /** Uploads given up after MAX_TRIES, or answered a status no retry fixes: each a line. */
  uploadFailures: string[];
  /** Complete downloads, and downloads that failed part-way (the tablet starts again). */
  downloads: number;
  downloadErrors: string[];
}

export interface Tablets {
  /** Resolves once the tablets have had `uploaders × minUploads` uploads acknowledged. */
  minimumDone: Promise<void>;
  /** Lets every tablet finish its current request and stop; the report (the same on a second call). */
  stop(): Promise<TabletReport>;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Logs in through the balancer, trying again while nodes die. */
async function tokenFor(base: string): Promise<string> {
  for (let i = 0; ; i++) {
    try {
      return await loginAt(base, 'standard');
    } catch (err) {
      if (i >= 50) throw err;
      await pause(100);
    }
  }
}

/** Starts the tablets; they run until `stop()`. */
export function startTablets(o: TabletOptions): Tablets {
  let stopping = false;
  const report: TabletReport = { acked: [], uploadStatuses: {}, uploadFailures: [], downloads: 0, downloadErrors: [] };
  const count = (status: number) => (report.uploadStatuses[status] = (report.uploadStatuses[status] ?? 0) + 1);

  const uploader = async (n: number): Promise<void> => {
    const device = `tablet-${n}-${Date.now().toString(36)}`;
    const token = await tokenFor(o.base);
    for (let done = 0; done < o.minUploads || !stopping; done++) {
      const cases = popstanCases(o.casesPerUpload, device);
      for (let tries = 1; ; tries++) {
        const r = await postUpload(o.base, token, o.dict, cases, device);
        count(r.status);
        if (r.status === 200) {
          report.acked.push(...cases.map((c) => c.id));
          await pause(o.pauseMs ?? 0);
          break;
        }
        if (!RETRYABLE.has(r.status) || tries >= MAX_TRIES) {
          report.uploadFailures.push(`${device}: ${r.status} ${r.error ?? r.body.slice(0, 200)} after ${tries} tries`);
          break;
        }
        await pause(50);
      }
    }
  };
  let minimum: () => void;
  const minimumDone = new Promise<void>((r) => (minimum = r));
  const uploads = Array.from({ length: o.uploaders }, (_, n) => uploader(n));
  const watch = setInterval(() => {
    if (report.acked.length >= o.uploaders * o.minUploads * o.casesPerUpload) minimum();
  }, 100);

  const downloader = async (n: number): Promise<void> => {
    while (!stopping) {
      // A new device each time: a complete download from the start, as a fresh tablet does.
      const device = new SyncDevice(callerAt(o.base), `reader-${n}-${report.downloads}`);
      try {
        await device.get(o.dict, o.pageSize ?? 200);
        report.downloads++;
        await pause(o.pauseMs ?? 0);
      } catch (err) {
        report.downloadErrors.push(String(err));
        await pause(100);
      }
    }
  };
  const downloads = Array.from({ length: o.downloaders }, (_, n) => downloader(n));

  let stopped: Promise<TabletReport> | undefined;
  return {
    minimumDone,
    stop: () =>
      (stopped ??= (async () => {
        stopping = true;
        await Promise.all([...uploads, ...downloads]);
        clearInterval(watch);
        return report;
      })()),
  };
}
