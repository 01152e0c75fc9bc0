import { z } from 'zod';
import type {
  ScheduleItem as CoreScheduleItem,
  ScheduleList as CoreScheduleList,
  ScheduleRuns as CoreScheduleRuns,
  RunNowStarted as CoreRunNowStarted,
} from '../../core/scheduler/index.js';
import type { Describes } from './same-shape.js';
import type { removeSchedule } from '../../core/scheduler/index.js';
import { Timestamp } from './common.js';

/** Checked by the core (CRON_INVALID naming the field), not by the schema; the document says what is valid. */
const Cron = z.unknown().optional().meta({
  type: 'string',
  maxLength: 100,
  description: '5 fields: minute hour day-of-month month day-of-week (no @aliases, no seconds); else 400 `CRON_INVALID`',
  example: '0 2 * * *',
});

const ScheduleId = z.int().min(1).meta({ description: 'schedule id', example: 1 });

export const ScheduleAddBody = z
  .object({
    dictionary: z
      .string()
      .min(1)
      .meta({ description: 'dictionary name; it must have a breakout target and no schedule', example: 'CEN2000' }),
    cron_expression: Cron.meta({ default: '0 2 * * *' }),
    enabled: z.boolean().optional().meta({ description: 'default false', default: false }),
  })
  .meta({ id: 'ScheduleAddBody' });

export const ScheduleUpdateBody = z
  .object({
    id: ScheduleId,
    cron_expression: Cron,
    enabled: z.boolean().optional().meta({ description: 'true computes next_run, false clears it' }),
  })
  .meta({ id: 'ScheduleUpdateBody' });

export const ScheduleToggleBody = z.object({ id: ScheduleId }).meta({ id: 'ScheduleToggleBody' });

export const ScheduleIdParams = z.object({
  id: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, 'must be a schedule id (a whole number ≥ 1)')
    .meta({ param: { description: 'schedule id' }, example: '1' }),
});

export const RunsQuery = z.object({
  limit: z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .optional()
    .meta({ description: 'at most this many runs, 1 to 1000 (default 20)' }),
});

const NullableTime = Timestamp.nullable();

export const Schedule = z
  .strictObject({
    id: z.int(),
    dictionary_id: z.int(),
    dictionary: z.string(),
    label: z.string(),
    enabled: z.boolean(),
    cron_expression: z.string(),
    last_run: NullableTime,
    next_run: NullableTime.meta({ description: 'null while the schedule is disabled' }),
    last_exit_code: z.int().nullable().meta({ description: '0 succeeded, -1 running, 124 stopped by the time limit, other values failed' }),
    last_log_file: z.string().nullable().meta({ description: "file name of the run's log (`sds logs show <file>`)" }),
    modified_time: Timestamp,
    created_time: Timestamp,
  })
  .meta({ id: 'Schedule' });

export const ScheduleList = z
  .strictObject({
    timezone: z.string().meta({ description: 'IANA zone the cron expressions are evaluated in', example: 'UTC' }),
    schedules: z.array(Schedule),
    unscheduled_dictionaries: z
      .array(z.strictObject({ id: z.int(), name: z.string(), label: z.string() }))
      .meta({ description: 'dictionaries with a breakout target and no schedule yet' }),
  })
  .meta({ id: 'ScheduleList' });

export const ScheduleDeleted = z.strictObject({ message: z.string(), id: z.int(), dictionary: z.string() }).meta({ id: 'ScheduleDeleted' });

export const RunNowStarted = z
  .strictObject({ status: z.literal('started'), schedule_id: z.int(), dictionary: z.string(), message: z.string() })
  .meta({ id: 'RunNowStarted' });

export const ScheduleRuns = z
  .strictObject({
    schedule_id: z.int(),
    dictionary: z.string(),
    total: z.int().meta({ description: 'runs kept for this schedule' }),
    runs: z.array(
      z.strictObject({
        id: z.int(),
        trigger: z.enum(['scheduled', 'run-now']),
        outcome: z.enum(['running', 'succeeded', 'failed', 'interrupted', 'skipped']),
        started_at: Timestamp,
        ended_at: NullableTime,
        exit_code: z.int().nullable(),
        log_file: z.string().nullable(),
        message: z.string().nullable().meta({ description: 'why a run failed, was stopped or skipped' }),
      }),
    ),
  })
  .meta({ id: 'ScheduleRuns' });

// Compile-time guard: the schemas must describe what the core returns (same-shape.ts).
/** @public Read by the compiler only: knip and ESLint must not call it unused. */
export const schedulerSchemasMatchCore: [
  Describes<typeof Schedule, CoreScheduleItem>,
  Describes<typeof ScheduleList, CoreScheduleList>,
  Describes<typeof ScheduleRuns, CoreScheduleRuns>,
  Describes<typeof RunNowStarted, CoreRunNowStarted>,
  Describes<typeof ScheduleDeleted, Awaited<ReturnType<typeof removeSchedule>>>,
] = [true, true, true, true, true];
