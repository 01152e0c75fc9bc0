import { z } from 'zod';
import type { AuditRecord as CoreAuditRecord } from '../../core/audit/index.js';
import type { Describes } from './same-shape.js';

const Whole = z.string().regex(/^\d+$/, 'must be a whole number ≥ 0');

/** Query of `GET /api/audit` (docs/supervision.md#reading-the-trail); the values are checked by the core. */
export const AuditQuery = z.object({
  since: z
    .string()
    .optional()
    .meta({ param: { description: 'records at or after this ISO 8601 date or time (UTC when no zone)' }, example: '2026-11-01' }),
  until: z
    .string()
    .optional()
    .meta({ param: { description: 'records before this ISO 8601 date or time' }, example: '2026-12-01T00:00:00Z' }),
  actor: z
    .string()
    .optional()
    .meta({ param: { description: 'records of this account, or `os:<user>` for the CLI' }, example: 'alice' }),
  action: z
    .string()
    .optional()
    .meta({ param: { description: 'records of this action, or of a prefix ending in `*`' }, example: 'users.*' }),
  outcome: z
    .enum(['success', 'failure'])
    .optional()
    .meta({ param: { description: '`success` or `failure`' } }),
  before: Whole.optional().meta({ param: { description: 'records below this seq: the last seq of the previous page' }, example: '4211' }),
  limit: Whole.optional().meta({ param: { description: 'page size, 1 to 10000 (default 100)' }, example: '100' }),
});

/** One record of the audit trail (docs/supervision.md#audit-trail). */
const AuditRecord = z
  .strictObject({
    seq: z.number().meta({ description: '1, 2, 3, … without gaps: the order of the chain' }),
    at: z.string().meta({ description: 'when, ISO 8601 UTC with milliseconds', example: '2026-11-28T19:20:00.000Z' }),
    actor: z.string().meta({ description: 'the account, `os:<user>` for the CLI, `-` when unknown' }),
    origin: z.string().meta({ description: 'the client address (HTTP) or the host name (CLI)' }),
    channel: z.enum(['http', 'cli']),
    action: z.string().meta({ example: 'dictionaries.delete' }),
    target: z.string().meta({ example: 'dictionary:CEN2000' }),
    outcome: z.enum(['success', 'failure']),
    details: z.record(z.string(), z.unknown()).meta({ description: 'more about it: an error code, a status; never a secret' }),
    prev_hash: z.string().meta({ description: 'SHA-256 of the record before (hex)' }),
    hash: z.string().meta({ description: 'SHA-256 of this record’s canonical form (hex; docs/supervision.md#the-canonical-form)' }),
  })
  .meta({ id: 'AuditRecord' });

/** A page of the audit trail, newest first. */
export const AuditList = z
  .strictObject({
    data: z.array(AuditRecord),
    next_before: z.number().nullable().meta({ description: 'the `before` of the next page; null on the last page' }),
  })
  .meta({ id: 'AuditList' });

// Compile-time guard: the schemas must describe what the core returns (same-shape.ts).
/** @public Read by the compiler only: knip and ESLint must not call it unused. */
export const schemasMatchCore: [Describes<typeof AuditRecord, CoreAuditRecord>] = [true];
