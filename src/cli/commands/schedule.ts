import { Option, type Command } from 'commander';
import {
  addSchedule,
  listSchedules,
  removeSchedule,
  scheduleRuns,
  toggleSchedule,
  updateSchedule,
  type ScheduleItem,
  schedulerSettings,
  runNow,
  schedulerRun,
  type RunOutcome,
} from '../../core/scheduler/index.js';
import { EXIT, AppError } from '../../shared/errors.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../action.js';
import { audited } from '../audited.js';
import { interruptOnSignals, reportInterrupted } from '../interrupt.js';
import { fields } from '../render.js';

function printSchedule(ctx: CliContext, s: ScheduleItem): void {
  ctx.print(s, () =>
    fields([
      ['dictionary', s.dictionary],
      ['schedule id', s.id],
      ['enabled', s.enabled ? 'yes' : 'no'],
      ['cron', s.cron_expression],
      ['next run', s.next_run ?? '(none: disabled)'],
      ['last run', s.last_run],
      ['last exit code', s.last_exit_code],
      ['last log file', s.last_log_file],
    ]),
  );
}

function outcomeLine(r: RunOutcome): string {
  return `${r.dictionary}: ${r.outcome}${r.exit_code !== null ? ` (exit code ${r.exit_code})` : ''}${r.message ? `: ${r.message}` : ''}${r.log_file ? `\nlog: ${r.log_file}` : ''}`;
}

/** Exit code of a run: 0 succeeded or skipped, 1 failed or interrupted. */
function runExitCode(r: RunOutcome): number {
  return r.outcome === 'failed' || r.outcome === 'interrupted' ? EXIT.failed : EXIT.ok;
}

/** `--enable` and `--disable` together make no sense. */
function enabledFlag(o: { enable?: boolean; disable?: boolean }): boolean | undefined {
  if (o.enable && o.disable) throw new AppError('USAGE', '--enable and --disable cannot be given together', { field: 'enable' });
  return o.enable ? true : o.disable ? false : undefined;
}

