import { once } from 'node:events';
import type { Command } from 'commander';
import { listBreakoutLogs } from '../../core/breakout/index.js';
import { LOG_KINDS, pruneLogs, showLogFile } from '../../core/logs/index.js';
import { action, examples } from '../action.js';

/**
 * `sds logs`: the breakout log of the integration API (docs/http-api.md), and `sds logs prune`,
 * log retention on demand (docs/logs.md#sds-logs-prune). `prune` is a subcommand of a command
 * that also runs on its own, so `sds logs [--dictionary …]` works as before.
 */
export function registerLogsCommand(program: Command): void {
  const logs = program
    .command('logs')
    .description(
      'the breakout log, newest first (the reply of GET /api/logs/breakout); `sds logs show` prints a job or run log, `sds logs prune` prunes old logs',
    )
    .option('--dictionary <name>', 'only this dictionary')
    .option('--limit <n>', 'entries to show (1-1000)', '100')
    .addHelpText('after', examples('sds logs', 'sds logs --dictionary CEN2000 --limit 20', 'sds logs --json', 'sds logs prune --dry-run'))
    .action(
      action(async (ctx, o: { dictionary?: string; limit: string }) => {
        const r = await listBreakoutLogs(await ctx.store(), { dictionary: o.dictionary, limit: o.limit });
        ctx.print(r, () =>
          r.logs.length === 0
            ? 'no breakout log entries'
            : ctx.table(
                ['time', 'level', 'dictionary', 'progress', 'message'],
                r.logs.map((l) => [l.timestamp, l.level, l.dictionary, l.progress, l.message]),
              ),
        );
      }),
    );

  logs
    .command('show <file>')
    .description(
      "print a job's or a schedule run's log file (job-<id>.log, or a job id; <dictionary>_<time>.log): from the store, on any node of a PostgreSQL store, or from this machine's logs/breakout/ while the job runs",
    )
    .addHelpText('after', examples('sds logs show 6f1c…', 'sds logs show job-6f1c….log', 'sds logs show CEN2000_2026-03-01_02-00-00.log'))
    .action(
      action(async (ctx, file: string) => {
        const log = await showLogFile(await ctx.store(), file);
        if (ctx.json) {
          const parts: Buffer[] = [];
          for await (const p of log.content) parts.push(Buffer.from(p as Buffer));
          ctx.print({ file: log.file, content: Buffer.concat(parts).toString('utf8') }, () => '');
        } else {
          // The bytes as they are, whatever --quiet says: they are what was asked for.
          for await (const p of log.content) if (!process.stdout.write(p as Buffer)) await once(process.stdout, 'drain');
        }
      }),
    );

  logs
    .command('prune')
    .description(
      'delete old import logs, job logs, schedule run logs, breakout log entries and sync messages, by age and count; never those of running work or the latest of each schedule',
    )
    .option(
      '--older-than <days>',
      'delete what is older than this many days, messages too (default $SDS_LOG_RETENTION_DAYS, config.json, else 30; messages $SDS_MESSAGE_RETENTION_DAYS, else 90)',
    )
    .option(
      '--keep <n>',
      'keep at most this many of each kind, newest first, messages too (default $SDS_LOG_RETENTION_COUNT, config.json, else 1000; messages $SDS_MESSAGE_RETENTION_COUNT, else 100000)',
    )
    .option('--dry-run', 'say what would be deleted, delete nothing')
    .addHelpText('after', examples('sds logs prune', 'sds logs prune --older-than 7 --keep 200', 'sds logs prune --dry-run --json'))
    .action(
      action(async (ctx, o: { olderThan?: string; keep?: string; dryRun?: boolean }) => {
        const r = await pruneLogs(await ctx.store(), { olderThanDays: o.olderThan, keep: o.keep, dryRun: o.dryRun === true });
        ctx.print(r, () => {
          const verb = r.dry_run ? 'would delete' : 'deleted';
          const m = r.messages;
          const head =
            `${verb} logs older than ${r.older_than_days} days (before ${r.cutoff}) or beyond the newest ${r.keep} of each kind,\n` +
            `and sync messages older than ${m.older_than_days} days (before ${m.cutoff}) or beyond the newest ${m.keep}`;
          const rows: (string | number)[][] = LOG_KINDS.map((k) => [k, r.kinds[k].rows, r.kinds[k].files, r.kinds[k].bytes]);
          rows.push(['total', r.total.rows, r.total.files, r.total.bytes]);
          return `${head}\n${ctx.table(['kind', 'rows', 'files', 'bytes'], rows)}`;
        });
      }),
    );
}
