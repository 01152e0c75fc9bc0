import type { Command } from 'commander';
import { dropBreakoutTables } from '../../core/breakout/index.js';
import { action, examples } from '../action.js';
import { dictionaryArgument } from '../dictionary-argument.js';

/** `sds drop-breakout-tables` (also `service:drop-breakout-tables`). */
export function registerDropBreakoutTablesCommand(program: Command): void {
  program
    .command('drop-breakout-tables <name>')
    .alias('service:drop-breakout-tables')
    .description('drop the breakout tables of a dictionary')
    .addHelpText('after', examples('sds drop-breakout-tables CEN2000'))
    .action(
      action(async (ctx, name: string) => {
        const r = await dropBreakoutTables(await ctx.store(), dictionaryArgument(name));
        ctx.print(r, () => `${r.message} (${r.freed_space} freed)`);
      }),
    );
}