/** `sds schedule list|add|update|toggle|remove|run-now|runs` and `sds scheduler-run` (docs/scheduler.md#commands). */
export function registerScheduleCommands(program: Command): void {
  const schedule = program
    .command('schedule')
    .description('cron schedules of incremental breakouts, one per dictionary (run by sds scheduler-run)')
    .addHelpText(
      'after',
      examples(
        'sds schedule add CEN2000 --cron "30 1 * * *" --enable',
        'sds schedule list',
        'sds schedule runs CEN2000',
        '# in the crontab of the service account:',
        '* * * * * sds --home /srv/sds scheduler-run',
      ),
    );

  schedule
    .command('list')
    .description('the schedules, and the dictionaries with a target that can still be scheduled')
    .addHelpText('after', examples('sds schedule list', 'sds schedule list --json'))
    .action(
      action(async (ctx) => {
        const r = await listSchedules(await ctx.store(), schedulerSettings(ctx.home));
        ctx.print(r, () =>
          [
            r.schedules.length
              ? ctx.table(
                  ['dictionary', 'enabled', 'cron', 'next run', 'last run', 'last exit'],
                  r.schedules.map((s) => [
                    s.dictionary,
                    s.enabled ? 'yes' : 'no',
                    s.cron_expression,
                    s.next_run,
                    s.last_run,
                    s.last_exit_code,
                  ]),
                )
              : 'no schedules',
            `cron expressions are read in ${r.timezone}; times are shown in UTC`,
            r.unscheduled_dictionaries.length ? `can be scheduled: ${r.unscheduled_dictionaries.map((d) => d.name).join(', ')}` : '',
          ]
            .filter(Boolean)
            .join('\n'),
        );
      }),
    );

  schedule
    .command('add <dict>')
    .description('schedule a dictionary that has a breakout target (disabled and "0 2 * * *" unless told otherwise)')
    .option('--cron <expr>', '5 fields: minute hour day-of-month month day-of-week', '0 2 * * *')
    .option('--enable', 'enable it at once (next_run is computed)')
    .addHelpText(
      'after',
      examples(
        'sds schedule add CEN2000',
        'sds schedule add CEN2000 --cron "*/15 6-20 * * mon-fri" --enable',
        'SDS_TIMEZONE=Europe/Paris sds schedule add CEN2000 --enable',
      ),
    )
    .action(
      audited(
        'schedules.add',
        (dict: string) => `dictionary:${dict}`,
        async (ctx, dict: string, o: { cron: string; enable?: boolean }) => {
          printSchedule(
            ctx,
            await addSchedule(
              await ctx.store(),
              { dictionary: dict, cron_expression: o.cron, enabled: o.enable === true },
              schedulerSettings(ctx.home),
            ),
          );
        },
      ),
    );

  schedule
    .command('update <dict>')
    .description('change the cron expression and/or enable or disable a schedule')
    .option('--cron <expr>', 'new cron expression (5 fields)')
    .option('--enable', 'enable it (next_run is computed)')
    .option('--disable', 'disable it (next_run is cleared; the schedule is kept)')
    .addHelpText('after', examples('sds schedule update CEN2000 --cron "0 3 * * *"', 'sds schedule update CEN2000 --disable'))
    .action(
      audited(
        'schedules.update',
        (dict: string) => `dictionary:${dict}`,
        async (ctx, dict: string, o: { cron?: string; enable?: boolean; disable?: boolean }) => {
          printSchedule(
            ctx,
            await updateSchedule(
              await ctx.store(),
              { dictionary: dict },
              { cron_expression: o.cron, enabled: enabledFlag(o) },
              schedulerSettings(ctx.home),
            ),
          );
        },
      ),
    );

  schedule
    .command('toggle <dict>')
    .description('switch a schedule on or off')
    .addHelpText('after', examples('sds schedule toggle CEN2000'))
    .action(
      audited(
        'schedules.toggle',
        (dict: string) => `dictionary:${dict}`,
        async (ctx, dict: string) => {
          printSchedule(ctx, await toggleSchedule(await ctx.store(), { dictionary: dict }, schedulerSettings(ctx.home)));
        },
      ),
    );

  schedule
    .command('remove <dict>')
    .description('delete the schedule of a dictionary and its run history (log files are kept)')
    .addHelpText('after', examples('sds schedule remove CEN2000'))
    .action(
      audited(
        'schedules.remove',
        (dict: string) => `dictionary:${dict}`,
        async (ctx, dict: string) => {
          const r = await removeSchedule(await ctx.store(), { dictionary: dict });
          ctx.print(r, () => r.message);
        },
      ),
    );

  schedule
    .command('run-now <dict>')
    .description(
      "run the schedule's incremental breakout now, in the foreground, as scheduler-run would (exit 0 succeeded or skipped, 1 failed)",
    )
    .option('--timeout <seconds>', 'stop the breakout after this long (default $SDS_SCHEDULER_TIMEOUT, config.json, else 3600)')
    // Internal: the run the HTTP server claimed for this detached process (docs/scheduler.md, "Run Now").
    .addOption(new Option('--claimed-run <id>').hideHelp())
    .addHelpText(
      'after',
      examples('sds schedule run-now CEN2000', 'sds schedule run-now CEN2000 --json') +
        '\nCtrl-C or SIGTERM stops the breakout after the page it is writing; the run is\n' +
        'recorded interrupted and the command exits 130 (SIGINT) or 143 (SIGTERM).\n',
    )
    .action(
      action(async (ctx, dict: string, o: { timeout?: string; claimedRun?: string }) => {
        const claimedRunId = o.claimedRun === undefined ? undefined : Number(o.claimedRun);
        if (claimedRunId !== undefined && !Number.isInteger(claimedRunId))
          throw new AppError('USAGE', `--claimed-run must be a run id; got "${o.claimedRun}"`, { field: 'claimed-run' });
        // Ctrl-C / SIGTERM reach the breakout through here (docs/cli.md, "Ctrl-C and SIGTERM").
        const interrupt = interruptOnSignals({
          onFirst: (sig) =>
            process.stderr.write(`sds: ${sig}: stopping the breakout of ${dict} after the page it is writing (again to exit at once)\n`),
          again: () => `the breakout of ${dict} may still be stopping; see sds schedule runs ${dict}`,
        });
        let r;
        try {
          r = await runNow(await ctx.store(), { dictionary: dict }, schedulerSettings(ctx.home, { timeoutSeconds: o.timeout }), {
            claimedRunId,
            stop: interrupt.signal,
          });
        } finally {
          interrupt.dispose();
        }
        ctx.print(r, () => outcomeLine(r));
        process.exitCode = runExitCode(r);
        const sig = interrupt.received();
        if (sig) reportInterrupted(sig, `run ${r.run_id} of ${r.dictionary} ended ${r.outcome}${r.message ? `: ${r.message}` : ''}`);
      }),
    );

  schedule
    .command('runs <dict>')
    .description('the run history of a schedule, newest first')
    .option('--limit <n>', 'at most this many (1-1000)', '20')
    .addHelpText('after', examples('sds schedule runs CEN2000', 'sds schedule runs CEN2000 --limit 5 --json'))
    .action(
      action(async (ctx, dict: string, o: { limit: string }) => {
        const r = await scheduleRuns(await ctx.store(), { dictionary: dict }, { limit: o.limit });
        ctx.print(r, () =>
          r.runs.length
            ? ctx.table(
                ['run', 'trigger', 'outcome', 'started', 'ended', 'exit', 'log file', 'message'],
                r.runs.map((x) => [x.id, x.trigger, x.outcome, x.started_at, x.ended_at, x.exit_code, x.log_file, x.message]),
              )
            : `no runs of ${r.dictionary} yet`,
        );
      }),
    );

  program
    .command('scheduler-run')
    .alias('service:scheduler-run')
    .description(
      'one scheduler tick, for cron every minute: deliver due webhooks, then run the due schedules one after another (exit 0 all ran or nothing due or another tick holds the lock, 1 a run failed)',
    )
    .option('--env <env>', 'accepted for compatibility with the old service:scheduler-run (--env=prod); ignored')
    .option('--timeout <seconds>', 'stop a breakout after this long (default $SDS_SCHEDULER_TIMEOUT, config.json, else 3600)')
    .addHelpText(
      'after',
      examples(
        '* * * * * sds --home /srv/sds scheduler-run >>/srv/sds/logs/cron.log 2>&1',
        'sds service:scheduler-run --env=prod',
        'sds scheduler-run --json',
      ),
    )
    .action(
      action(async (ctx, o: { timeout?: string }) => {
        const r = await schedulerRun(await ctx.store(), schedulerSettings(ctx.home, { timeoutSeconds: o.timeout }), {
          log: (line) => {
            if (!ctx.json && !ctx.quiet) process.stdout.write(`${new Date().toISOString()} ${line}\n`);
          },
        });
        if (ctx.json) ctx.print(r, () => '');
        process.exitCode = r.failed > 0 ? EXIT.failed : EXIT.ok;
      }),
    );
}
