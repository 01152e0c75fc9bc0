import type { Command } from 'commander';
import { EXIT, formatLocation } from '../../shared/errors.js';
import { importCases, DEFAULT_CASES_LIMIT, getCase, listCases, MAX_CASES_LIMIT, parsePaging, deleteCase } from '../../core/cases/index.js';
import { describeImportDetails } from '../render-import.js';
import { syncHistory } from '../../core/sync/index.js';
import { action, examples } from '../action.js';
import { audited } from '../audited.js';
import { interruptOnSignals, reportInterrupted } from '../interrupt.js';
import { progressBar } from '../progress.js';
import { fields } from '../render.js';

/** The import bar: the share of the files' bytes read (per mille), with the cases written. */
const IMPORT_BAR = 'importing [{bar}] {percentage}% | {cases} cases | ETA {eta_formatted}';

/** `sds cases import|list|show`. */
export function registerCasesCommands(program: Command): void {
  const cases = program
    .command('cases')
    .description('cases of a dictionary')
    .addHelpText(
      'after',
      examples('sds cases import CEN2000 census.dat', 'sds cases list CEN2000 --limit 10 --json', 'sds cases show CEN2000 <guid> --json'),
    );

  cases
    .command('import <dict> <files...>')
    .description('import .dat/.txt (fixed-width), .csdb or .json (sync case array) files; unchanged cases are left alone')
    .addHelpText(
      'after',
      examples(
        'sds cases import CEN2000 "Popstan Census.dat"',
        'sds cases import HOUSEHOLD_DICT Household.csdb',
        'sds cases import CEN2000 upload.json --json',
        'sds cases import CEN2000 census.dat --verbose   # warnings: case, line, item',
      ) +
        '\nEvery import writes logs/import/<dict>_<YYYY-MM-DD_HH-MM-SS>.log (UTC) under the\n' +
        'home, with every warning and unreadable case; its path is printed. --json lists\n' +
        'the first 1000 of each per file. A .csdb written with another dictionary is\n' +
        'refused (DICTIONARY_MISMATCH) and nothing is imported; so is a .dat/.txt whose\n' +
        'first 20 cases (limits.import_mismatch_cases) all have record types the\n' +
        'dictionary does not know. With -q an unreadable case prints no line of its own:\n' +
        'one IMPORT_PARTIAL line per file says how many, and the log lists them. Ctrl-C\n' +
        'stops after the batch being written (what is committed stays) and exits 130.\n',
    )
    .action(
      action(async (ctx, dict: string, files: string[]) => {
        const bar = progressBar(ctx, IMPORT_BAR, 1000, { cases: 0 });
        const store = await ctx.store();
        // Batches commit without stopping to checkpoint the WAL (store/wal-checkpointer.ts).
        store.checkpointInBackground();
        // Ctrl-C / SIGTERM: stop after the batch being written, keep what is committed (docs/cli.md, "Ctrl-C and SIGTERM").
        const interrupt = interruptOnSignals({
          onFirst: (sig) =>
            process.stderr.write(`sds: ${sig}: stopping the import after the batch it is writing (again to exit at once)\n`),
          again: () => 'the batches committed stay; run the same import again to finish it (unchanged cases are left alone)',
        });
        let report;
        try {
          // Acknowledged at exit, so the batches skip their own fsync and all is synced once at the end (docs/durability.md).
          report = await store.deferSync(() =>
            importCases(store, dict, files, {
              onProgress: (cases, share) => bar.update(Math.round(share * 1000), undefined, { cases }),
              signal: interrupt.signal,
            }),
          );
        } finally {
          bar.stop();
          interrupt.dispose();
        }
        ctx.print(report, () => {
          const t = report.total;
          return `${ctx.table(
            ['file', 'read', 'inserted', 'updated', 'unchanged', 'older', 'failed', 'warnings'],
            [
              ...report.files.map((f) => [f.file, f.read, f.inserted, f.updated, f.unchanged, f.older, f.failed, f.warnings]),
              ...(report.files.length > 1 ? [['total', t.read, t.inserted, t.updated, t.unchanged, t.older, t.failed, t.warnings]] : []),
            ],
          )}\nlog: ${report.log}`;
        });
        for (const f of report.files) {
          // --quiet: no line per case, one error line per file that had unreadable cases.
          if (ctx.quiet && !ctx.json && f.failed > 0) {
            process.stderr.write(
              `sds: IMPORT_PARTIAL: ${f.failed} of ${f.failed + f.read} cases of ${f.file} could not be read; the others were stored; ${report.log} lists them\n`,
            );
            continue;
          }
          for (const e of f.errors) {
            if (!ctx.json) process.stderr.write(`sds: ${e.code}: ${e.message} [${formatLocation(e.details)}]\n`);
          }
          if (f.errorsNotListed > 0) ctx.note(`sds: ${f.errorsNotListed} more unreadable cases in ${report.log}`);
        }
        for (const line of describeImportDetails(report, { verbose: ctx.verbose })) ctx.note(line);
        if (report.total.failed > 0) process.exitCode = EXIT.invalid;
        const sig = interrupt.received();
        if (sig) {
          const t = report.total;
          reportInterrupted(
            sig,
            `import stopped after ${t.read + t.failed} cases: ${t.inserted} inserted and ${t.updated} updated are stored; run the same import again to finish it (unchanged cases are left alone)`,
          );
        }
      }),
    );

  cases
    .command('list <dict>')
    .description('one page of cases: guid, label, modified date, verified, deleted')
    .option('--limit <n>', `cases per page (1-${MAX_CASES_LIMIT}, default ${DEFAULT_CASES_LIMIT})`)
    .option('--offset <n>', 'cases to skip (default 0)')
    .addHelpText('after', examples('sds cases list CEN2000', 'sds cases list CEN2000 --limit 10 --offset 20 --json'))
    .action(
      action(async (ctx, dict: string, opts: { limit?: string; offset?: string }) => {
        const page = await listCases(await ctx.store(), dict, parsePaging(opts.limit, opts.offset));
        ctx.print(page, () =>
          [
            ctx.table(
              ['guid', 'case_label', 'modified_date', 'verified', 'deleted'],
              page.data.map((c) => [c.guid, c.case_label, c.modified_date, c.verified, c.deleted]),
            ),
            `${page.data.length} of ${page.total} cases (offset ${page.offset})`,
          ].join('\n'),
        );
      }),
    );

  cases
    .command('show <dict> <guid>')
    .description('one case; with --json in the data-collection client sync JSON shape')
    .addHelpText(
      'after',
      examples(
        'sds cases show CEN2000 1f0e4a8c-2f0b-5c4e-9a51-0d5e1c2b3a49',
        'sds cases show CEN2000 <guid> --json | jq ".[\\"level-1\\"]"',
      ),
    )
    .action(
      action(async (ctx, dict: string, guid: string) => {
        const c = await getCase(await ctx.store(), dict, guid);
        ctx.print(c, () =>
          [
            fields([
              ['guid', c.id],
              ['case key', c.caseids],
              ['label', c.label],
              ['verified', c.verified],
              ['deleted', c.deleted],
              ['clock', c.clock.map((e) => `${e.deviceId}:${e.revision}`).join(' ')],
              ['partial save', c.partialSave ? `${c.partialSave.mode} ${c.partialSave.field?.name ?? ''}` : ''],
              ['notes', c.notes?.length ?? 0],
            ]),
            JSON.stringify(c['level-1'], null, 2),
          ].join('\n'),
        );
      }),
    );

  cases
    .command('delete <dict> <guid>')
    .description('soft-delete a case: kept in the store flagged deleted; the next incremental breakout removes it from the target')
    .addHelpText('after', examples('sds cases delete CEN2000 1f0e4a8c-2f0b-5c4e-9a51-0d5e1c2b3a49'))
    .action(
      audited(
        'cases.delete',
        (dict: string, guid: string) => `case:${dict}/${guid}`,
        async (ctx, dict: string, guid: string) => {
          const r = await deleteCase(await ctx.store(), dict, guid);
          ctx.print(r, () => r.message);
        },
      ),
    );

  cases
    .command('sync-history <dict>')
    .description(
      'the sync history of a dictionary, newest first: device, direction (put = upload, get = completed download), revision, time',
    )
    .option('--limit <n>', 'rows to show (1-10000, default 100)')
    .addHelpText('after', examples('sds cases sync-history CEN2000', 'sds cases sync-history CEN2000 --limit 10 --json'))
    .action(
      action(async (ctx, dict: string, opts: { limit?: string }) => {
        const { limit } = parsePaging(opts.limit, 0, 10000);
        const r = await syncHistory(await ctx.store(), dict, opts.limit === undefined ? 100 : limit);
        ctx.print(r, () =>
          r.history.length === 0
            ? `no sync of ${r.dictionary} yet`
            : ctx.table(
                ['time', 'device', 'user', 'direction', 'revision', 'cases', 'universe'],
                r.history.map((h) => [h.createdAt, h.device, h.username, h.direction, h.revision, h.cases, h.universe]),
              ),
        );
      }),
    );
}
