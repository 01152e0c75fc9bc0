import type { Command } from 'commander';
import {
  cancelJob,
  jobStatus,
  listJobs,
  startBreakout,
  waitForJob,
  type JobStatusReply,
  breakoutTables,
  dropBreakoutTables,
  jobExitCode,
  runJob,
} from '../../core/breakout/index.js';
import { jobLogName, storeFinishedLog } from '../../core/logs/index.js';
import { EXIT, toAppError } from '../../shared/errors.js';
import type { CliContext } from '../context.js';
import { action, examples } from '../action.js';
import { audited } from '../audited.js';
import { abortOnSignals } from '../abort-on-signals.js';
import { interruptOnSignals, reportInterrupted, SIGNAL_EXIT } from '../interrupt.js';
import { progressBar } from '../progress.js';
import { fields } from '../render.js';
import { threadsOption } from '../threads-option.js';
import { interruptionLine, resumeCommand } from '../interruption-line.js';

/** How often the job process reads its cancel flag while it runs (besides between pages). */
const CANCEL_POLL_MS = 250;

/** Prints a job status for humans or as the spec's JSON. */
export function printJob(ctx: CliContext, s: JobStatusReply): void {
  ctx.print(s, () => {
    switch (s.status) {
      case 'completed':
        return fields([
          ['job', s.job_id],
          ['status', 'completed'],
          ['cases', s.result.total_cases],
          ['dictionaries', s.result.dictionaries_processed.join(', ')],
          ['tables created', s.result.tables_created.join(', ')],
          ['warnings', s.result.warnings],
          ['execution time', s.result.execution_time],
        ]);
      case 'failed':
        return fields([
          ['job', s.job_id],
          ['status', 'failed'],
          ['error', `${s.error.code}: ${s.error.message}`],
          ['failed at', s.failed_at],
        ]);
      case 'running':
        return fields([
          ['job', s.job_id],
          ['status', 'running'],
          ['progress', `${s.progress.dictionary} ${s.progress.processed}/${s.progress.total} (${s.progress.percentage}%)`],
          ['elapsed', s.progress.elapsed_time],
          ['remaining', s.progress.estimated_remaining],
        ]);
      case 'cancelled':
        return fields([
          ['job', s.job_id],
          ['status', 'cancelled'],
          ['cases', s.result.total_cases],
          ['dictionaries', s.result.dictionaries_processed.join(', ')],
          ['cancelled at', s.cancelled_at],
        ]);
      case 'pending':
        return fields([
          ['job', s.job_id],
          ['status', 'pending'],
          ['dictionaries', s.dictionaries.join(', ')],
          ['threads', s.threads],
          ['created at', s.created_at],
        ]);
    }
  });
}

/** The bar of a followed job: the job's own estimate, since it runs in another process. */
const JOB_BAR = '{dictionary} [{bar}] {percentage}% | {value}/{total} cases | ETA {remaining}';

/**
 * What became of a job, for the line an interrupted command writes on stderr; a cancelled job of
 * `dictionaries` names the command that resumes each one it did not finish.
 */
export function jobOutcome(s: JobStatusReply, dictionaries: string[] = []): string {
  switch (s.status) {
    case 'cancelled': {
      const left = dictionaries.filter((d) => !s.result.dictionaries_processed.includes(d));
      const resume = left.length ? `, resume with: ${left.map(resumeCommand).join(' && ')}` : '';
      return `job ${s.job_id} stopped at a safe point: cancelled after ${s.result.total_cases} cases${resume}`;
    }
    case 'completed':
      return `job ${s.job_id} had already completed (${s.result.total_cases} cases)`;
    case 'failed':
      return `job ${s.job_id} ended failed: ${s.error.code}`;
    default:
      return `job ${s.job_id} is still ${s.status}`;
  }
}

/**
 * Follows a job to its end with a progress bar on a terminal, then prints it and sets the exit
 * code. `stop` (the command started the job): Ctrl-C or SIGTERM cancels the job, waits for it to
 * stop at a safe point and exits 130/143 saying so; otherwise (`status --watch`) the signal only
 * stops the following, the job goes on (docs/cli.md, "Ctrl-C and SIGTERM").
 */
