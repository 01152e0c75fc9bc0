import type { Command } from 'commander';
import { quickstart } from '../../core/quickstart/index.js';
import { action, examples } from '../action.js';
import { interruptOnSignals, reportInterrupted } from '../interrupt.js';
import { progressBar } from '../progress.js';
import { fields } from '../render.js';

/** `sds quickstart`: the main job on the embedded default data. */
export function registerQuickstart(program: Command): void {
  program
    .command('quickstart')
    .description('create a home, upload the bundled Popstan census dictionary, import its 4,872 cases and break them out into SQLite')
    .addHelpText(
      'after',
      examples('sds quickstart', 'sds --home /tmp/demo quickstart --json') +
        '\nCtrl-C or SIGTERM stops the import after its batch, or the breakout job after\n' +
        'the page it is writing (cancelled), says so and exits 130 (SIGINT) or 143\n' +
        '(SIGTERM); running quickstart again finishes it. A second signal exits at once.\n',
    )
    .action(
      action(async (ctx) => {
        const bar = progressBar(ctx, 'importing {value} cases | {duration_formatted}');
        let jobId: string | undefined;
        // The same rule as every command that waits for work it started (docs/cli.md, "Ctrl-C and SIGTERM").
        const interrupt = interruptOnSignals({
          onFirst: (sig) =>
            process.stderr.write(
              `sds: ${sig}: stopping ${jobId ? `breakout job ${jobId} after the page it is writing` : 'the import after the batch it is writing'} (again to exit at once)\n`,
            ),
          again: () => `${jobId ? `job ${jobId} shows failed once its process is gone; ` : ''}run sds quickstart again to finish`,
        });
        const r = await quickstart(ctx.home, {
          onProgress: (n) => bar.update(n),
          signal: interrupt.signal,
          onJob: (id) => (jobId = id),
        }).finally(() => {
          bar.stop();
          interrupt.dispose();
        });
        ctx.print(
          r,
          () =>
            fields([
              ['home', r.home],
              ['dictionary', `${r.dictionary} (label ${r.label})`],
              ['cases stored', r.cases_stored],
              [
                'this run',
                `${r.import.inserted} inserted, ${r.import.updated} updated, ${r.import.unchanged} unchanged, ${r.import.failed} failed`,
              ],
              ['breakout', r.breakout ? `${r.breakout.job.status} into ${r.breakout.database}` : 'not started (interrupted)'],
            ]) +
            '\n' +
            ctx.table(
              ['table', 'type', 'rows', 'size'],
              (r.breakout?.tables ?? []).map((t) => [t.name, t.type, t.row_count, t.size]),
            ),
        );
        const sig = interrupt.received();
        if (sig && r.interrupted) {
          const what =
            r.interrupted === 'import'
              ? `import stopped with ${r.cases_stored} cases stored; the breakout did not start`
              : `breakout job ${r.breakout?.job.job_id} ${r.breakout?.job.status}`;
          reportInterrupted(sig, `${what}; run sds quickstart again to finish`);
        }
      }),
    );
}
