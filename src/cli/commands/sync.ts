import type { Command } from 'commander';
import {
  historyCsv,
  listSyncHistory,
  MAX_REPORT_LIMIT,
  reportCsv,
  syncReport,
  type SyncHistoryList,
  type SyncReport,
} from '../../core/reports/index.js';
import { AppError } from '../../shared/errors.js';
import { action, examples } from '../action.js';
import type { CliContext } from '../context.js';
import type { Cell } from '../render.js';
import { messageStream } from '../stdout-data.js';

interface PageFlags {
  limit?: string;
  offset?: string;
  csv?: boolean;
}

/** Writes CSV on standard output, refusing it beside --json (one data format at a time). */
function writeCsv(ctx: CliContext, text: string): void {
  if (ctx.json) throw new AppError('USAGE', 'choose one of --json and --csv', { settings: ['json', 'csv'] });
  messageStream().write(text);
}

function historyTable(ctx: CliContext, r: SyncHistoryList): string {
  if (r.data.length === 0) return r.total > 0 ? `no syncs on this page (${r.total} in all)` : 'no syncs';
  return ctx.table(
    ['id', 'time', 'dictionary', 'device', 'user', 'direction', 'revision', 'cases', 'universe'],
    r.data.map((h) => [h.id, h.created_at, h.dictionary, h.device, h.username, h.direction, h.revision, h.cases, h.universe]),
  );
}

function reportTable(ctx: CliContext, r: SyncReport): string {
  if (r.rows.length === 0) return r.total > 0 ? `no rows on this page (${r.total} in all)` : 'nothing to report';
  const sums = (x: { uploads: number; cases_uploaded: number; downloads: number; cases_downloaded: number }): Cell[] => [
    x.uploads,
    x.cases_uploaded,
    x.downloads,
    x.cases_downloaded,
  ];
  const head = ['uploads', 'cases up', 'downloads', 'cases down'];
  switch (r.by) {
    case 'user':
      return ctx.table(
        ['user', ...head, 'first sync', 'last sync', 'devices', 'last device', 'app'],
        r.rows.map((x) => [x.user, ...sums(x), x.first_sync, x.last_sync, x.devices, x.last_device, x.app_version ?? '']),
      );
    case 'device':
      return ctx.table(
        ['device', ...head, 'first sync', 'last sync', 'users', 'last user', 'app'],
        r.rows.map((x) => [x.device, ...sums(x), x.first_sync, x.last_sync, x.users, x.last_user, x.app_version ?? '']),
      );
    case 'day':
      return ctx.table(
        ['day', ...head, 'devices', 'users'],
        r.rows.map((x) => [x.day, ...sums(x), x.devices, x.users]),
      );
    case 'ids':
      return ctx.table(
        [...r.id_items.flatMap((n) => [n, 'name']), 'cases'],
        r.rows.map((x) => [...r.id_items.flatMap((n) => [x.ids[n] ?? '', x.names[n] ?? '']), x.cases]),
      );
  }
}

/** On standard error, so piped rows stay rows only: how to get the next page. */
function nextPage(ctx: CliContext, total: number, offset: number, shown: number, hint: string): void {
  const more = total - offset - shown;
  if (more > 0 && shown > 0) ctx.note(`${more} more; for the next page add ${hint}`);
}

/** `sds sync history|report`: who synced what, when (docs/supervision.md#sync-history-and-reports). */
export function registerSyncCommands(program: Command): void {
  const sync = program
    .command('sync')
    .description('the sync history of devices and the supervision reports over it and the stored cases')
    .addHelpText('after', examples('sds sync history --user ana --since 2025-03-01', 'sds sync report --by device --not-seen 3'));

  sync
    .command('history')
    .description('syncs newest first, filtered; the reply of GET /api/dictionaries/{name}/syncs')
    .option('--dictionary <name>', 'only syncs of this dictionary')
    .option('--user <name>', 'only syncs by this account')
    .option('--device <id>', 'only syncs of this device')
    .option('--direction <dir>', 'up (uploads), down (completed downloads) or both', 'both')
    .option('--since <time>', 'at or after this ISO 8601 time or date (UTC when no zone)')
    .option('--until <time>', 'before this ISO 8601 time or date')
    .option('--limit <n>', `rows per page (1-${MAX_REPORT_LIMIT})`, '100')
    .option('--offset <n>', 'rows to skip first')
    .option('--cursor <id>', 'only syncs with an id below this one (the next page)')
    .option('--csv', 'write the page as CSV')
    .addHelpText(
      'after',
      examples(
        'sds sync history --dictionary CEN2000',
        'sds sync history --user ana --direction up --since 2025-03-01',
        'sds sync history --device tablet-07 --limit 20 --cursor 4211',
        'sds sync history --since 2025-03-01 --until 2025-03-08 --csv > week.csv',
      ),
    )
    .action(
      action(
        async (
          ctx,
          o: PageFlags & {
            dictionary?: string;
            user?: string;
            device?: string;
            direction: string;
            since?: string;
            until?: string;
            cursor?: string;
          },
        ) => {
          const r = await listSyncHistory(await ctx.store(), o);
          if (o.csv) return writeCsv(ctx, historyCsv(r));
          ctx.print(r, () => historyTable(ctx, r));
          if (r.next_cursor !== null) nextPage(ctx, r.total, r.offset, r.data.length, `--cursor ${r.next_cursor} (without --offset)`);
        },
      ),
    );

  sync
    .command('report')
    .description('what each interviewer or device synced, syncs per day, or live cases per id values (geography)')
    .option('--dictionary <name>', 'only this dictionary (needed by --by ids)')
    .option('--by <what>', 'user, device, day or ids', 'user')
    .option('--ids <items>', 'with --by ids: the id items to group by, comma-separated (e.g. PROVINCE,DISTRICT)')
    .option('--not-seen <days>', 'with --by user or device: only those whose last sync is more than DAYS days old')
    .option('--since <time>', 'count syncs at or after this ISO 8601 time or date')
    .option('--until <time>', 'count syncs before this ISO 8601 time or date')
    .option('--limit <n>', `rows per page (1-${MAX_REPORT_LIMIT})`, '100')
    .option('--offset <n>', 'rows to skip first')
    .option('--csv', 'write the page as CSV')
    .addHelpText(
      'after',
      examples(
        'sds sync report',
        'sds sync report --dictionary CEN2000 --by device --not-seen 3',
        'sds sync report --by day --since 2025-03-01 --csv > per-day.csv',
        'sds sync report --dictionary CEN2000 --by ids --ids PROVINCE,DISTRICT --json',
      ),
    )
    .action(
      action(
        async (ctx, o: PageFlags & { dictionary?: string; by: string; ids?: string; notSeen?: string; since?: string; until?: string }) => {
          const r = await syncReport(await ctx.store(), o, Date.now());
          if (o.csv) return writeCsv(ctx, reportCsv(r));
          ctx.print(r, () => reportTable(ctx, r));
          nextPage(ctx, r.total, r.offset, r.rows.length, `--offset ${r.offset + r.rows.length}`);
        },
      ),
    );
}