async function followJob(
  ctx: CliContext,
  jobId: string,
  opts: { stop: boolean; note?: string; dictionaries?: string[] } = { stop: false },
): Promise<void> {
  const follow = `follow it: sds breakout status ${jobId} --watch`;
  const interrupt = interruptOnSignals({
    onFirst: (sig) => {
      if (!opts.stop) {
        process.stderr.write(
          `sds: interrupted by ${sig}: stopped following job ${jobId}; the job goes on (${follow}; stop it: sds breakout cancel ${jobId})\n`,
        );
        process.exit(SIGNAL_EXIT[sig]);
      }
      process.stderr.write(`sds: ${sig}: stopping job ${jobId} after the page it is writing (again to exit at once)\n`);
      void (async () => {
        try {
          await cancelJob(await ctx.store(), jobId);
        } catch (err) {
          // CONFLICT: the job ended meanwhile, and the wait below reads how. Anything else is said.
          const e = toAppError(err);
          if (e.code !== 'CONFLICT')
            process.stderr.write(
              `sds: could not ask job ${jobId} to stop: ${e.code}: ${e.message}; stop it: sds breakout cancel ${jobId}\n`,
            );
        }
      })();
    },
    again: () => `job ${jobId} may still be stopping; ${follow}`,
  });
  // Said once the signals are handled, so what it promises holds from the moment it is read.
  ctx.note(opts.note ?? `following job ${jobId}; Ctrl-C stops following, the job goes on`);
  const bar = progressBar(ctx, JOB_BAR, 0, { dictionary: 'waiting', remaining: '--' });
  let final: JobStatusReply;
  try {
    final = await waitForJob(await ctx.store(), jobId, (s) => {
      if (s.status === 'running') {
        bar.update(s.progress.processed, s.progress.total, {
          dictionary: s.progress.dictionary,
          remaining: s.progress.estimated_remaining,
        });
      }
    });
  } finally {
    bar.stop();
    interrupt.dispose();
  }
  printJob(ctx, final);
  process.exitCode = jobExitCode(final);
  const sig = interrupt.received();
  if (sig) reportInterrupted(sig, jobOutcome(final, opts.dictionaries));
}

