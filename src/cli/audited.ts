import { auditedCall, cliAuditSource } from '../core/audit/index.js';
import { action } from './action.js';
import type { CliContext } from './context.js';

/**
 * The action or target of a command from its arguments (positionals, then the options). Typed
 * loosely on purpose: the handler's own parameter types are the ones commander's arguments are
 * inferred from, and a label reads only the first few.
 */
type AuditLabel = (...args: any) => string;

/** What a handler returns when it changed nothing after all (a purge the user did not confirm): no record. */
export const NOT_DONE = Symbol('not done');

/**
 * `action()` for a command that changes something: the same handler, whose outcome is appended to
 * the audit trail as `action` on `target(...args)` by the operating-system user on this host
 * (docs/supervision.md#audit-trail). One line per command:
 *
 *   .action(audited('users.add', (name: string) => `user:${name}`, async (ctx, name: string, opts) => { … }))
 *
 * The handler may return an object of details to record with a success (never a secret).
 */
export function audited<A extends unknown[]>(
  act: string | AuditLabel,
  target: AuditLabel,
  fn: (ctx: CliContext, ...args: A) => Promise<Record<string, unknown> | typeof NOT_DONE | void>,
) {
  return action(async (ctx: CliContext, ...args: A) => {
    const source = cliAuditSource();
    const { sudo_user, ...who } = source;
    await auditedCall(
      () => ctx.store(),
      { ...who, details: sudo_user ? { sudo_user } : undefined },
      { action: typeof act === 'string' ? act : act(...args), target: target(...args) },
      () => fn(ctx, ...args),
      (r) => (r === NOT_DONE ? null : (r ?? undefined)),
    );
  });
}
