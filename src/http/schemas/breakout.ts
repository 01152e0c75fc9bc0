import { z } from 'zod';
import {
  type StartReply as CoreStartReply,
  type JobListItem as CoreJobListItem,
  type JobStatusReply as CoreJobStatus,
  type BreakoutTablesReply as CoreTablesReply,
  type TriggerReply as CoreTriggerReply,
  type BreakoutLogItem as CoreLogItem,
  TRIGGER_MODES,
} from '../../core/breakout/index.js';
import type { MetricsReply as CoreMetrics } from '../../core/metrics/index.js';
import type { Describes } from './same-shape.js';
import type { listJobs, dropBreakoutTables } from '../../core/breakout/index.js';
import { ErrorBody, Timestamp } from './common.js';

const Whole = z.string().regex(/^\d+$/, 'must be a whole number ≥ 0');
/** `HH:MM:SS` duration of the spec (hours may exceed 24). */
const Hms = z
  .string()
  .regex(/^\d{2,}:[0-5]\d:[0-5]\d$/)
  .meta({ example: '00:01:23' });
const Percent = z.string().regex(/^\d{1,3}(\.\d)?%$/);

/**
 * `threads` is checked by the core (INVALID_THREADS, docs/errors.md), not by the schema, so a bad value
 * gets the spec's code rather than USAGE; the document still says what is valid.
 */
const Threads = z.unknown().optional().meta({
  type: 'integer',
  minimum: 1,
  maximum: 10,
  default: 1,
  description: 'parallel connections to the target, 1 to 10 (else 400 `INVALID_THREADS`)',
});

/** Body of POST /api/breakout/start (docs/http-api.md#breakout-routes). */
export const BreakoutStartBody = z
  .object({
    dictionaries: z
      .array(z.string().min(1))
      .min(1)
      .meta({ description: 'dictionary names, case-sensitive', example: ['CEN2000'] }),
    threads: Threads,
    overwrite: z.boolean().optional().meta({ description: 'drop and rebuild existing breakout tables (default false)', default: false }),
  })
  .meta({ id: 'BreakoutStartBody' });

/** Start reply (docs/http-api.md#breakout-routes, HTTP 202). */
export const BreakoutStartReply = z
  .strictObject({
    status: z.literal('started'),
    job_id: z.string(),
    dictionaries: z.array(z.string()),
    threads: z.int().min(1).max(10),
    estimated_time: z.string().meta({ description: 'human-readable estimate', example: 'about 3 seconds' }),
    message: z.string(),
  })
  .meta({ id: 'BreakoutStartReply' });

/**
 * 409 body of a refused start: tables exist (docs/http-api.md#breakout-routes, with
 * `existing_tables`) or a job of a dictionary is running.
 */
export const TablesExistError = ErrorBody.extend({
  existing_tables: z
    .array(z.string())
    .optional()
    .meta({ description: 'with `TABLES_ALREADY_EXIST`: the breakout tables found in the target' }),
}).meta({ id: 'TablesExistError' });

/** 404 body of a dictionary without breakout tables (docs/http-api.md#breakout-routes). */
export const NoTablesError = ErrorBody.extend({
  suggestion: z.string().optional().meta({ description: 'what to do next; present when the dictionary exists but has no tables' }),
}).meta({ id: 'NoTablesError' });

/** Path parameter `{job_id}`. */
export const JobIdParams = z.object({
  job_id: z
    .string()
    .min(1)
    .meta({ param: { description: 'job id from the start or trigger reply' }, example: '6f1c2e0a-8b1e-4a57-9a43-4e1b8f0c2d11' }),
});

/** Path parameter `{dictionary}`. */
export const DictionaryParams = z.object({
  dictionary: z
    .string()
    .min(1)
    .meta({ param: { description: 'dictionary name, case-sensitive' }, example: 'CEN2000' }),
});

