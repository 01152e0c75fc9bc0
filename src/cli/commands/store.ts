import type { Command } from 'commander';
import { copyHomeToPostgres, verifyHomeCopy, type CopyHomeResult, type VerifyCopyResult } from '../../core/store-move/index.js';
import { AppError } from '../../shared/errors.js';
import { resolveHome } from '../../shared/home.js';
import { action, examples } from '../action.js';
import type { CliContext } from '../context.js';
import { interruptOnSignals, reportInterrupted } from '../interrupt.js';
import { progressBar, type Progress } from '../progress.js';
import { fields } from '../render.js';

/** Tables with fewer rows draw no bar: they are copied before a human could read it. */
const BAR_FROM_ROWS = 20_000;

/** A bar over the rows of the table being copied, drawn only for large tables on a terminal. */
function rowBar(ctx: CliContext): { update(p: { table: string; done: number; total: number }): void; stop(): void } {
  let bar: Progress | undefined;
  let table = '';
  return {
    update(p) {
      if (p.table !== table) {
        bar?.stop();
        bar = undefined;
        table = p.table;
        if (p.total >= BAR_FROM_ROWS) bar = progressBar(ctx, '{table} |{bar}| {value}/{total} rows | {eta_formatted}', p.total, { table });
      }
      bar?.update(p.done, undefined, { table });
    },
    stop: () => bar?.stop(),
  };
}

/** The per-table comparison as a table. */
function comparison(ctx: CliContext, r: CopyHomeResult | VerifyCopyResult): string {
  return ctx.table(
    ['table', 'SQLite rows', 'PostgreSQL rows', 'checksum', 'same'],
    r.tables.map((t) => [t.table, t.sqlite_rows, t.postgresql_rows, t.postgresql_checksum, t.equal ? 'yes' : 'NO']),
  );
}

/** `sds store copy` and `sds store verify` (docs/production.md, "Moving a home to PostgreSQL"). */
export function registerStoreCommands(program: Command): void {
  const store = program
    .command('store')
    .description('move a SQLite home into a PostgreSQL store, and check the copy')
    .addHelpText(
      'after',
      examples(
        'sds --home /var/lib/sds store copy --to postgresql://sds@db/sds',
        'SDS_STORE_URL=postgresql://sds@db/sds \\\n      sds store verify --against /var/lib/sds',
      ),
    );

  store
    .command('copy')
    .description("copy the home's SQLite store into an empty PostgreSQL store, then compare them")
    .requiredOption('--to <url>', 'the PostgreSQL store: postgresql://user@host:port/database')
    .addHelpText(
      'after',
      examples(
        'systemctl stop sds.service sds-scheduler.timer',
        'SDS_STORE_PASSWORD=… sds --home /var/lib/sds \\\n      store copy --to postgresql://sds@db/sds',
        'sds store copy --to postgresql://sds@127.0.0.1/sds --json',
      ) +
        '\nStop sds serve and the scheduler first: the copy holds the home (HOME_IN_USE\n' +
        'otherwise). The database must be empty, or hold only a store sds init made\n' +
        '(STORE_NOT_EMPTY otherwise); the store must be migrated (sds migrate). Every\n' +
        'table is copied in one transaction, then compared (row counts and checksums).\n' +
        'The files (media, synced files, application packages, binary case items, job\n' +
        'and run logs) are copied in the same transaction, each checked against its\n' +
        'metadata (STORE_COPY_FILE_MISMATCH otherwise). The password comes from\n' +
        'SDS_STORE_PASSWORD or store.password_file. sds.db and files/ are left as they\n' +
        'were: the rollback copy. config.json and the import logs stay in the home.\n' +
        'Then set SDS_STORE_URL (or store.url) as printed.\n',
    )
    .action(
      action(async (ctx, o: { to: string }) => {
        if (!/^postgres(ql)?:\/\//.test(o.to)) {
          throw new AppError('USAGE', `--to must be a postgresql:// URL, not "${o.to}"`, { field: 'to' });
        }
        const bar = rowBar(ctx);
        const interrupt = interruptOnSignals({
          onFirst: (sig) => process.stderr.write(`sds: ${sig}: stopping the copy; nothing of it is kept (again to exit at once)\n`),
          again: () => 'the PostgreSQL server rolls the copy back as the connection closes',
        });
        let r: CopyHomeResult;
        try {
          r = await copyHomeToPostgres(ctx.home, { to: o.to, onProgress: (p) => bar.update(p), signal: interrupt.signal });
        } catch (err) {
          const sig = interrupt.received();
          if (sig === undefined) throw err;
          return reportInterrupted(sig, 'nothing was copied: the PostgreSQL store was rolled back; sds.db is as it was');
        } finally {
          bar.stop();
          interrupt.dispose();
        }
        ctx.print(r, () =>
          [
            comparison(ctx, r),
            fields([
              ['copied', `${r.sqlite_store} -> ${r.store}`],
              ['schema version', r.schema_version],
              ['rows', `${r.rows} in ${r.tables.length} tables, the same in both stores`],
              [
                'files',
                `${r.files.files} (${r.files.bytes} bytes) copied into the PostgreSQL store, each with metadata checked against it`,
              ],
              ...r.files.areas.map((a): [string, string] => [
                `  ${a.area}`,
                `${a.files} files, ${a.bytes} bytes${a.unchecked > 0 ? `; ${a.unchecked} without metadata (put there by hand), copied as they are` : ''}`,
              ]),
              ['home folder', 'keep it: config.json, the import logs and the embedded breakout target stay there'],
              ['rollback', `${r.sqlite_store} and files/ are untouched; unset the setting below to go back to them`],
              ['use', r.setting.environment],
              ['', `or "store": {"url": "${r.setting.config_json.store.url}"} in config.json`],
              ['password', r.setting.password],
              ['then', `with that setting: sds --home ${r.home} store verify --against ${r.home}`],
            ]),
          ].join('\n'),
        );
      }),
    );

  store
    .command('verify')
    .description("compare the home's PostgreSQL store with the SQLite home it was copied from")
    .requiredOption('--against <home>', 'the SQLite home copied by sds store copy')
    .addHelpText(
      'after',
      examples(
        'SDS_STORE_URL=postgresql://sds@db/sds \\\n      sds store verify --against /var/lib/sds',
        'sds --store postgresql://sds@db/sds store verify --against /srv/old --json',
      ) +
        "\nRun with the PostgreSQL store as the home's store. Exit 0 when every table\n" +
        'has the same rows on both and every file (media, apps, binary-items) the same\n' +
        'name and sha256; STORE_COPY_DIFFERS (exit 1) names each table and file that\n' +
        'differs. Meant before the home is used again: any write since the copy is a\n' +
        'difference.\n',
    )
    .action(
      action(async (ctx, o: { against: string }) => {
        const r = await verifyHomeCopy(ctx.home, resolveHome(o.against));
        ctx.print(r, () =>
          [
            comparison(ctx, r),
            fields([
              ['verified', `${r.store} against ${r.against}`],
              ['rows', `${r.rows} in ${r.tables.length} tables, the same in both stores`],
              ['files', r.files.map((a) => `${a.area} ${a.files} (${a.bytes} bytes)`).join(', ') + ', the same names and sha256 in both'],
            ]),
          ].join('\n'),
        );
      }),
    );
}
