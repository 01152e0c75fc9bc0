import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { AppError, toAppError } from '../../shared/errors.js';
import { breakoutStatus, readBreakoutLog } from '../../core/breakout/index.js';
import {
  enforceRateLimit,
  bearerOf,
  checkBearerToken,
  checkWebhookToken,
  configuredToken,
  receiveEvent,
  applyDictionarySchema,
  dictionarySchema,
} from '../../core/root-scripts/index.js';
import type { AppEnv } from '../app-env.js';
import { clientAddress } from '../client-address.js';
import type { ApiBuilder } from '../api-builder.js';
import { ErrorBody, json } from '../schemas/common.js';
import {
  IncomingEventBody,
  IncomingReply,
  LogReaderQuery,
  LogReaderReply,
  RateLimitedError,
  SchemaApplyReply,
  SchemaBody,
  SchemaQuery,
  SchemaReply,
  StatusError,
  StatusQuery,
  StatusReply,
} from '../schemas/root-scripts.js';
import type { RouteDeps } from './route-deps.js';

const STATUS_PATH = '/breakout-status-webhook.php';
const STATUS_CODES = new Set([
  'missing_token',
  'invalid_token',
  'method_not_allowed',
  'rate_limited',
  'server_misconfigured',
  'invalid_parameter',
]);
/** Incoming event bodies are a few fields; the PHP scripts capped them at 64 KiB. */
const BODY_LIMIT = 64 * 1024;

/** Headers every root script sends: never cached, never indexed (as the PHP scripts did). */
function scriptHeaders(c: Context<AppEnv>): void {
  c.header('Cache-Control', 'no-store');
  c.header('X-Robots-Tag', 'noindex, nofollow');
}

/**
 * The status webhook's failure envelope (docs/http-api.md#errors,
 * docs/status-and-incoming-webhooks.md#error-codes); anything unexpected is `internal_error`.
 */
function statusFailure(c: Context<AppEnv>, thrown: unknown, log: (line: string) => void): Response {
  const err = toAppError(thrown);
  scriptHeaders(c);
  if (typeof err.details.retry_after === 'number') c.header('Retry-After', String(err.details.retry_after));
  if (STATUS_CODES.has(err.code)) {
    return c.json({ success: false, data: null, error: { code: err.code, message: err.message } }, err.http as ContentfulStatusCode);
  }
  const cause = err.cause instanceof Error ? err.cause : err;
  log(`sds serve: internal error on ${c.req.method} ${c.req.path}: ${err.code}: ${cause.stack ?? cause.message}`);
  return c.json(
    { success: false, data: null, error: { code: 'internal_error', message: 'internal error; the server log has the details' } },
    500,
  );
}

const STATUS_ERRORS = {
  400: json(StatusError, 'a filter or paging value is not valid (`invalid_parameter`)'),
  401: json(StatusError, 'Bearer header absent or malformed (`missing_token`), or a different token (`invalid_token`)'),
  405: json(StatusError, 'a verb other than GET (`method_not_allowed`)'),
  429: json(StatusError, 'more than 60 requests in 60 s for this token and address (`rate_limited`); `Retry-After` is set'),
  500: json(StatusError, 'BREAKOUT_WEBHOOK_TOKEN is not set (`server_misconfigured`), or another failure (`internal_error`)'),
};

const INCOMING_ERRORS = {
  401: json(ErrorBody, 'X-Webhook-Token absent or different from SURVEY_WEBHOOK_TOKEN (`WHK-001`)'),
  405: json(ErrorBody, 'another verb (`API-001`)'),
  429: json(
    RateLimitedError,
    'more than 60 requests in 60 s for this token and address (`rate_limited`, with `retry_after`); `Retry-After` is set',
  ),
  500: json(ErrorBody, 'SURVEY_WEBHOOK_TOKEN is not set (`server_misconfigured`)'),
};

/**
 * The root scripts of the PHP service, at their old paths: the breakout status webhook (static
 * Bearer token) and the incoming webhook scripts (`X-Webhook-Token`), docs/status-and-incoming-webhooks.md. All
 * share one rate limit per (token, client address), kept in the store, counted before the token
 * check so wrong tokens count too. Tokens never reach the log: the request log has no headers
 * and no query string, and the rate-limit key holds a fingerprint of the token only.
 */
