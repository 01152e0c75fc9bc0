import type { Command } from 'commander';
import { metrics } from '../../core/metrics/index.js';
import { action, examples } from '../action.js';

/** `sds metrics`: the integration API's metrics (docs/http-api.md). */
export function registerMetricsCommand(program: Command): void {
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
}
