import type { Context } from 'hono';
import type { z } from 'zod';
import { AppError } from '../shared/errors.js';
import { oauthError } from '../core/auth/index.js';
import { validate } from './validate.js';

function mediaType(c: Context): string {
  return (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Reads the parameters of a token request: `application/x-www-form-urlencoded` as the spec says,
 * or JSON as the CSPro data-collection client sends. Every failure is `invalid_request` (the
 * token endpoint always answers in the OAuth error shape). A parameter given twice is refused
 * (RFC 6749 §3.2).
 */
export async function readTokenParams<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const type = mediaType(c);
  let params: Record<string, unknown>;
  if (type === 'application/x-www-form-urlencoded') {
    const form = new URLSearchParams(await c.req.text());
    params = {};
    for (const [k, v] of form) {
      if (k in params) throw oauthError('USAGE', 'invalid_request', `parameter ${k} was given more than once`);
      params[k] = v;
    }
  } else if (type === 'application/json') {
    const parsed = parseJson(await c.req.text(), (msg) => oauthError('USAGE', 'invalid_request', msg));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw oauthError('USAGE', 'invalid_request', 'the JSON body must be an object');
    }
    params = parsed as Record<string, unknown>;
  } else {
    throw oauthError('USAGE', 'invalid_request', 'send the token request as application/x-www-form-urlencoded or application/json');
  }
  try {
    return validate(schema, params, 'token request');
  } catch (err) {
    throw oauthError('USAGE', 'invalid_request', (err as Error).message);
  }
}

function parseJson(text: string, fail: (message: string) => Error): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw fail('the request body is not valid JSON');
  }
}

/**
 * Reads a JSON request body and checks it against a schema: not JSON is 400 API-003, a JSON that
 * breaks the schema is 400 USAGE naming the field. For routes taking JSON bodies.
 */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  if (mediaType(c) !== 'application/json') throw new AppError('USAGE', 'send the request body as application/json');
  const body = parseJson(await c.req.text(), (msg) => new AppError('API-003', msg));
  return validate(schema, body, 'request body');
}