/** Job status reply (docs/http-api.md#breakout-routes): the fields depend on `status`; every form carries `job_id`. */
export const JobStatus = z
  .discriminatedUnion('status', [
    z
      .strictObject({
        job_id: z.string(),
        status: z.literal('pending'),
        dictionaries: z.array(z.string()),
        threads: z.int(),
        created_at: Timestamp,
      })
      .meta({ id: 'JobPending', description: 'created, its process not yet started' }),
    z
      .strictObject({
        job_id: z.string(),
        status: z.literal('running'),
        progress: z.strictObject({
          dictionary: z.string(),
          processed: z.int().min(0),
          total: z.int().min(0),
          percentage: z.int().min(0).max(100),
          elapsed_time: Hms,
          estimated_remaining: Hms,
        }),
        threads: z.int(),
        started_at: Timestamp,
      })
      .meta({ id: 'JobRunning' }),
    z
      .strictObject({
        job_id: z.string(),
        status: z.literal('completed'),
        result: z.strictObject({
          dictionaries_processed: z.array(z.string()),
          total_cases: z.int().min(0),
          tables_created: z.array(z.string()),
          execution_time: Hms,
          warnings: z.int().min(0).meta({ description: 'values written as NULL or cases left out (also in the logs)' }),
        }),
        completed_at: Timestamp,
      })
      .meta({ id: 'JobCompleted' }),
    z
      .strictObject({
        job_id: z.string(),
        status: z.literal('failed'),
        error: z.strictObject({
          code: z.string(),
          message: z.string(),
          details: z.string().meta({ description: 'JSON text of the error details' }),
        }),
        failed_at: Timestamp,
      })
      .meta({ id: 'JobFailed' }),
    z
      .strictObject({
        job_id: z.string(),
        status: z.literal('cancelled'),
        result: z.strictObject({ dictionaries_processed: z.array(z.string()), total_cases: z.int().min(0) }),
        cancelled_at: Timestamp,
      })
      .meta({ id: 'JobCancelled' }),
  ])
  .meta({ id: 'JobStatus' });

/** Query of GET /api/breakout/jobs (docs/http-api.md#breakout-routes, limit default 50). */
export const JobsQuery = z.object({
  status: z
    .enum(['pending', 'running', 'completed', 'failed', 'cancelled'])
    .optional()
    .meta({ param: { description: 'only jobs in this state' }, example: 'completed' }),
  limit: Whole.optional().meta({ param: { description: 'at most this many, 1 to 1000 (default 50)' }, example: '50' }),
});

/** Item of the job list (docs/http-api.md#breakout-routes). */
const JobListItem = z
  .strictObject({
    job_id: z.string(),
    status: z.enum(['pending', 'running', 'completed', 'failed', 'cancelled']),
    dictionaries: z.array(z.string()),
    cases_processed: z.int().min(0),
    execution_time: Hms,
    started_at: Timestamp.nullable(),
    completed_at: Timestamp.nullable().meta({ description: 'when the job ended, whatever the outcome' }),
  })
  .meta({ id: 'JobListItem' });

/** Job list envelope (docs/http-api.md#breakout-routes), newest first. */
export const JobList = z
  .strictObject({
    total: z.int().min(0).meta({ description: 'jobs matching the filter' }),
    limit: z.int().min(1),
    data: z.array(JobListItem),
  })
  .meta({ id: 'JobList' });

/** A breakout whose load stopped before it had applied every case (docs/breakout.md#interrupted-breakouts). */
export const BreakoutInterruption = z
  .strictObject({
    job_id: z.string().meta({ description: 'the job whose load stopped' }),
    job_status: z
      .enum(['cancelled', 'failed', 'completed'])
      .nullable()
      .meta({ description: 'how that job ended (failed: an error, or its process died); null when its record was pruned' }),
    stopped_at: Timestamp.nullable().meta({ description: 'when that job ended; null when its record was pruned' }),
    processed_cases: z.int().min(0).meta({ description: 'active cases the target holds (at or below the saved breakout cursor)' }),
    total_cases: z.int().min(0).meta({ description: 'active cases of the dictionary' }),
    message: z.string().meta({
      example:
        'interrupted at 46,000 of 100,000 cases, resume with an incremental breakout (process-cases-by-dict CEN2000, or the trigger in mode selective)',
    }),
  })
  .meta({ id: 'BreakoutInterruption' });

/** Tables object (docs/http-api.md#breakout-routes). */
export const BreakoutTables = z
  .strictObject({
    dictionary: z.string(),
    label: z.string(),
    database: z.string().meta({ description: 'the target database (SQLite: the file name)' }),
    tables: z.array(
      z.strictObject({
        name: z.string(),
        type: z.enum(['main', 'record']),
        row_count: z.int().min(0),
        size: z.string(),
        stale: z
          .boolean()
          .meta({ description: 'the current plan no longer has this table (old label or structure): the next breakout drops it' }),
      }),
    ),
    total_size: z.string().meta({ example: '1.2 MB' }),
    created_at: Timestamp.nullable(),
    interrupted: BreakoutInterruption.nullable().meta({
      description: 'ours: the last load into these tables stopped before every case was applied; null when it finished',
    }),
  })
  .meta({ id: 'BreakoutTables' });

