import type { Command } from 'commander';
import { checkDatabaseDrivers } from '../../core/breakout/index.js';
import { EXIT } from '../../shared/errors.js';
import { action, examples } from '../action.js';

/** `sds check-database-drivers` (also `service:check-database-drivers`). */
export function registerCheckDatabaseDriversCommand(program: Command): void {
  program
    .command('check-database-drivers')
    .alias('service:check-database-drivers')
    .description('which database drivers load, their versions, and whether each dictionary target answers (exit 5 when one does not)')
    .addHelpText('after', examples('sds check-database-drivers', 'sds check-database-drivers --json'))
    .action(
      action(async (ctx) => {
        const r = await checkDatabaseDrivers(await ctx.store());
        ctx.print(r, () =>
          [
            ctx.table(
              ['driver', 'database', 'module', 'available', 'version'],
              r.drivers.map((d) => [d.driver, d.database, d.module, d.available ? 'yes' : `no: ${d.error}`, d.version]),
            ),
            r.targets.length
              ? ctx.table(
                  ['dictionary', 'target', 'reachable'],
                  r.targets.map((t) => [
                    t.dictionary,
                    t.target,
                    t.reachable ? `yes (${t.server_version})` : `no: ${t.error?.code} ${t.error?.message}`,
                  ]),
                )
              : 'no dictionaries, so no targets to check',
          ].join('\n'),
        );
        // Exit 5 when a driver does not load or a configured target does not answer; 0 with no dictionaries.
        if (r.drivers.some((d) => !d.available) || r.targets.some((t) => !t.reachable)) process.exitCode = EXIT.external;
      }),
    );
}
