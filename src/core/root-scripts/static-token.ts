import { createHash, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../shared/errors.js';

/** The two static tokens of the root scripts (docs/status-and-incoming-webhooks.md#tokens), by their environment variable. */
export type TokenVariable = 'BREAKOUT_WEBHOOK_TOKEN' | 'SURVEY_WEBHOOK_TOKEN';

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * Compares a presented token with the expected one in constant time: both are hashed first, so
 * neither the content nor the length of the secret leaks through timing.
 */
function tokensEqual(expected: string, presented: string): boolean {
  return timingSafeEqual(digest(expected), digest(presented));
}

/** The configured token, or `server_misconfigured` when its variable is unset or empty (no default exists). */
export function configuredToken(env: NodeJS.ProcessEnv, variable: TokenVariable): string {
  const value = env[variable];
  if (value === undefined || value === '') {
    throw new AppError('server_misconfigured', `the server is misconfigured: ${variable} is not set`, { variable });
  }
  return value;
}

/**
 * Short fingerprint of a presented token for rate-limit keys: the token itself never reaches the
 * store or a log.
 */
export function tokenFingerprint(presented: string): string {
  return digest(presented).subarray(0, 8).toString('hex');
}

/**
 * The status webhook's check (docs/status-and-incoming-webhooks.md#tokens,
 * docs/status-and-incoming-webhooks.md#error-codes): `Authorization: Bearer <token>` compared with
 * BREAKOUT_WEBHOOK_TOKEN. `missing_token` when the header is absent or not a Bearer header,
 * `invalid_token` when the token differs.
 */
export function checkBearerToken(env: NodeJS.ProcessEnv, authorization: string | undefined): void {
  const expected = configuredToken(env, 'BREAKOUT_WEBHOOK_TOKEN');
  const m = /^Bearer[ \t]+(\S.*)$/i.exec(authorization ?? '');
  if (!m) throw new AppError('missing_token', 'missing token: send Authorization: Bearer <token>');
  if (!tokensEqual(expected, m[1]!)) throw new AppError('invalid_token', 'invalid token');
}

/**
 * The incoming scripts' check
 * (docs/status-and-incoming-webhooks.md#incoming-events-post-breakout-webhookphp,
 * docs/status-and-incoming-webhooks.md#tokens): header `X-Webhook-Token` compared with
 * SURVEY_WEBHOOK_TOKEN. Absent or different: WHK-001 (401).
 */
export function checkWebhookToken(env: NodeJS.ProcessEnv, presented: string | undefined): void {
  const expected = configuredToken(env, 'SURVEY_WEBHOOK_TOKEN');
  if (presented === undefined || presented === '') throw new AppError('WHK-001', 'missing webhook token: send the X-Webhook-Token header');
  if (!tokensEqual(expected, presented)) throw new AppError('WHK-001', 'invalid webhook token');
}

/** The token a Bearer header presents ('' when none), for the rate-limit key. */
export function bearerOf(authorization: string | undefined): string {
  return /^Bearer[ \t]+(\S.*)$/i.exec(authorization ?? '')?.[1] ?? '';
}
