import type { JobRow } from '../../../store/jobs-repo.js';
import { hms } from './durations.js';
import { ERROR_CODES, EXIT, isErrorCode } from '../../../shared/errors.js';

/** Job status reply of docs/http-api.md#breakout-routes: fields depend on the status. */
export type JobStatusReply =
  | { job_id: string; status: 'pending'; dictionaries: string[]; threads: number; created_at: string }
  | {
      job_id: string;
      status: 'running';
      progress: {
        dictionary: string;
        processed: number;
        total: number;
        percentage: number;
        elapsed_time: string;
        estimated_remaining: string;
      };
      threads: number;
      started_at: string;
    }
  | {
      job_id: string;
      status: 'completed';
      result: { dictionaries_processed: string[]; total_cases: number; tables_created: string[]; execution_time: string; warnings: number };
      completed_at: string;
    }
  | { job_id: string; status: 'failed'; error: { code: string; message: string; details: string }; failed_at: string }
  | { job_id: string; status: 'cancelled'; result: { dictionaries_processed: string[]; total_cases: number }; cancelled_at: string };

function seconds(from: string | null, to: string | null, now: number): number {
  if (!from) return 0;
  return ((to ? Date.parse(to) : now) - Date.parse(from)) / 1000;
}

/** Renders a job row as the spec's status reply. */
export function jobStatusReply(job: JobRow, now = Date.now()): JobStatusReply {
  switch (job.status) {
    case 'pending':
      return { job_id: job.id, status: 'pending', dictionaries: job.dictionaries, threads: job.threads, created_at: job.createdAt };
    case 'running': {
      const p = job.progress ?? { dictionary: job.dictionaries[0] ?? '', processed: 0, total: 0 };
      const elapsed = seconds(job.startedAt, null, now);
      const rate = p.processed > 0 ? elapsed / p.processed : 0;
      return {
        job_id: job.id,
        status: 'running',
        progress: {
          dictionary: p.dictionary,
          processed: p.processed,
          total: p.total,
          percentage: p.total > 0 ? Math.floor((p.processed * 100) / p.total) : 0,
          elapsed_time: hms(elapsed),
          estimated_remaining: hms(rate * Math.max(0, p.total - p.processed)),
        },
        threads: job.threads,
        started_at: job.startedAt ?? job.createdAt,
      };
    }
    case 'completed':
      return {
        job_id: job.id,
        status: 'completed',
        result: {
          dictionaries_processed: job.result?.dictionaries_processed ?? [],
          total_cases: job.result?.total_cases ?? 0,
          tables_created: job.result?.tables_created ?? [],
          execution_time: hms(seconds(job.startedAt, job.finishedAt, now)),
          warnings: job.warnings,
        },
        completed_at: job.finishedAt!,
      };
    case 'failed':
      return {
        job_id: job.id,
        status: 'failed',
        error: job.error ?? { code: 'BRK-002', message: 'the job failed', details: '' },
        failed_at: job.finishedAt!,
      };
    case 'cancelled':
      return {
        job_id: job.id,
        status: 'cancelled',
        result: { dictionaries_processed: job.result?.dictionaries_processed ?? [], total_cases: job.result?.total_cases ?? 0 },
        cancelled_at: job.finishedAt!,
      };
  }
}

/** Item of the job list envelope (docs/http-api.md#breakout-routes). */
export interface JobListItem {
  job_id: string;
  status: JobRow['status'];
  dictionaries: string[];
  cases_processed: number;
  execution_time: string;
  started_at: string | null;
  completed_at: string | null;
}

/** Renders a job row as an item of the job list. */
export function jobListItem(job: JobRow, now = Date.now()): JobListItem {
  return {
    job_id: job.id,
    status: job.status,
    dictionaries: job.dictionaries,
    cases_processed: job.result?.total_cases ?? job.progress?.processed ?? 0,
    execution_time: hms(seconds(job.startedAt, job.finishedAt, now)),
    started_at: job.startedAt,
    completed_at: job.finishedAt,
  };
}

/**
 * Exit code of a process that ran a job to its end: 0 completed, 5 when it failed on the target
 * (a code whose exit is 5: `DB_*`, TARGET_DATABASE_ERROR), else 1; the CLI and the
 * scheduled-breakout entry point both exit so.
 */
export function jobExitCode(s: JobStatusReply): number {
  if (s.status === 'completed') return EXIT.ok;
  if (s.status === 'failed' && isErrorCode(s.error.code) && ERROR_CODES[s.error.code].exit === EXIT.external) return EXIT.external;
  return EXIT.failed;
}