/** `sds breakout start|status|jobs|tables|drop|cancel` (+ the hidden `run-job`). */
export function registerBreakoutCommands(program: Command): void {
  const breakout = program
    .command('breakout')
    .description('break cases out into the tables of a target database, as background jobs')
    .addHelpText(
      'after',
      examples('sds breakout start CEN2000 --wait', 'sds breakout status <job> --watch', 'sds breakout tables CEN2000 --json'),
    );

  breakout
    .command('start <dicts...>')
    .description('full breakout of dictionaries in the background; prints the job id (refused when tables exist, unless --overwrite)')
    .option('--threads <n>', 'parallel connections to the target (1-10)', threadsOption, 1)
    .option('--overwrite', 'drop and rebuild existing breakout tables')
    .option(
      '--wait',
      'follow the job to its end (exit 0 completed, 1 failed, 5 target failed); Ctrl-C or SIGTERM cancels the job at a safe point, says so and exits 130/143',
    )
    .addHelpText(
      'after',
      examples(
        'sds breakout start CEN2000 --wait',
        'sds breakout start CEN2000 HOUSEHOLD_DICT --threads 4 --overwrite',
        'sds breakout start CEN2000 --json | jq -r .job_id',
      ),
    )
    .action(
      action(async (ctx, dicts: string[], o: { threads: number | string; overwrite?: boolean; wait?: boolean }) => {
        const r = await startBreakout(await ctx.store(), {
          dictionaries: dicts,
          threads: o.threads,
          overwrite: o.overwrite === true,
          origin: 'cli',
        });
        if (o.wait) {
          await followJob(ctx, r.job_id, {
            stop: true,
            note: `${r.message}; job ${r.job_id}; Ctrl-C cancels it`,
            dictionaries: r.dictionaries,
          });
          return;
        }
        ctx.print(r, () => `${r.job_id}\n${r.message}; estimated ${r.estimated_time}. Follow it: sds breakout status ${r.job_id} --watch`);
      }),
    );

  breakout
    .command('status <job>')
    .description('status of a job (with --json, the job shape of the HTTP API)')
    .option('--watch', 'follow the job to its end; Ctrl-C stops following, the job goes on')
    .addHelpText('after', examples('sds breakout status 6f1c…', 'sds breakout status 6f1c… --watch', 'sds breakout status 6f1c… --json'))
    .action(
      action(async (ctx, job: string, o: { watch?: boolean }) => {
        if (o.watch) return followJob(ctx, job);
        printJob(ctx, await jobStatus(await ctx.store(), job));
      }),
    );

  breakout
    .command('jobs')
    .description('list jobs, newest first')
    .option('--status <status>', 'pending, running, completed, failed or cancelled')
    .option('--limit <n>', 'at most this many (1-1000)', '50')
    .addHelpText('after', examples('sds breakout jobs', 'sds breakout jobs --status failed --limit 10 --json'))
    .action(
      action(async (ctx, o: { status?: string; limit: string }) => {
        const r = await listJobs(await ctx.store(), { status: o.status, limit: o.limit });
        ctx.print(r, () =>
          ctx.table(
            ['job_id', 'status', 'dictionaries', 'cases', 'execution_time', 'started_at'],
            r.data.map((j) => [j.job_id, j.status, j.dictionaries.join(','), j.cases_processed, j.execution_time, j.started_at]),
          ),
        );
      }),
    );

  breakout
    .command('tables <dict>')
    .description(
      'breakout tables of a dictionary the target holds now, with row counts and sizes; stale: no longer in the plan; interrupted: the last load stopped half way',
    )
    .addHelpText('after', examples('sds breakout tables CEN2000', 'sds breakout tables CEN2000 --json'))
    .action(
      action(async (ctx, dict: string) => {
        const r = await breakoutTables(await ctx.store(), dict);
        const stale = r.tables.filter((t) => t.stale).length;
        ctx.print(r, () =>
          [
            ctx.table(
              ['table', 'type', 'rows', 'size', 'state'],
              r.tables.map((t) => [t.name, t.type, t.row_count, t.size, t.stale ? 'stale' : r.interrupted ? 'interrupted' : 'current']),
            ),
            `total ${r.total_size} in ${r.database}`,
            ...(stale ? [`${stale} stale table(s): no longer in the plan of ${r.dictionary}; the next breakout drops them`] : []),
            ...(r.interrupted ? [interruptionLine(r.dictionary, r.interrupted)] : []),
          ].join('\n'),
        );
      }),
    );

  breakout
    .command('drop <dict>')
    .description('drop the breakout tables of a dictionary')
    .addHelpText('after', examples('sds breakout drop CEN2000'))
    .action(
      audited(
        'breakout.drop',
        (dict: string) => `dictionary:${dict}`,
        async (ctx, dict: string) => {
          const r = await dropBreakoutTables(await ctx.store(), dict);
          ctx.print(r, () => `${r.message} (${r.freed_space} freed)`);
        },
      ),
    );

  breakout
    .command('cancel <job>')
    .description('stop a job cleanly after the page it is writing (a job that has ended: conflict, exit 4)')
    .addHelpText('after', examples('sds breakout cancel 6f1c…', 'sds breakout cancel 6f1c… && sds breakout status 6f1c… --watch'))
    .action(
      action(async (ctx, job: string) => {
        const s = await cancelJob(await ctx.store(), job);
        if (s.status === 'running')
          ctx.note(
            `Cancel requested: job ${s.job_id} stops after the page it is writing. Follow it: sds breakout status ${s.job_id} --watch`,
          );
        printJob(ctx, s);
      }),
    );

  breakout
    .command('run-job <job>', { hidden: true })
    .description('run a pending job in this process (used by the background job process)')
    .action(
      action(async (ctx, job: string) => {
        // `breakout cancel` (or an interrupted --wait) sets the job's cancel flag: read between pages,
        // and polled here too so a connect to a target that never answers is abandoned as well.
        const stop = new AbortController();
        abortOnSignals().addEventListener('abort', () => stop.abort(), { once: true });
        const store = await ctx.store();
        const poll = setInterval(() => {
          void (async () => {
            if (await store.jobs.isCancelRequested(job)) stop.abort();
          })();
        }, CANCEL_POLL_MS);
        let final;
        try {
          final = await runJob(store, job, {
            signal: stop.signal,
            log: (l) => process.stderr.write(`${new Date().toISOString()} ${l}\n`),
          });
        } finally {
          clearInterval(poll);
        }
        // Whatever the end, once the job has ended (not while another process still runs it): a
        // log that could not be stored stays here, with the reason in it.
        if (final.status !== 'pending' && final.status !== 'running') {
          const failed = await storeFinishedLog(store, jobLogName(job));
          if (failed) process.stderr.write(`${new Date().toISOString()} ${failed}\n`);
        }
        process.exitCode = final.status === 'completed' ? EXIT.ok : EXIT.failed;
        // Stopped: the job is recorded, so do not wait out a connect still pending in the driver.
        if (stop.signal.aborted) setImmediate(() => process.exit());
      }),
    );
}
