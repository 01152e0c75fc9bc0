import type { RetainedJob, RetainedLogEntry, RetainedRun } from '../../store/log-retention-repo.js';

/**
 * The kinds of logs that retention prunes (docs/logs.md#retention): four logs of sds's own work,
 * and the messages devices sent, which are rows only and have rules of their own.
 */
export type LogKind = 'import' | 'jobs' | 'runs' | 'breakout' | 'messages';

export const LOG_KINDS: readonly LogKind[] = ['import', 'jobs', 'runs', 'breakout', 'messages'];

/** A file of `logs/import/` or `logs/breakout/` under the home. */
export interface LogFile {
  dir: 'import' | 'breakout';
  name: string;
  mtimeMs: number;
  size: number;
}

/** Everything retention looks at: the rows of the store and the files of the log folders. */
export interface PruneInventory {
  jobs: RetainedJob[];
  logEntries: RetainedLogEntry[];
  runs: RetainedRun[];
  /** `schedules.last_log_file` of every schedule: the run log each schedule shows. */
  scheduleLogFiles: string[];
  files: LogFile[];
}

/** What is pruned: anything older than `olderThanDays` days before `now`, or beyond the newest `keep` of its kind. */
export interface PruneRules {
  olderThanDays: number;
  keep: number;
  now: Date;
}

/** What to delete: rows by id, then files, each file with the kind it belongs to. */
export interface PrunePlan {
  jobs: string[];
  logEntries: number[];
  /** Breakout log entries of the jobs pruned, which go with their job. */
  jobLogEntries: number[];
  runs: number[];
  files: (LogFile & { kind: LogKind })[];
}

const DAY_MS = 86_400_000;
const FINISHED = new Set(['completed', 'failed', 'cancelled']);

/** Name of a job's log file in `logs/breakout/` (core/breakout/jobs/job-process.ts). */
const jobFileName = (id: string) => `job-${id}.log`;

/**
 * Items of one kind to delete: not `kept`, and older than `cutoff` or past the newest `keep`
 * (newest first by time, then by `order`; protected items still take a place in the count).
 */
function pick<T>(items: T[], time: (t: T) => number, order: (t: T) => string | number, kept: (t: T) => boolean, rules: Cut): T[] {
  const sorted = [...items].sort((a, b) => time(b) - time(a) || (order(b) > order(a) ? 1 : order(b) < order(a) ? -1 : 0));
  return sorted.filter((t, i) => !kept(t) && (i >= rules.keep || time(t) < rules.cutoff));
}

interface Cut {
  keep: number;
  cutoff: number;
}

const at = (iso: string | null | undefined): number => {
  const t = iso ? Date.parse(iso) : NaN;
  return Number.isNaN(t) ? 0 : t;
};

/**
 * The jobs that GET /api/metrics and the breakout time estimate read (core/metrics/metrics.ts):
 * per dictionary, its latest completed and its latest failed job. Ties all stay.
 */
function jobsStillNeeded(jobs: RetainedJob[]): Set<string> {
  const latest = new Map<string, number>();
  const key = (d: string, status: string) => `${status}\0${d}`;
  for (const j of jobs) {
    if (j.status !== 'completed' && j.status !== 'failed') continue;
    for (const d of j.dictionaries) latest.set(key(d, j.status), Math.max(latest.get(key(d, j.status)) ?? -1, at(j.finishedAt)));
  }
  const keep = new Set<string>();
  for (const j of jobs) {
    if (j.status !== 'completed' && j.status !== 'failed') continue;
    if (j.dictionaries.some((d) => latest.get(key(d, j.status)) === at(j.finishedAt))) keep.add(j.id);
  }
  return keep;
}

/**
 * Plans a prune (docs/logs.md#retention), from the inventory alone: no I/O, no clock. Never
 * planned: unfinished jobs and their breakout log entries, running schedule runs, the latest run
 * of each schedule and the run log a schedule shows, and the jobs of jobsStillNeeded. The count
 * is per kind over the whole home. A file whose row is gone (an orphan) is pruned by age only.
 */
export function planPrune(inv: PruneInventory, rules: PruneRules): PrunePlan {
  const cut: Cut = { keep: rules.keep, cutoff: rules.now.getTime() - rules.olderThanDays * DAY_MS };
  const filesByDir = (dir: LogFile['dir']) => new Map(inv.files.filter((f) => f.dir === dir).map((f) => [f.name, f]));
  const breakoutFiles = filesByDir('breakout');
  const files: PrunePlan['files'] = [];
  const addFile = (name: string | null, kind: LogKind) => {
    const f = name === null ? undefined : breakoutFiles.get(name);
    if (f && !files.some((p) => p.dir === 'breakout' && p.name === f.name)) files.push({ ...f, kind });
  };

  // Jobs, with their log files.
  const needed = jobsStillNeeded(inv.jobs);
  const finished = inv.jobs.filter((j) => FINISHED.has(j.status));
  const jobs = pick(
    finished,
    (j) => at(j.finishedAt ?? j.createdAt),
    (j) => j.id,
    (j) => needed.has(j.id),
    cut,
  );
  for (const j of jobs) addFile(jobFileName(j.id), 'jobs');

  // Breakout log entries; those of a pruned job go with it.
  const unfinished = new Set(inv.jobs.filter((j) => !FINISHED.has(j.status)).map((j) => j.id));
  const prunedJobs = new Set(jobs.map((j) => j.id));
  const entries = pick(
    inv.logEntries.filter((e) => !prunedJobs.has(e.jobId)),
    (e) => at(e.createdAt),
    (e) => e.id,
    (e) => unfinished.has(e.jobId),
    cut,
  );

  // Schedule runs, with their log files.
  const shown = new Set(inv.scheduleLogFiles);
  const latestRun = new Map<number, number>();
  for (const r of inv.runs) latestRun.set(r.scheduleId, Math.max(latestRun.get(r.scheduleId) ?? -1, r.id));
  const runs = pick(
    inv.runs,
    (r) => at(r.endedAt ?? r.startedAt),
    (r) => r.id,
    (r) => r.outcome === 'running' || latestRun.get(r.scheduleId) === r.id || (r.logFile !== null && shown.has(r.logFile)),
    cut,
  );
  for (const r of runs) addFile(r.logFile, 'runs');

  // Import logs: files only.
  for (const f of pick(
    [...filesByDir('import').values()],
    (f) => f.mtimeMs,
    (f) => f.name,
    () => false,
    cut,
  ))
    files.push({ ...f, kind: 'import' });

  // Orphans of logs/breakout/: no row names them any more.
  const jobIds = new Set(inv.jobs.map((j) => j.id));
  const runFiles = new Set([...inv.runs.flatMap((r) => (r.logFile ? [r.logFile] : [])), ...shown]);
  for (const f of breakoutFiles.values()) {
    if (f.mtimeMs >= cut.cutoff || files.some((p) => p.dir === 'breakout' && p.name === f.name)) continue;
    const job = /^job-(.+)\.log$/.exec(f.name);
    if (job && !jobIds.has(job[1]!)) files.push({ ...f, kind: 'jobs' });
    else if (!job && f.name.endsWith('.log') && !runFiles.has(f.name)) files.push({ ...f, kind: 'runs' });
  }

  return {
    jobs: [...prunedJobs],
    logEntries: entries.map((e) => e.id),
    jobLogEntries: inv.logEntries.filter((e) => prunedJobs.has(e.jobId)).map((e) => e.id),
    runs: runs.map((r) => r.id),
    files,
  };
}
