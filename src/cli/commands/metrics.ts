import type { Command } from 'commander';
import { metrics } from '../../core/metrics/metrics.js';
import { listBreakoutLogs } from '../../core/breakout/log.js';
import { action, examples } from '../action.js';

/** `sds metrics` and `sds logs`: the integration API's metrics and breakout log (spec 2.10). */
export function registerMetricsCommands(program: Command): void {
  program
    .command('metrics')
    .description('cases per dictionary, breakout state and sync rate (the reply of GET /api/metrics)')
    .addHelpText('after', examples('sds metrics', 'sds metrics --json'))
    .action(
      action(async (ctx) => {
        const m = metrics(ctx.store());
        ctx.print(m, () =>
          [
            ctx.table(
              ['dictionary', 'cases', 'breakout'],
              Object.keys(m.cases_by_dictionary).map((d) => [d, m.cases_by_dictionary[d], m.breakout_status[d]]),
            ),
            `total cases: ${m.total_cases}, sync rate: ${m.sync_rate}`,
          ].join('\n'),
        );
      }),
    );

  program
    .command('logs')
    .description('the breakout log, newest first (the reply of GET /api/logs/breakout)')
    .option('--dictionary <name>', 'only this dictionary')
    .option('--limit <n>', 'entries to show (1-1000)', '100')
    .addHelpText('after', examples('sds logs', 'sds logs --dictionary CEN2000 --limit 20', 'sds logs --json'))
    .action(
      action(async (ctx, o: { dictionary?: string; limit: string }) => {
        const r = listBreakoutLogs(ctx.store(), { dictionary: o.dictionary, limit: o.limit });
        ctx.print(r, () =>
          r.logs.length === 0
            ? 'no breakout log entries'
            : ctx.table(['time', 'level', 'dictionary', 'progress', 'message'], r.logs.map((l) => [l.timestamp, l.level, l.dictionary, l.progress, l.message])),
        );
      }),
    );
}
