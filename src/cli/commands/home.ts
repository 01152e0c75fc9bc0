import type { Command } from 'commander';
import type { HomePaths } from '../../shared/home.js';
import { backupHome } from '../../core/backup/index.js';
import { AppError } from '../../shared/errors.js';
import { initHome, migrateHome, migrationStatus } from '../../core/home/index.js';
import { action, examples } from '../action.js';
import { fields } from '../render.js';

/** `sds init` and `sds migrate`. */
export function registerHomeCommands(program: Command): void {
  program
    .command('init')
    .description('create the home directory (store, media area, logs, locks), private to its owner; safe to run again')
    .addHelpText(
      'after',
      examples('sds init', 'sds --home /srv/sds init', 'SDS_HOME=/srv/sds sds init --json') +
        '\nOnly init and quickstart create a home (a directory holding the store sds.db),\n' +
        'and restore from a backup.\n' +
        'Every other command on a missing home exits 3 with HOME_NOT_FOUND, naming the\n' +
        'path and whether --home, SDS_HOME or the default ./var chose it.\n' +
        'A new home is 0700, its store and embedded targets 0600. Run again on an\n' +
        'existing home, init makes these private if group or others can reach them; it\n' +
        'never migrates (that is sds migrate).\n',
    )
    .action(
      action(async (ctx) => {
        const r = await initHome(ctx.home);
        ctx.print(r, () =>
          fields([
            ['home', r.home],
            ['store', r.store],
            ['schema version', r.schema_version],
            ...r.permissions_tightened.map((p): [string, string] => ['made private', `${p.path} (was ${p.mode}, now ${p.expected})`]),
            ['', r.message],
          ]),
        );
      }),
    );

  program
    .command('migrate')
    .description('apply pending store migrations after a backup of the home; --status lists them')
    .option('--status', 'list applied and pending migrations; applies nothing')
    .option('--no-backup', 'migrate without taking a backup first')
    .option('--backup-dir <dir>', 'where the backup goes (default: <home>/backups)')
    .addHelpText(
      'after',
      examples(
        'sds --home /srv/sds migrate --status',
        'sds --home /srv/sds migrate',
        'sds --home /srv/sds migrate --backup-dir /var/backups/sds --json',
        'sds --home /srv/sds migrate --no-backup    # backed up already',
      ) +
        '\nAfter an upgrade of sds every other command refuses a home whose store needs\n' +
        'migrating (STORE_NEEDS_MIGRATION, exit 3). Stop sds serve and the scheduler\n' +
        'timer, run sds migrate, then start them again (docs/upgrading.md).\n',
    )
    .action(
      action(async (ctx, opts: { status?: boolean; backup: boolean; backupDir?: string }) => {
        if (opts.status === true) {
          if (opts.backup === false || opts.backupDir !== undefined) {
            throw new AppError('USAGE', '--status applies nothing, so it takes neither --no-backup nor --backup-dir');
          }
          const s = await migrationStatus(ctx.home);
          ctx.print(s, () =>
            [
              fields([
                ['home', s.home],
                ['schema version', s.schema_version],
                ['latest', s.latest_version],
                ['', s.up_to_date ? 'up to date' : s.schema_version > s.latest_version ? 'written by a newer sds' : 'run sds migrate'],
              ]),
              ctx.table(
                ['version', 'name', 'state'],
                s.migrations.map((m) => [String(m.version).padStart(4, '0'), m.name, m.state]),
              ),
            ].join('\n'),
          );
          return;
        }
        // The backup module writes the backup; the home module only calls it before the first
        // migration (docs/upgrading.md#upgrading-a-home), by default into the home's backups/.
        // Composed here, since backup already depends on home.
        const r = await migrateHome(ctx.home, {
          backup: opts.backup ? migrateBackup : undefined,
          backupDir: opts.backupDir,
        });
        const applied = r.migrations_applied.length ? r.migrations_applied.join(', ') : 'none (up to date)';
        ctx.print(r, () =>
          fields([
            ['home', r.home],
            ['schema version', r.from_version === r.schema_version ? r.schema_version : `${r.from_version} -> ${r.schema_version}`],
            ['applied', applied],
            ['backup', r.backup ?? (r.migrations_applied.length ? 'none (--no-backup)' : 'none (nothing to migrate)')],
          ]),
        );
      }),
    );
}

/**
 * The backup `sds migrate` takes first. A PostgreSQL store is the office's to back up
 * (BACKUP_STORE_EXTERNAL): the refusal says it came before a migration, so that the CLI names the
 * way on (docs/upgrading.md#a-postgresql-store).
 */
async function migrateBackup(home: HomePaths, dest: string): Promise<{ path: string }> {
  try {
    return await backupHome(home, dest, { insideHome: true });
  } catch (err) {
    if (err instanceof AppError && err.code === 'BACKUP_STORE_EXTERNAL') {
      throw new AppError(err.code, `nothing was migrated: ${err.message}`, { ...err.details, step: 'migrate' });
    }
    throw err;
  }
}
