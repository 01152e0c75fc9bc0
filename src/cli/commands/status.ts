import type { Command } from 'commander';
import { breakoutStatus, statusConnectTimeout } from '../../core/breakout/index.js';
import { toAppError } from '../../shared/errors.js';
import { action, examples } from '../action.js';
import { withCliHint } from '../error-hints.js';
import { interruptionLine } from '../interruption-line.js';

interface StatusOptions {
  dictionary?: string;
  dictionaries?: string;
  cronEnabled?: string | boolean;
  breakoutConfigured?: string | boolean;
  page?: string;
  limit?: string;
  connectTimeout?: string;
}

const show = (v: unknown): string => (v === null || v === undefined ? '-' : String(v));

/**
 * `sds status`: the breakout status of dictionaries, the items of the status webhook
 * (docs/status-and-incoming-webhooks.md#status-webhook-get-breakout-status-webhookphp).
 */
export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('breakout status per dictionary: target, schedule, cases and what the target holds (the status webhook)')
    .option('--dictionary <name>', 'only this dictionary (exact, case-sensitive name)')
    .option('--dictionaries <names>', 'only these dictionaries, comma-separated (at most 100)')
    .option('--cron-enabled [bool]', 'only dictionaries whose schedule is enabled (or, with false, not enabled)')
    .option('--breakout-configured [bool]', 'only dictionaries with a breakout target (or, with false, without)')
    .option('--page <n>', 'page number', '1')
    .option('--limit <n>', 'dictionaries per page (1-100)', '20')
    .option('--connect-timeout <ms>', 'connect timeout of each target (default $SDS_STATUS_CONNECT_TIMEOUT_MS, else 3000)')
    .addHelpText(
      'after',
      examples(
        'sds status',
        'sds status --dictionary CEN2000',
        'sds status --dictionaries CEN2000,SURVEY_DICT --json',
        'sds status --cron-enabled --breakout-configured --limit 50',
        'sds status --connect-timeout 1000',
      ) +
        '\nThe target fields (processed, pending, rate, up to date, last processed) are\n' +
        'read from each target now and are empty when breakout is not configured or the\n' +
        'target does not answer within the connect timeout. A breakout that stopped half\n' +
        'way shows "interrupted", with a line under the table naming the command that\n' +
        'resumes it.\n' +
        'With --json the output is the envelope of GET /breakout-status-webhook.php\n' +
        '({success, data, error, meta}).\n',
    )
    .action(
      action(async (ctx, o: StatusOptions) => {
        try {
          const connectTimeoutMs = statusConnectTimeout(o.connectTimeout);
          const r = await breakoutStatus(
            await ctx.store(),
            {
              dictionary: o.dictionary,
              dictionaries: o.dictionaries,
              cron_enabled: o.cronEnabled,
              breakout_configured: o.breakoutConfigured,
              page: o.page,
              limit: o.limit,
            },
            { connectTimeoutMs },
          );
          ctx.print(r, () =>
            [
              ctx.table(
                [
                  'dictionary',
                  'target',
                  'cron',
                  'last run',
                  'exit',
                  'cases',
                  'processed',
                  'pending',
                  'rate',
                  'up to date',
                  'last processed',
                ],
                r.data.map((d) => [
                  d.dictionary,
                  d.breakout_configured
                    ? `${d.db_type} ${d.target_host ?? ''}${d.target_host ? '/' : ''}${d.target_schema ?? ''}`
                    : 'not configured',
                  d.cron_enabled ? d.cron_expression : 'off',
                  show(d.last_run),
                  show(d.last_exit_code),
                  d.total_cases,
                  show(d.processed_cases),
                  show(d.cases_pending),
                  d.completion_rate === null ? '-' : `${d.completion_rate}%`,
                  show(d.is_up_to_date),
                  // An interrupted load is the last processing, whatever an earlier completed job says.
                  d.breakout_interrupted ? 'interrupted' : show(d.last_processed_time),
                ]),
              ),
              `page ${r.meta.page} of ${r.meta.pages}, ${r.meta.total} dictionaries (times in UTC)`,
              ...r.data.flatMap((d) => (d.breakout_interrupted ? [interruptionLine(d.dictionary, d.breakout_interrupted)] : [])),
            ].join('\n'),
          );
        } catch (err) {
          if (!ctx.json) throw err;
          const e = withCliHint(toAppError(err));
          // --json keeps the webhook's failure envelope, so scripts read one shape.
          process.stdout.write(JSON.stringify({ success: false, data: null, error: { code: e.code, message: e.message } }, null, 2) + '\n');
          process.exitCode = e.exit;
        }
      }),
    );
}