export function rootScriptRoutes(api: ApiBuilder, { store, config, clock }: RouteDeps): void {
  api.registry.registerComponent('securitySchemes', 'statusToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'the static token of BREAKOUT_WEBHOOK_TOKEN (not an OAuth access token)',
  });
  api.registry.registerComponent('securitySchemes', 'webhookToken', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Webhook-Token',
    description: 'the static token of SURVEY_WEBHOOK_TOKEN',
  });

  /** Rate limit then token check of the incoming scripts; errors leave as `{error, message}`. */
  const incoming = async (c: Context<AppEnv>): Promise<void> => {
    scriptHeaders(c);
    const token = c.req.header('x-webhook-token');
    configuredToken(config.env, 'SURVEY_WEBHOOK_TOKEN');
    await enforceRateLimit(
      store,
      { token: token ?? '', address: clientAddress(c, config.trustedProxies ?? []) },
      clock(),
      config.webhookRateLimit,
    );
    checkWebhookToken(config.env, token);
  };

  api.route({
    method: 'get',
    path: STATUS_PATH,
    summary: 'Breakout status of dictionaries (status webhook)',
    description:
      'Static Bearer token compared in constant time with BREAKOUT_WEBHOOK_TOKEN (not an OAuth token). Times are `YYYY-MM-DD HH:MM:SS` UTC. ' +
      'The target fields (`processed_cases` … `last_processed_time`) are read from each target at request time, every target of the page ' +
      'at once with a short connect timeout, and are null when breakout is not configured or the target does not answer. ' +
      'Rate limit: 60 requests per sliding 60 s per (token, client address), wrong tokens included.',
    tags: ['webhook scripts'],
    permission: 'public',
    security: [{ statusToken: [] }],
    request: { query: StatusQuery },
    responses: { 200: json(StatusReply, 'the page of status items'), ...STATUS_ERRORS },
    handler: async (c) => {
      try {
        // Hono answers HEAD with the GET route: the spec refuses every verb but GET.
        if (c.req.method !== 'GET') throw new AppError('method_not_allowed', 'Method not allowed. Use: GET.');
        configuredToken(config.env, 'BREAKOUT_WEBHOOK_TOKEN');
        const authorization = c.req.header('authorization');
        await enforceRateLimit(
          store,
          { token: bearerOf(authorization), address: clientAddress(c, config.trustedProxies ?? []) },
          clock(),
          config.webhookRateLimit,
        );
        checkBearerToken(config.env, authorization);
        const reply = await breakoutStatus(store, c.req.query(), { connectTimeoutMs: config.statusConnectTimeoutMs, env: config.env });
        scriptHeaders(c);
        return c.json(reply, 200);
      } catch (err) {
        return statusFailure(c, err, config.log);
      }
    },
    otherMethods: (c) => {
      c.header('Allow', 'GET');
      return statusFailure(c, new AppError('method_not_allowed', 'Method not allowed. Use: GET.'), config.log);
    },
  });

  api.route({
    method: 'post',
    path: '/breakout-webhook.php',
    summary: 'Incoming event of the data-collection client: schedules an incremental breakout',
    description:
      '`case_uploaded`, `case_modified` and `case_verified` schedule an incremental breakout of the dictionary in the background and answer at once ' +
      '(`scheduled`). While a job of the dictionary is pending or running, the event sets a follow-up flag instead (`queued`): when that job ends, ' +
      'exactly one more incremental job starts, however many events arrived. `dictionary_uploaded` is accepted and starts nothing (`accepted`), ' +
      'and so is a case event for a dictionary whose breakout is not configured (`breakout_configured` false in the status webhook). ' +
      'A missing `event` means `case_uploaded`.',
    tags: ['webhook scripts'],
    permission: 'public',
    security: [{ webhookToken: [] }],
    bodyLimit: BODY_LIMIT,
    request: { body: { required: true, content: { 'application/json': { schema: IncomingEventBody } } } },
    responses: {
      200: json(IncomingReply, 'accepted; `scheduled`, `queued` or `accepted`'),
      400: json(ErrorBody, 'a required field is missing or invalid (`WHK-003`, naming the field), or the body is not JSON (`API-003`)'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
      ...INCOMING_ERRORS,
    },
    handler: async (c) => {
      await incoming(c);
      const text = await c.req.text();
      let body: unknown = {};
      if (text.trim() !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          throw new AppError('API-003', 'the request body is not valid JSON');
        }
      }
      return c.json(await receiveEvent(store, body), 200);
    },
  });

  api.route({
    method: 'get',
    path: '/log-reader-webhook.php',
    summary: 'Recent breakout log entries for an external system',
    description:
      "The breakout log of `GET /api/logs/breakout`, newest first, with each entry's job: filtered by `dictionary`, `level` (the least severe " +
      'level wanted) and `since` (ISO 8601), at most `limit` entries (1 to 1000, default 100). Log files of the server are never served.',
    tags: ['webhook scripts'],
    permission: 'public',
    security: [{ webhookToken: [] }],
    request: { query: LogReaderQuery },
    responses: {
      200: json(LogReaderReply, 'log entries'),
      400: json(ErrorBody, 'bad `level`, `since` or `limit` (`USAGE`, naming the parameter)'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
      ...INCOMING_ERRORS,
    },
    handler: async (c) => {
      await incoming(c);
      const q = c.req.query();
      return c.json(await readBreakoutLog(store, { dictionary: q.dictionary, level: q.level, since: q.since, limit: q.limit }), 200);
    },
  });

  api.route({
    method: 'get',
    path: '/dictionary-schema-webhook.php',
    summary: "Tables and columns of a dictionary's breakout in its target",
    description:
      "The tables the breakout of the dictionary has or would have in its target (planned for the target's database), with columns, " +
      'neutral and SQL types, and whether each table exists there now (`exists` null when the target cannot be reached).',
    tags: ['webhook scripts'],
    permission: 'public',
    security: [{ webhookToken: [] }],
    request: { query: SchemaQuery },
    responses: {
      200: json(SchemaReply, 'the schema'),
      400: json(ErrorBody, '`dictionary` is missing (`WHK-003`)'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
      ...INCOMING_ERRORS,
    },
    handler: async (c) => {
      await incoming(c);
      const name = c.req.query('dictionary');
      if (!name) throw new AppError('WHK-003', 'invalid request: missing required parameter "dictionary"', { field: 'dictionary' });
      return c.json(await dictionarySchema(store, name), 200);
    },
  });

  api.route({
    method: 'post',
    path: '/dictionary-schema-webhook.php',
    summary: 'Create or alter the breakout tables of a dictionary without loading cases',
    description:
      "As an incremental breakout does before its first case: missing tables are created; after a change of the dictionary's structure the " +
      'tables are rebuilt empty and the next breakout reloads every case. Refused with 409 `BREAKOUT_BUSY` while a job of the dictionary runs.',
    tags: ['webhook scripts'],
    permission: 'public',
    security: [{ webhookToken: [] }],
    bodyLimit: BODY_LIMIT,
    request: { body: { required: true, content: { 'application/json': { schema: SchemaBody } } } },
    responses: {
      200: json(SchemaApplyReply, 'tables created or already up to date'),
      400: json(ErrorBody, '`dictionary` is missing (`WHK-003`) or the body is not JSON (`API-003`)'),
      404: json(ErrorBody, 'no such dictionary (`DICTIONARY_NOT_FOUND`)'),
      409: json(ErrorBody, 'a job of the dictionary is pending or running (`BREAKOUT_BUSY`)'),
      502: json(ErrorBody, 'the target database failed (`DB-001` refused, `DB-002` authentication, `DB-003` no such database)'),
      ...INCOMING_ERRORS,
    },
    handler: async (c) => {
      await incoming(c);
      const text = await c.req.text();
      let body: unknown;
      try {
        body = text.trim() === '' ? {} : JSON.parse(text);
      } catch {
        throw new AppError('API-003', 'the request body is not valid JSON');
      }
      const name = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).dictionary : undefined;
      if (typeof name !== 'string' || name === '') {
        throw new AppError('WHK-003', 'invalid payload: missing required field "dictionary"', { field: 'dictionary' });
      }
      return c.json(await applyDictionarySchema(store, name), 200);
    },
  });
}
