import { z } from 'zod';
import type {
  StatusItem as CoreStatusItem,
  StatusReply as CoreStatusReply,
  LogReaderReply as CoreLogReaderReply,
} from '../../core/breakout/index.js';
import {
  type IncomingReply as CoreIncomingReply,
  type SchemaApplyReply as CoreSchemaApplyReply,
  type SchemaReply as CoreSchemaReply,
  INCOMING_EVENTS,
} from '../../core/root-scripts/index.js';
import type { Describes } from './same-shape.js';
import { ErrorBody } from './common.js';
import { BreakoutInterruption, BreakoutLogEntry } from './breakout.js';

/** `YYYY-MM-DD HH:MM:SS` of the status webhook (UTC). */
const StatusTime = z
  .string()
  .regex(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
  .meta({ example: '2025-01-31 08:15:00' });
const Flag = z.enum(['true', 'false', '1', '0']);
const Whole = z.string().regex(/^\d+$/, 'must be a whole number');

/**
 * Query of GET /breakout-status-webhook.php
 * (docs/status-and-incoming-webhooks.md#status-webhook-get-breakout-status-webhookphp); checked by
 * the core (`invalid_parameter`).
 */
export const StatusQuery = z.object({
  dictionary: z.string().optional().meta({ description: 'exact dictionary name (case-sensitive); not with `dictionaries`' }),
  dictionaries: z.string().optional().meta({ description: 'comma-separated names, at most 100', example: 'CEN2000,SURVEY_DICT' }),
  cron_enabled: Flag.optional().meta({ description: '`true` keeps dictionaries whose schedule is enabled, `false` the others' }),
  breakout_configured: Flag.optional().meta({ description: '`true` keeps dictionaries with a breakout target, `false` the others' }),
  page: Whole.optional().meta({ description: 'page number, default 1' }),
  limit: Whole.optional().meta({ description: 'page size, 1 to 100, default 20' }),
});

/** Breakout status item (docs/status-and-incoming-webhooks.md#status-webhook-get-breakout-status-webhookphp). */
const StatusItem = z
  .strictObject({
    dictionary: z.string(),
    label: z.string(),
    breakout_configured: z.boolean(),
    target_host: z.string().nullable().meta({ description: '`host:port`; null for a SQLite file target' }),
    target_schema: z.string().nullable().meta({ description: 'database name (SQLite: the file name)' }),
    db_type: z.enum(['postgresql', 'mysql', 'sqlserver', 'sqlite']).nullable(),
    cron_enabled: z.boolean(),
    cron_expression: z.string().nullable(),
    last_run: StatusTime.nullable(),
    next_run: StatusTime.nullable(),
    last_exit_code: z.int().nullable().meta({ description: '0 success, -1 running, other values failure' }),
    total_cases: z.int().min(0),
    processed_cases: z
      .int()
      .min(0)
      .nullable()
      .meta({ description: 'rows of `{label}_cases` in the target; null when not configured or unreachable' }),
    cases_pending: z.int().min(0).nullable(),
    completion_rate: z.number().nullable().meta({ description: 'processed / total × 100, two decimals (100 when there are no cases)' }),
    is_up_to_date: z.boolean().nullable(),
    last_processed_time: StatusTime.nullable().meta({ description: 'completion time of the newest completed job in `{label}_cspro_jobs`' }),
    breakout_interrupted: BreakoutInterruption.nullable().meta({
      description: 'ours, from the store: the last load into the tables stopped before every case was applied; null when it finished',
    }),
  })
  .meta({ id: 'StatusItem' });

/** Success envelope (docs/status-and-incoming-webhooks.md#status-webhook-get-breakout-status-webhookphp). */
export const StatusReply = z
  .strictObject({
    success: z.literal(true),
    data: z.array(StatusItem),
    error: z.null(),
    meta: z.strictObject({ total: z.int().min(0), page: z.int().min(1), pages: z.int().min(0), limit: z.int().min(1).max(100) }),
  })
  .meta({ id: 'StatusReply' });

/** Failure envelope (docs/http-api.md#errors, docs/status-and-incoming-webhooks.md#error-codes). */
export const StatusError = z
  .strictObject({
    success: z.literal(false),
    data: z.null(),
    error: z.strictObject({
      code: z.enum([
        'missing_token',
        'invalid_token',
        'method_not_allowed',
        'rate_limited',
        'server_misconfigured',
        'invalid_parameter',
        'internal_error',
      ]),
      message: z.string(),
    }),
  })
  .meta({ id: 'StatusError' });

/** Body of POST /breakout-webhook.php (docs/status-and-incoming-webhooks.md#incoming-events-post-breakout-webhookphp). */
export const IncomingEventBody = z
  .object({
    event: z.enum(INCOMING_EVENTS).optional().meta({ description: 'default `case_uploaded`' }),
    dictionary: z.string().meta({ description: 'dictionary name (required: 400 `WHK-003` naming the field when absent)' }),
    case_id: z.string().optional(),
    changes: z.record(z.string(), z.unknown()).optional(),
    version: z.string().optional(),
  })
  .meta({ id: 'IncomingEvent' });

export const IncomingReply = z
  .strictObject({
    status: z.enum(['scheduled', 'queued', 'accepted']),
    message: z.string(),
    event: z.enum(INCOMING_EVENTS),
    dictionary: z.string(),
    job_id: z.string().nullable(),
  })
  .meta({ id: 'IncomingReply' });

/** Error of the incoming scripts when rate-limited: `{error, message, retry_after}`. */
export const RateLimitedError = ErrorBody.extend({
  retry_after: z.int().min(1).meta({ description: 'seconds to wait (also in Retry-After)' }),
}).meta({
  id: 'RateLimitedError',
});

export const LogReaderQuery = z.object({
  dictionary: z.string().optional().meta({ description: 'only this dictionary (404 when it does not exist)' }),
  level: z.enum(['info', 'warn', 'error']).optional().meta({ description: 'least severe level wanted: `warn` gives warnings and errors' }),
  since: z.string().optional().meta({ description: 'ISO 8601 time: entries written at or after it', example: '2025-01-31T08:00:00Z' }),
  limit: Whole.optional().meta({ description: 'entries, 1 to 1000, default 100' }),
});

export const LogReaderReply = z
  .strictObject({
    logs: z.array(BreakoutLogEntry.extend({ job_id: z.string() })),
  })
  .meta({ id: 'LogReaderReply' });

export const SchemaQuery = z.object({ dictionary: z.string().meta({ description: 'dictionary name (required)' }) });
export const SchemaBody = z
  .object({ dictionary: z.string().meta({ description: 'dictionary name (required)' }) })
  .meta({ id: 'SchemaBody' });

const SchemaTable = z.strictObject({
  name: z.string(),
  kind: z.enum(['main', 'level', 'record', 'notes', 'jobs', 'value_sets', 'items']),
  primary_key: z.array(z.string()),
  exists: z.boolean().nullable(),
  columns: z.array(z.strictObject({ name: z.string(), type: z.string(), sql_type: z.string(), nullable: z.boolean() })),
});

const schemaFields = {
  dictionary: z.string(),
  label: z.string(),
  db_type: z.string(),
  target: z.string().meta({ description: 'type and place of the target, without password' }),
  target_reachable: z.boolean(),
  tables: z.array(SchemaTable),
};

export const SchemaReply = z.strictObject(schemaFields).meta({ id: 'DictionarySchema' });

export const SchemaApplyReply = z
  .strictObject({
    status: z.literal('applied'),
    message: z.string(),
    tables_created: z.array(z.string()),
    rebuilt: z.boolean(),
    ...schemaFields,
  })
  .meta({ id: 'DictionarySchemaApplied' });

// Compile-time guard: the schemas must describe what the core returns (same-shape.ts).
/** @public Read by the compiler only: knip and ESLint must not call it unused. */
export const schemasMatchCore: [
  Describes<typeof StatusItem, CoreStatusItem>,
  Describes<typeof StatusReply, CoreStatusReply>,
  Describes<typeof IncomingReply, CoreIncomingReply>,
  Describes<typeof LogReaderReply, CoreLogReaderReply>,
  Describes<typeof SchemaReply, CoreSchemaReply>,
  Describes<typeof SchemaApplyReply, CoreSchemaApplyReply>,
] = [true, true, true, true, true, true];
