import type { Context } from 'hono';
import { recordAudit, type AuditEntry } from '../core/audit/index.js';
import type { Store } from '../core/home/index.js';
import { toAppError } from '../shared/errors.js';
import type { AppEnv } from './app-env.js';
import { clientAddress } from './client-address.js';

/**
 * What a route that changes something records in the audit trail (docs/supervision.md#audit-trail):
 * its action, and its target with `{param}` replaced by the request's path parameter
 * (`dictionary:{name}`). Declared on the route, one line: `audit: { action: 'dictionaries.delete', target: 'dictionary:{name}' }`.
 */
export interface RouteAudit {
  /** The action, or how the request names it (a delete that purges with `with_cases=true`). */
  action: string | ((c: Context<AppEnv>) => string);
  target?: string;
}

/** Where the HTTP app appends audit records. */
export interface AuditDeps {
  store: Store;
  /** The proxies whose X-Forwarded-For is believed (the login throttle's). */
  trustedProxies: () => readonly string[];
}

/** Longest error message kept in a failure's details. */
const MAX_MESSAGE = 500;

/** `dictionary:{name}` with the request's path parameters. */
function targetOf(c: Context<AppEnv>, template: string | undefined): string {
  if (template === undefined) return '';
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, p: string) => c.req.param(p) ?? '');
}

/** The who, where and what of a request to an audited route. */
function httpAuditEntry(
  c: Context<AppEnv>,
  deps: AuditDeps,
  a: RouteAudit,
  outcome: AuditEntry['outcome'],
  details: Record<string, unknown>,
): AuditEntry {
  return {
    actor: c.get('principal')?.username ?? '-',
    origin: clientAddress(c, deps.trustedProxies()),
    channel: 'http',
    action: typeof a.action === 'string' ? a.action : a.action(c),
    target: targetOf(c, a.target),
    outcome,
    details: { method: c.req.method, request_id: c.get('requestId'), ...details },
  };
}

/**
 * The handler of an audited route: runs it, then appends `success` (a 2xx or 3xx reply) or
 * `failure` (a 4xx or 5xx reply, or an error, with its code). A success whose record cannot be
 * written is an error (the change stands, but the client is not told it succeeded unrecorded); the
 * record of a failure is best effort and the failure goes on as it was.
 */
export function auditedHandler(
  deps: AuditDeps,
  a: RouteAudit,
  handler: (c: Context<AppEnv>) => Response | Promise<Response>,
): (c: Context<AppEnv>) => Promise<Response> {
  return async (c) => {
    let res: Response;
    try {
      res = await handler(c);
    } catch (err) {
      const e = toAppError(err);
      await recordAudit(
        deps.store,
        httpAuditEntry(c, deps, a, 'failure', { error: e.code, message: e.message.slice(0, MAX_MESSAGE) }),
      ).catch(() => undefined);
      throw err;
    }
    const ok = res.status < 400;
    await recordAudit(deps.store, httpAuditEntry(c, deps, a, ok ? 'success' : 'failure', { status: res.status }));
    return res;
  };
}

/**
 * Appends a login by password to the audit trail: `login` on `user:<name>`, `success`, or
 * `failure` with the error's code. Only the failures the login throttle counts (wrong password,
 * unknown or disabled account: AUTH-001) are recorded, so that the trail grows no faster than the
 * throttle lets logins fail; a throttled or malformed request is in the server log only
 * (docs/supervision.md#what-is-recorded).
 */
export async function recordLogin(c: Context<AppEnv>, deps: AuditDeps, username: string, error?: unknown): Promise<void> {
  const a: RouteAudit = { action: 'login' };
  const e = error === undefined ? undefined : toAppError(error);
  if (e !== undefined && e.code !== 'AUTH-001') return;
  const entry = httpAuditEntry(c, deps, a, e ? 'failure' : 'success', e ? { error: e.code, message: e.message.slice(0, MAX_MESSAGE) } : {});
  entry.actor = username;
  entry.target = `user:${username}`;
  await recordAudit(deps.store, entry);
}
