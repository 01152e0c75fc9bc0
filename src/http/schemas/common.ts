import { z } from 'zod';
import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';

/** Error body of the API routes (docs/http-api.md#errors): `error` is the stable code of docs/errors.md. */
export const ErrorBody = z
  .strictObject({
    error: z.string().meta({ description: 'stable error code, e.g. DICTIONARY_NOT_FOUND, API-001', example: 'DICTIONARY_NOT_FOUND' }),
    message: z.string().meta({ description: 'what went wrong, for humans' }),
    code: z.string().optional().meta({
      description:
        'for a CSPro client (User-Agent `CSPro sync client/…`), which reads `{code, message}`: the same code as `error`; `fatal_error` on a path under /api that no route takes, for every client (docs/sync.md#errors)',
      example: 'fatal_error',
    }),
    diagnostic: z.string().optional().meta({
      description:
        'with DB_CONNECTION_ERROR (502): the catalogue code of the target failure, DB-001 … DB-005 (docs/errors.md, "One code per failure")',
      example: 'DB-001',
    }),
    details: z
      .strictObject({
        case: z.string().optional(),
        id: z.string().optional(),
        index: z.number().int().optional(),
        field: z.string().optional(),
        limit: z.number().int().optional(),
        errors: z
          .array(
            z.strictObject({
              line: z.number().int(),
              field: z.string().optional(),
              message: z.string(),
              exists: z.literal(true).optional(),
            }),
          )
          .optional()
          .meta({ description: 'USERS_IMPORT_INVALID: every bad line of the CSV of accounts (docs/supervision.md#accounts)' }),
      })
      .optional()
      .meta({
        description:
          'a refusal by a limit (413 CASE_TOO_LARGE / PAYLOAD_TOO_LARGE, 400 JSON_TOO_DEEP): the case (key), its id and position in the upload, the field and the limit; docs/limits.md. 400 USERS_IMPORT_INVALID: `errors`',
      }),
  })
  .meta({ id: 'Error' });

/**
 * Token error body (docs/http-api.md#authentication, docs/http-api.md#errors; RFC 6749 §5.2), also
 * used for 401/403 of protected routes.
 */
export const OAuthErrorBody = z
  .strictObject({
    error: z.enum(['invalid_request', 'invalid_client', 'invalid_grant', 'unsupported_grant_type', 'invalid_token', 'access_denied']),
    error_description: z.string(),
    code: z.string().optional().meta({ description: 'for a CSPro client only: the same as `error` (docs/sync.md#errors)' }),
    message: z.string().optional().meta({ description: 'for a CSPro client only: the same as `error_description`' }),
  })
  .meta({ id: 'OAuthError' });

/**
 * Rate limit body (docs/status-and-incoming-webhooks.md#rate-limit-all-four-scripts, API-004):
 * `{error, retry_after}`, plus the `message` every API error has.
 */
export const RateLimitBody = z
  .strictObject({
    error: z.literal('API-004'),
    code: z.literal('API-004').optional().meta({ description: 'for a CSPro client only (docs/sync.md#errors)' }),
    message: z.string(),
    retry_after: z.number().int().min(1).meta({ description: 'seconds to wait, as in the Retry-After header' }),
  })
  .meta({ id: 'RateLimitError' });

/**
 * A sync upload refused because the uploads in flight hold the whole memory budget
 * (docs/limits.md#memory-of-uploads-in-flight, SERVER_BUSY): `{error, message, retry_after}`.
 */
export const ServerBusyBody = z
  .strictObject({
    error: z.literal('SERVER_BUSY'),
    code: z.literal('SERVER_BUSY').optional().meta({ description: 'for a CSPro client only (docs/sync.md#errors)' }),
    message: z.string(),
    retry_after: z.number().int().min(1).meta({ description: 'seconds to wait, as in the Retry-After header' }),
  })
  .meta({ id: 'ServerBusyError' });

/** ISO 8601 UTC timestamp as stored. */
export const Timestamp = z.iso.datetime().meta({ example: '2025-01-31T08:15:00.000Z' });

/** A JSON response entry of an OpenAPI route. */
export function json(schema: z.ZodType, description: string): ResponseConfig {
  return { description, content: { 'application/json': { schema } } };
}

/** The error replies every protected route may give. */
export const AUTH_ERRORS: Record<number, ResponseConfig> = {
  401: json(OAuthErrorBody, 'missing, expired or invalid access token (`invalid_token`)'),
  403: json(OAuthErrorBody, 'the role of the account does not allow this (`access_denied`)'),
};
