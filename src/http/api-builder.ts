import type { Context, Hono, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { OpenAPIRegistry, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { AppError } from '../shared/errors.js';
import { BUILTIN_ROLES, type Right, type TokenService } from '../core/auth/index.js';
import type { Store } from '../core/home/index.js';
import type { AppEnv } from './app-env.js';
import { auditedHandler, type AuditDeps, type RouteAudit } from './audit-route.js';
import { authenticate } from './authenticate.js';
import { AUTH_ERRORS } from './schemas/common.js';
import { withStandardErrors } from './standard-errors.js';

/** One route of the API: its OpenAPI description and its handler, declared together. */
export interface ApiRoute {
  method: 'get' | 'post' | 'put' | 'delete' | 'patch';
  /** OpenAPI form, `{param}` segments: `/api/dictionaries/{name}`. */
  path: string;
  /** Hono form when it differs from the converted `path` (e.g. a parameter spanning `/`). */
  honoPath?: string;
  summary: string;
  description?: string;
  tags: string[];
  /**
   * The right the caller needs (docs/supervision.md#rights-by-route-and-command), or `public` for
   * routes needing no token. A dictionary right is checked on the dictionary the path names.
   */
  permission: Right | 'public';
  /** Limit of a form or JSON body read by the handler (bytes); multipart routes limit themselves. */
  bodyLimit?: number;
  /**
   * The error a body over `bodyLimit` becomes (default 413 `PAYLOAD_TOO_LARGE` in `{error, message}`);
   * a route answering in another error shape (the token endpoint) gives its own, and documents it as its 413.
   */
  bodyTooLarge?: (limit: number) => Error;
  request?: RouteConfig['request'];
  responses: RouteConfig['responses'];
  handler: (c: Context<AppEnv>) => Response | Promise<Response>;
  /**
   * A read the handler will need that depends on nothing of the caller, started as soon as the
   * token's signature holds, beside the account's read (one round trip instead of two on the
   * PostgreSQL store; docs/decisions.md, "A download page beside its account"). Its promise waits
   * in the context (`prefetched`); a refused request drops it unread. It must change nothing.
   */
  prefetch?: (c: Context<AppEnv>) => Promise<unknown> | undefined;
  /** OpenAPI security of a public route that checks a credential itself (the root webhook scripts). */
  security?: RouteConfig['security'];
  /** Appends each call's outcome to the audit trail (docs/supervision.md#audit-trail): for routes that change something. */
  audit?: RouteAudit;
  /** Answers every other method on this path (a script with its own 405 shape) instead of the app's API-001. */
  otherMethods?: (c: Context<AppEnv>) => Response | Promise<Response>;
}

/**
 * Registers routes on the Hono app and in the OpenAPI registry at once, so the served document
 * cannot drift from the router: the schemas that describe a route are the ones its handler
 * validates with. Route groups (`routes/<group>.ts`) receive a builder and call `route()`.
 */
export class ApiBuilder {
  readonly registry = new OpenAPIRegistry();

  constructor(
    private readonly app: Hono<AppEnv>,
    private readonly tokens: TokenService,
    private readonly store: Store,
    /** Where audited routes record their calls; without it (tests of one group) nothing is recorded. */
    private readonly audit?: AuditDeps,
  ) {
    this.registry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    this.registry.registerComponent('securitySchemes', 'metricsToken', {
      type: 'http',
      scheme: 'bearer',
      description: 'the static token of SDS_METRICS_TOKEN (docs/metrics.md), never an OAuth access token',
    });
  }

  route(r: ApiRoute): void {
    const isPublic = r.permission === 'public';
    const dictionaryParam = dictionaryParamOf(r.path);
    const roles = isPublic
      ? ''
      : `Permission \`${r.permission}\`${dictionaryParam ? ` on the dictionary \`{${dictionaryParam}}\`` : ''}: ` +
        `built-in roles ${builtinHolders(r.permission as Right).join(', ')}, and the custom roles given it.`;
    this.registry.registerPath({
      method: r.method,
      path: r.path,
      summary: r.summary,
      description: [r.description, roles].filter(Boolean).join('\n\n') || undefined,
      tags: r.tags,
      security: r.security ?? (isPublic ? [] : [{ bearerAuth: [] }]),
      request: r.request,
      responses: withStandardErrors(r, isPublic ? r.responses : { ...AUTH_ERRORS, ...r.responses }),
    });
    // First in the chain, so a request refused by authentication still counts under its route.
    const chain: MiddlewareHandler<AppEnv>[] = [
      async (c, next) => {
        c.set('route', r.path);
        await next();
      },
    ];
    if (!isPublic) chain.push(authenticate(this.tokens, this.store, r.permission as Right, dictionaryParam, r.prefetch));
    if (r.bodyLimit !== undefined) {
      const max = r.bodyLimit;
      chain.push(
        bodyLimit({
          maxSize: max,
          onError: () => {
            throw (
              r.bodyTooLarge?.(max) ??
              new AppError('PAYLOAD_TOO_LARGE', `the request body is larger than the limit of ${max} bytes`, { limit: max })
            );
          },
        }),
      );
    }
    const path = r.honoPath ?? r.path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
    const handler = r.audit && this.audit ? auditedHandler(this.audit, r.audit, r.handler) : r.handler;
    this.app.on([r.method.toUpperCase()], [path], ...chain, handler);
    const other = r.otherMethods;
    if (other)
      this.app.all(path, (c) => {
        c.set('route', r.path);
        return other(c);
      });
  }
}

/**
 * The path parameter naming the dictionary a route touches, whose per-dictionary rights apply
 * (docs/supervision.md#roles-and-rights): `{name}` under `/api/dictionaries/`, `{dictionary}` anywhere.
 */
function dictionaryParamOf(path: string): string | undefined {
  if (path.includes('{dictionary}')) return 'dictionary';
  if (path.startsWith('/api/dictionaries/{name}')) return 'name';
  return undefined;
}

/** The built-in roles that hold `right`, as the OpenAPI document lists them. */
function builtinHolders(right: Right): string[] {
  return Object.entries(BUILTIN_ROLES)
    .filter(([, rights]) => rights.includes(right))
    .map(([role]) => role);
}
