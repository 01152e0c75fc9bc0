import type { Command } from 'commander';
import { metrics } from '../../core/metrics/index.js';
import { action, examples } from '../action.js';
import { interruptionLine } from '../interruption-line.js';

/** `sds metrics`: the integration API's metrics (docs/http-api.md). */
export function registerMetricsCommand(program: Command): void {
  program
    .command('metrics')
    .description('cases per dictionary, breakout state and the share broken out (the reply of GET /api/metrics)')
    .addHelpText(
      'after',
      examples('sds metrics', 'sds metrics --json') +
        '\n"broken out" is the share of active cases the breakout has applied to the\n' +
        "target (the reply's sync_rate); it says nothing of what devices have synced.\n" +
        'An interrupted breakout is named with the command that resumes it.\n',
    )
    .action(
      action(async (ctx) => {
        const m = await metrics(await ctx.store());
        const names = Object.keys(m.cases_by_dictionary);
        ctx.print(m, () =>
          [
            ctx.table(
              ['dictionary', 'cases', 'breakout', 'broken out'],
              names.map((d) => [d, m.cases_by_dictionary[d], m.breakout_status[d], m.sync_rate_by_dictionary[d]]),
            ),
            `total cases: ${m.total_cases}, broken out into the targets: ${m.sync_rate} (sync_rate)`,
            ...names.flatMap((d) => {
              const i = m.breakout_interrupted[d];
              return i ? [interruptionLine(d, i)] : [];
            }),
          ].join('\n'),
        );
      }),
    );
}
