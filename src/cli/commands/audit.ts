import type { Command } from 'commander';
import { AppError } from '../../shared/errors.js';
import {
  AUDIT_LIST_MAX,
  auditSettings,
  cliAuditSource,
  listAudit,
  markAuditBackedUp,
  pruneAudit,
  verifyAudit,
  type AuditQuery,
  type ExpectedHead,
} from '../../core/audit/index.js';
import { action, examples } from '../action.js';
import { fields } from '../render.js';

/** `--expect 1234:9f86d0…`: a head written down earlier. */
function expectedHead(v: string | undefined): ExpectedHead | undefined {
  if (v === undefined) return undefined;
  const m = /^(\d{1,15}):([0-9a-f]{64})$/.exec(v);
  if (!m)
    throw new AppError(
      'USAGE',
      `--expect must be SEQ:HASH as verify printed them (1234:9f86d0…, 64 hex digits), not ${JSON.stringify(v)}`,
      { field: 'expect' },
    );
  return { seq: Number(m[1]), hash: m[2]! };
}

/** `sds audit verify|list|prune|backed-up`: the audit trail (docs/supervision.md#audit-trail). */
export function registerAuditCommands(program: Command): void {
  const audit = program
    .command('audit')
    .description('the audit trail: who changed what, and every login; hash-chained')
    .addHelpText('after', examples('sds audit verify', 'sds audit list --action "users.*" --since 2026-11-01', 'sds audit prune'));

  audit
    .command('verify')
    .description('walk the whole chain; exit non-zero naming the first edited, deleted or inserted record')
    .option('--expect <seq:hash>', 'also check that a head written down earlier is still in the chain')
    .addHelpText(
      'after',
      examples(
        'sds audit verify',
        'sds audit verify --json   # head_seq and head_hash to keep elsewhere',
        'sds audit verify --expect 1234:9f86d08…',
      ),
    )
    .action(
      action(async (ctx, o: { expect?: string }) => {
        const r = await verifyAudit(await ctx.store(), { expect: expectedHead(o.expect) });
        ctx.print(r, () =>
          [
            `The audit trail is whole: ${r.records} records checked`,
            fields([
              ['head', `${r.head_seq}:${r.head_hash}`],
              ['anchor', r.anchor_seq === 0 ? 'none (nothing pruned)' : `${r.anchor_seq}:${r.anchor_hash}`],
              ['backed up to', r.backed_up_seq],
              ...(r.expected
                ? ([['expected head', r.expected === 'found' ? 'found' : 'pruned since (not checkable)']] as [string, unknown][])
                : []),
            ]),
          ].join('\n'),
        );
      }),
    );

  audit
    .command('list')
    .description('list audit records, newest first')
    .option('--since <time>', 'records at or after this ISO 8601 date or time (UTC when no zone)')
    .option('--until <time>', 'records before this ISO 8601 date or time')
    .option('--actor <who>', 'records of this account, or os:USER for the CLI')
    .option('--action <action>', 'records of this action (users.add), or a prefix ending in * (users.*)')
    .option('--outcome <outcome>', 'success or failure')
    .option('--before <seq>', 'records below this seq (the next page)')
    .option('--limit <n>', `records to show (1-${AUDIT_LIST_MAX})`, '100')
    .addHelpText(
      'after',
      examples(
        'sds audit list',
        'sds audit list --action login --outcome failure --since 2026-11-28',
        'sds audit list --actor os:root --json',
        'sds audit list --before 4211 --limit 50',
      ),
    )
    .action(
      action(async (ctx, o: AuditQuery) => {
        const list = await listAudit(await ctx.store(), o);
        ctx.print(list, () =>
          list.length
            ? ctx.table(
                ['seq', 'at', 'actor', 'origin', 'action', 'target', 'outcome', 'details'],
                list.map((r) => [
                  r.seq,
                  r.at,
                  r.actor,
                  `${r.channel} ${r.origin}`,
                  r.action,
                  r.target,
                  r.outcome,
                  JSON.stringify(r.details),
                ]),
              )
            : 'no audit records',
        );
        if (list.length > 0 && list.length === Number(o.limit ?? 100)) ctx.note(`for the next page add --before ${list.at(-1)!.seq}`);
      }),
    );

  audit
    .command('prune')
    .description('remove the records older than audit.retention_days that a backup already holds')
    .addHelpText('after', examples('sds audit prune', 'SDS_AUDIT_RETENTION_DAYS=365 sds audit prune --json'))
    .action(
      action(async (ctx) => {
        const { sudo_user, ...who } = cliAuditSource();
        void sudo_user;
        const r = await pruneAudit(await ctx.store(), { now: new Date(), settings: auditSettings(ctx.home), source: who });
        const why =
          r.held_by === 'forever'
            ? ' (audit.retention_days is 0: records are kept forever)'
            : r.held_by === 'not-backed-up'
              ? ' (older records wait for a backup)'
              : '';
        ctx.print(r, () => `${r.pruned} audit records pruned${why}`);
      }),
    );

  audit
    .command('backed-up')
    .description('say that a backup taken outside sds (pg_dump) holds the records up to SEQ')
    .requiredOption('--through <seq>', 'the head_seq that sds audit verify printed before the dump')
    .addHelpText('after', examples('sds audit verify --json | jq .head_seq   # before pg_dump', 'sds audit backed-up --through 4211'))
    .action(
      action(async (ctx, o: { through: string }) => {
        if (!/^\d{1,15}$/.test(o.through))
          throw new AppError('USAGE', `--through must be a whole number, not ${JSON.stringify(o.through)}`, { field: 'through' });
        const { sudo_user, ...who } = cliAuditSource();
        await markAuditBackedUp(await ctx.store(), Number(o.through), {
          ...who,
          action: 'audit.backed-up',
          target: '',
          details: sudo_user ? { sudo_user } : {},
        });
        ctx.print({ backed_up_seq: Number(o.through) }, () => `Audit records up to ${o.through} are marked as backed up`);
      }),
    );
}
