import type { Command } from 'commander';
import { jobExitCode, runBreakoutNow } from '../../core/breakout/index.js';
import { action, examples } from '../action.js';
import { interruptOnSignals, reportInterrupted } from '../interrupt.js';
import { progressBar } from '../progress.js';
import { threadsOption } from '../threads-option.js';
import { jobOutcome, printJob } from './breakout.js';
import { dictionaryArgument } from '../dictionary-argument.js';

/** The bar of an incremental run in this process: cli-progress measures the rate itself. */
const RUN_BAR = '{dictionary} [{bar}] {percentage}% | {value}/{total} cases | ETA {eta_formatted}';

/** `sds process-cases-by-dict` (also `service:process-cases-by-dict`): an incremental breakout in the foreground. */
export function registerProcessCasesCommand(program: Command): void {
  program
    .command('process-cases-by-dict <name>')
    .alias('service:process-cases-by-dict')
    .description('incremental breakout of one dictionary in the foreground: only cases changed since the last run')
    .option('--threads <n>', 'parallel connections to the target (1-10)', threadsOption, 1)
    .option('--overwrite', 'drop and rebuild the tables, then load every case')
    .option('--force', 'same as --overwrite')
    .addHelpText(
      'after',
      examples(
        'sds process-cases-by-dict CEN2000',
        'sds service:process-cases-by-dict dictionnaires=CEN2000 --threads=4',
        'sds process-cases-by-dict CEN2000 --force',
      ) +
        '\nCtrl-C or SIGTERM stops the job after the page it is writing (cancelled; the\n' +
        'next run continues from there), says so on stderr and exits 130 (SIGINT) or 143\n' +
        '(SIGTERM). A second signal exits at once.\n',
    )
    .action(
      action(async (ctx, name: string, o: { threads: number | string; overwrite?: boolean; force?: boolean }) => {
        const bar = progressBar(ctx, RUN_BAR, 0, { dictionary: dictionaryArgument(name) });
        let jobId: string | undefined;
        // Ctrl-C / SIGTERM: the job stops after the page it is writing (docs/cli.md, "Ctrl-C and SIGTERM").
        const interrupt = interruptOnSignals({
          onFirst: (sig) =>
            process.stderr.write(
              `sds: ${sig}: stopping ${jobId ? `job ${jobId}` : 'the breakout'} after the page it is writing (again to exit at once)\n`,
            ),
          again: () =>
            `job ${jobId ?? '?'} is left as it is; it shows failed once its process is gone, and the next run continues from the last page saved`,
        });
        const signal = interrupt.signal;
        const r = await runBreakoutNow(
          await ctx.store(),
          {
            dictionary: dictionaryArgument(name),
            threads: o.threads,
            overwrite: o.overwrite === true || o.force === true,
            origin: 'process-cases-by-dict',
          },
          {
            signal,
            onJob: (id) => (jobId = id),
            log: ctx.verbose ? (l) => process.stderr.write(l + '\n') : undefined,
            onProgress: (dictionary, processed, total) => bar.update(processed, total, { dictionary }),
            // A drop nobody asked for (not --overwrite) is never silent: it goes to stderr even without --verbose.
            onTables: (dictionary, c) => {
              if (c.dropped.length && c.reason !== 'overwrite')
                ctx.note(`${dictionary}: dropped ${c.dropped.length} table(s) (${c.reason}: ${c.detail}): ${c.dropped.join(', ')}`);
            },
          },
        ).finally(() => {
          bar.stop();
          interrupt.dispose();
        });
        printJob(ctx, r);
        process.exitCode = jobExitCode(r);
        const sig = interrupt.received();
        if (sig) reportInterrupted(sig, jobOutcome(r, [dictionaryArgument(name)]));
        // Stopped (SIGTERM from the scheduler's time limit, Ctrl-C): the job is recorded, so exit now
        // rather than wait out the driver's timeout of a connect still pending (docs/scheduler.md, "Time limit").
        if (signal.aborted) setImmediate(() => process.exit());
      }),
    );
}
