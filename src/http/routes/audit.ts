import { auditFilterOf, listAudit } from '../../core/audit/index.js';
import type { ApiBuilder } from '../api-builder.js';
import { ErrorBody, json } from '../schemas/common.js';
import { AuditList, AuditQuery } from '../schemas/audit.js';
import { validate } from '../validate.js';
import type { RouteDeps } from './route-deps.js';

/** `GET /api/audit`: the audit trail, newest first (docs/supervision.md#reading-the-trail). */
export function auditRoutes(api: ApiBuilder, { store }: RouteDeps): void {
  api.route({
    method: 'get',
    path: '/api/audit',
    summary: 'The audit trail: changes and logins, newest first',
    description:
      'Every change of accounts, dictionaries, targets, schedules and webhooks, every case deletion or clear by an operator, and every ' +
      'login by password, by the CLI or HTTP: when, who, from where, what, on what, and the outcome. Filters: `since`, `until`, ' +
      '`actor`, `action` (a prefix with `*`), `outcome`; pages by `limit` and `before` (the `next_before` of the previous page). ' +
      'Records are hash-chained; `sds audit verify` checks the chain (docs/supervision.md#audit-trail).',
    tags: ['audit'],
    permission: 'audit.read',
    request: { query: AuditQuery },
    responses: {
      200: json(AuditList, 'the page of records'),
      400: json(
        ErrorBody,
        'a time not ISO 8601, `limit` not 1 to 10000, `before` not a whole number, `outcome` not success or failure (`USAGE`)',
      ),
    },
    handler: async (c) => {
      const q = validate(AuditQuery, c.req.query(), 'query');
      const data = await listAudit(store, q);
      const limit = auditFilterOf(q).limit;
      return c.json({ data, next_before: data.length === limit && data.length > 0 ? data.at(-1)!.seq : null });
    },
  });
}