/** Deletion reply (docs/http-api.md#breakout-routes). */
export const BreakoutTablesDeleted = z
  .strictObject({ message: z.string(), dictionary: z.string(), deleted_tables: z.array(z.string()), freed_space: z.string() })
  .meta({ id: 'BreakoutTablesDeleted' });

/** Body of POST /api/breakout/trigger (docs/http-api.md#breakout-routes). */
export const TriggerBody = z
  .object({
    dictionary: z.string().min(1).meta({ description: 'dictionary name, case-sensitive', example: 'CEN2000' }),
    mode: z.enum(TRIGGER_MODES).optional().meta({
      description: '`selective` (default): incremental, only cases changed since the last run; `full`: drop, rebuild and reload',
      default: 'selective',
    }),
    threads: Threads,
  })
  .meta({ id: 'TriggerBody' });

/** Trigger reply (docs/http-api.md#breakout-routes). */
export const TriggerReply = z
  .strictObject({
    status: z.literal('started'),
    job_id: z.string(),
    dictionary: z.string(),
    started_at: Timestamp.meta({ description: 'when the job was created' }),
  })
  .meta({ id: 'TriggerReply' });

/** Query of GET /api/logs/breakout. */
export const LogsQuery = z.object({
  dictionary: z
    .string()
    .min(1)
    .optional()
    .meta({ param: { description: 'only entries of this dictionary' }, example: 'CEN2000' }),
  limit: Whole.optional().meta({ param: { description: 'at most this many, 1 to 1000 (default 100)' }, example: '100' }),
});

/** One breakout log entry (docs/http-api.md#breakout-routes); the log reader script adds the job id. */
export const BreakoutLogEntry = z.strictObject({
  timestamp: Timestamp,
  level: z.enum(['info', 'warn', 'error']),
  dictionary: z.string(),
  message: z.string(),
  progress: Percent.meta({ description: 'progress of the dictionary in its job at that moment', example: '45%' }),
});

/** Log reply (docs/http-api.md#breakout-routes), newest first. */
export const BreakoutLogs = z.strictObject({ logs: z.array(BreakoutLogEntry) }).meta({ id: 'BreakoutLogs' });

/** Metrics (docs/http-api.md#breakout-routes). */
export const Metrics = z
  .strictObject({
    total_cases: z.int().min(0).meta({ description: 'active (not deleted) cases of all dictionaries' }),
    cases_by_dictionary: z.record(z.string(), z.int().min(0)),
    breakout_status: z.record(z.string(), z.enum(['in_progress', 'completed', 'failed', 'interrupted', 'not_started'])),
    sync_rate: Percent.meta({
      description:
        "share of active cases already broken out into the targets, one decimal (the spec's name: it measures the breakout, not what devices have synced)",
      example: '97.5%',
    }),
    sync_rate_by_dictionary: z
      .record(z.string(), Percent)
      .meta({ description: 'ours: the share of active cases already broken out, per dictionary', example: { CEN2000: '46.0%' } }),
    breakout_interrupted: z
      .record(z.string(), BreakoutInterruption.nullable())
      .meta({ description: 'ours: per dictionary, its interrupted breakout (tables holding part of the cases), else null' }),
  })
  .meta({ id: 'Metrics' });

// Compile-time guard: the schemas must describe what the core returns (same-shape.ts).
/** @public Read by the compiler only: knip and ESLint must not call it unused. */
export const schemasMatchCore: [
  Describes<typeof BreakoutStartReply, CoreStartReply>,
  Describes<typeof JobStatus, CoreJobStatus>,
  Describes<typeof BreakoutTables, CoreTablesReply>,
  Describes<typeof TriggerReply, CoreTriggerReply>,
  Describes<typeof BreakoutLogEntry, CoreLogItem>,
  Describes<typeof Metrics, CoreMetrics>,
  Describes<typeof JobListItem, CoreJobListItem>,
  Describes<typeof JobList, Awaited<ReturnType<typeof listJobs>>>,
  Describes<typeof BreakoutTablesDeleted, Awaited<ReturnType<typeof dropBreakoutTables>>>,
] = [true, true, true, true, true, true, true, true, true];
