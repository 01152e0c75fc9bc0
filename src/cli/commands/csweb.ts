import type { Command } from 'commander';
import { AppError, EXIT } from '../../shared/errors.js';
import { importFromCsweb, openCsweb, verifyCsweb, warningsToShow, type CswebImportReport } from '../../core/csweb/index.js';
import { action, examples } from '../action.js';
import { interruptOnSignals, reportInterrupted } from '../interrupt.js';
import { progressBar } from '../progress.js';

const IMPORT_BAR = 'importing [{bar}] {percentage}% | {value}/{total} cases | ETA {eta_formatted}';

interface ImportFlags {
  from: string;
  passwordEnv?: string;
  dictionary?: string[];
  timezone?: string;
  cswebConfig?: string;
  dryRun?: boolean;
  emitEvents?: boolean;
  /** commander's `--no-users`: false when given. */
  users: boolean;
  files?: string;
  allWarnings?: boolean;
}

/** The password of the CSWeb database, from the variable named by --password-env (never a flag: it would show in `ps`). */
function passwordOf(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  const value = process.env[name];
  if (value === undefined)
    throw new AppError('USAGE', `--password-env ${name}: the environment variable ${name} is not set`, { field: 'password-env' });
  return value;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** `sds csweb import` (docs/migrating-from-csweb.md). */
export function registerCswebCommands(program: Command): void {
  const csweb = program
    .command('csweb')
    .description('move from CSWeb: import a CSWeb 8.0 or 8.1 database')
    .addHelpText(
      'after',
      examples(
        'SDS_CSWEB_PW=... sds csweb import --from mysql://csweb@db:3306/csweb \\\n    --password-env SDS_CSWEB_PW --timezone Africa/Nairobi',
      ),
    );

  csweb
    .command('import')
    .description('bring dictionaries and cases of a CSWeb database; again: only changes')
    .requiredOption('--from <url>', 'the CSWeb database: mysql://USER@HOST:PORT/DATABASE')
    .option('--password-env <var>', 'environment variable holding its password')
    .option('--dictionary <name>', 'only this dictionary (repeat for more)', collect)
    .option('--timezone <zone>', "CSWeb's DEFAULT_TIMEZONE, e.g. Africa/Nairobi (note times)")
    .option('--csweb-config <path>', "CSWeb's config.php, read for DEFAULT_TIMEZONE")
    .option('--dry-run', 'read and decode everything, write nothing')
    .option('--emit-events', 'queue webhook events for the imported changes')
    .option('--files <dir>', "CSWeb's files folder: synced files, apps, binary items")
    .option('--no-users', "leave CSWeb's accounts out")
    .option('--all-warnings', 'print warnings shown on earlier runs too')
    .addHelpText(
      'after',
      examples(
        'export CSWEB_PW=secret',
        'sds csweb import --from mysql://csweb@10.0.0.5:3306/csweb \\\n    --password-env CSWEB_PW --timezone Africa/Nairobi',
        'sds csweb import --from mysql://csweb@db/csweb --password-env CSWEB_PW \\\n    --csweb-config /var/www/csweb/src/AppBundle/config.php --dry-run',
        'sds csweb import --from mysql://csweb@db/csweb --password-env CSWEB_PW \\\n    --timezone UTC --dictionary SIMPLECAPI_DICT --json',
        'sds csweb import --from mysql://csweb@db/csweb --password-env CSWEB_PW \\\n    --timezone UTC --files /var/www/csweb/files',
        'sds csweb import --from mysql://csweb@db/csweb --password-env CSWEB_PW \\\n    --timezone UTC --files /var/www/csweb/files --all-warnings',
      ) +
        "\nAccounts come over with their passwords (CSWeb's bcrypt hashes log in and are\n" +
        "re-hashed at the first login); --files also brings CSWeb's synced files,\n" +
        'application packages and the content of binary case items (without it,\n' +
        'each binary item is listed as CSWEB_BINARY_CONTENT_MISSING).\n' +
        "\nCases keep their CSWeb revision and sds takes CSWeb's server device id, so\n" +
        'tablets keep syncing incrementally. Run it again (cron, every 5 minutes) to\n' +
        'bring only what changed. Each page commits with its resume point: Ctrl-C\n' +
        'stops after the page being written and exits 130; run it again to finish.\n' +
        'A case that cannot be decoded is listed (dictionary, guid, why), the others\n' +
        'are stored, and the exit code is 2 (CSWEB_IMPORT_PARTIAL).\n' +
        '\nEach warning prints once: later runs count those already shown in one line\n' +
        '(--all-warnings prints them again; --json always lists them all). Errors\n' +
        'print on every run.\n',
    )
    .action(
      action(async (ctx, flags: ImportFlags) => {
        const password = passwordOf(flags.passwordEnv);
        const conn = await openCsweb(flags.from, password);
        const bar = progressBar(ctx, IMPORT_BAR, 1);
        const store = await ctx.store();
        store.checkpointInBackground();
        // Ctrl-C / SIGTERM: stop after the page being written, keep what is committed (docs/cli.md, "Ctrl-C and SIGTERM").
        const interrupt = interruptOnSignals({
          onFirst: (sig) => process.stderr.write(`sds: ${sig}: stopping the import after the page it is writing (again to exit at once)\n`),
          again: () => 'the pages committed stay; run the same import again to finish it',
        });
        let report: CswebImportReport;
        try {
          report = await store.deferSync(() =>
            importFromCsweb(store, conn, {
              ...(flags.dictionary ? { dictionaries: flags.dictionary } : {}),
              ...(flags.timezone !== undefined ? { timeZone: flags.timezone } : {}),
              ...(flags.cswebConfig !== undefined ? { cswebConfig: flags.cswebConfig } : {}),
              dryRun: flags.dryRun === true,
              emitEvents: flags.emitEvents === true,
              users: flags.users,
              ...(flags.files !== undefined ? { filesDir: flags.files } : {}),
              signal: interrupt.signal,
              onProgress: (done, total) => bar.update(done, Math.max(total, 1)),
            }),
          );
        } finally {
          bar.stop();
          interrupt.dispose();
          await conn.end().catch(() => undefined);
        }
        ctx.print(report, () => {
          const t = report.total;
          const rows = report.dictionaries.map((d) => [
            d.name,
            d.label,
            d.dictionary,
            d.read,
            d.written,
            d.unchanged,
            d.failed,
            d.cursor.revision,
          ]);
          return (
            `${report.dryRun ? 'dry run (nothing written): ' : ''}CSWeb ${report.source.database}, server ${report.source.serverDeviceId}, ` +
            `highest revision ${report.source.highestRevision}\n` +
            ctx.table(
              ['dictionary', 'label', 'dictionary_was', 'read', 'written', 'unchanged', 'failed', 'revision'],
              [...rows, ...(rows.length > 1 ? [['total', '', '', t.read, t.written, t.unchanged, t.failed, '']] : [])],
            ) +
            (report.users
              ? `\naccounts: ${report.users.added} added, ${report.users.updated} updated, ${report.users.unchanged} unchanged, ${report.users.skipped} skipped`
              : '') +
            (report.messages ? `\nmessages: ${report.messages.imported} imported` : '') +
            (report.files
              ? `\nfiles: ${report.files.files.copied} copied, ${report.files.files.unchanged} unchanged, ${report.files.files.refused} refused; ` +
                `apps: ${report.files.apps.copied} copied, ${report.files.apps.unchanged} unchanged, ${report.files.apps.refused} refused`
              : '')
          );
        });
        if (!ctx.json) {
          // Warnings seen on an earlier run are counted, not repeated: a scheduled run would print them every time.
          const shown = await warningsToShow(store, report, {
            all: flags.allWarnings === true,
            record: !report.dryRun && !ctx.quiet,
          });
          for (const e of shown.entries) {
            const where = [e.dictionary, e.guid, e.user, e.file].filter(Boolean).join(' ');
            const line = `sds: ${e.level === 'error' ? '' : 'warning: '}${e.code}: ${e.message}${where ? ` [${where}]` : ''}`;
            if (e.level === 'error') process.stderr.write(`${line}\n`);
            else ctx.note(line);
          }
          if (shown.alreadyReported > 0) ctx.note(`sds: ${shown.alreadyReported} warnings already reported on earlier runs (see --json)`);
          if (report.entriesNotListed > 0)
            ctx.note(`sds: ${report.entriesNotListed} more report lines not shown (--json lists the first 1000)`);
          for (const d of report.dictionaries) if (d.breakoutRebuild) ctx.note(`sds: ${d.name}: ${d.breakoutRebuild}`);
        }
        const errors = report.errors > 0 || report.total.failed > 0;
        if (errors) {
          if (!ctx.json)
            process.stderr.write('sds: CSWEB_IMPORT_PARTIAL: some cases or dictionaries were not carried over; the others were stored\n');
          process.exitCode = EXIT.invalid;
        }
        const sig = interrupt.received();
        if (sig)
          reportInterrupted(
            sig,
            `import stopped after ${report.total.read} cases; the pages committed stay; run the same import again to finish it`,
          );
      }),
    );

  csweb
    .command('verify')
    .description('compare a CSWeb database with sds per dictionary; exit 1 on a difference')
    .requiredOption('--from <url>', 'the CSWeb database: mysql://USER@HOST:PORT/DATABASE')
    .option('--password-env <var>', 'environment variable holding its password')
    .option('--dictionary <name>', 'only this dictionary (repeat for more)', collect)
    .option('--timezone <zone>', "CSWeb's DEFAULT_TIMEZONE, e.g. Africa/Nairobi (note times)")
    .option('--csweb-config <path>', "CSWeb's config.php, read for DEFAULT_TIMEZONE")
    .addHelpText(
      'after',
      examples(
        'sds csweb verify --from mysql://csweb@db/csweb --password-env CSWEB_PW \\\n    --timezone Africa/Nairobi',
        'sds csweb verify --from mysql://csweb@db/csweb --password-env CSWEB_PW \\\n    --timezone UTC --dictionary SIMPLECAPI_DICT --json',
      ) +
        '\nCompares, per dictionary, the number of cases, deleted, verified, notes and\n' +
        'binary items (and their signatures per case), and a checksum of every case\n' +
        'decoded as the import decodes it. Run it after\n' +
        'the final import of a cut-over, with CSWeb stopped: exit 0 when both sides\n' +
        'agree, exit 1 (CSWEB_VERIFY_DIFFERS) with one line per difference otherwise.\n',
    )
    .action(
      action(async (ctx, flags: Omit<ImportFlags, 'dryRun' | 'emitEvents'>) => {
        const conn = await openCsweb(flags.from, passwordOf(flags.passwordEnv));
        let report;
        try {
          report = await verifyCsweb(await ctx.store(), conn, {
            ...(flags.dictionary ? { dictionaries: flags.dictionary } : {}),
            ...(flags.timezone !== undefined ? { timeZone: flags.timezone } : {}),
            ...(flags.cswebConfig !== undefined ? { cswebConfig: flags.cswebConfig } : {}),
          });
        } finally {
          await conn.end().catch(() => undefined);
        }
        ctx.print(report, () =>
          ctx.table(
            ['dictionary', 'side', 'cases', 'deleted', 'verified', 'notes', 'binary', 'checksum'],
            report.dictionaries.flatMap((d) => [
              [
                d.name,
                'csweb',
                d.csweb.cases,
                d.csweb.deleted,
                d.csweb.verified,
                d.csweb.notes,
                d.csweb.binaryItems,
                d.csweb.checksum.slice(0, 12),
              ],
              d.sds
                ? [d.name, 'sds', d.sds.cases, d.sds.deleted, d.sds.verified, d.sds.notes, d.sds.binaryItems, d.sds.checksum.slice(0, 12)]
                : [d.name, 'sds', '-', '-', '-', '-', '-', '-'],
            ]),
          ),
        );
        if (!report.same) {
          if (!ctx.json) {
            for (const d of report.dictionaries) for (const line of d.differences) process.stderr.write(`sds: ${d.name}: ${line}\n`);
            process.stderr.write('sds: CSWEB_VERIFY_DIFFERS: the CSWeb database and sds differ\n');
          }
          process.exitCode = EXIT.failed;
        }
      }),
    );
}
