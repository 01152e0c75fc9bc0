import type { Command } from 'commander';
import { initHome, migrateHome } from '../../core/home/index.js';
import { action, examples } from '../action.js';
import { fields } from '../render.js';

/** `sds init` and `sds migrate`. */
export function registerHomeCommands(program: Command): void {
  program
    .command('init')
    .description('create the home directory (store, media area, logs, locks); safe to run again')
    .addHelpText(
      'after',
      examples('sds init', 'sds --home /srv/sds init', 'SDS_HOME=/srv/sds sds init --json') +
        '\nOnly init and quickstart create a home (a directory holding the store sds.db).\n' +
        'Every other command on a missing home exits 3 with HOME_NOT_FOUND, naming the\n' +
        'path and whether --home, SDS_HOME or the default ./var chose it.\n',
    )
    .action(
      action((ctx) => {
        const r = initHome(ctx.home);
        ctx.print(r, () =>
          fields([
            ['home', r.home],
            ['store', r.store],
            ['schema version', r.schema_version],
            ['', r.message],
          ]),
        );
      }),
    );

  program
    .command('migrate')
    .description('apply pending store migrations to an existing home (every command also does this)')
    .addHelpText('after', examples('sds migrate', 'sds --home /srv/sds migrate --json'))
    .action(
      action((ctx) => {
        const r = migrateHome(ctx.home);
        const applied = r.migrations_applied.length ? r.migrations_applied.join(', ') : 'none (up to date)';
        ctx.print({ schema_version: r.schema_version, migrations_applied: r.migrations_applied }, () =>
          fields([
            ['schema version', r.schema_version],
            ['applied', applied],
          ]),
        );
      }),
    );
}
