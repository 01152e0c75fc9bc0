import type { Command } from 'commander';
import { listBreakoutLogs } from '../../core/breakout/index.js';
import { action, examples } from '../action.js';

/** `sds logs`: the breakout log of the integration API (docs/http-api.md). */
export function registerLogsCommand(program: Command): void {
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
            : ctx.table(
                ['time', 'level', 'dictionary', 'progress', 'message'],
                r.logs.map((l) => [l.timestamp, l.level, l.dictionary, l.progress, l.message]),
              ),
        );
      }),
    );
}
