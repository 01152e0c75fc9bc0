import type { Command } from 'commander';
import { AppError } from '../../shared/errors.js';
import { backupHome, restoreHome } from '../../core/backup/index.js';
import { cliAuditSource, markAuditBackedUp } from '../../core/audit/index.js';
import { action, examples } from '../action.js';
import type { CliContext } from '../context.js';
import { interruptOnSignals, reportInterrupted, type Interrupt } from '../interrupt.js';
import { progressBar, type Progress } from '../progress.js';
import { fields } from '../render.js';

/** Copies smaller than this draw no bar: they end before a human could read it. */
const BAR_FROM_BYTES = 64 * 1024 * 1024;

/** A bar over the bytes of one phase, drawn only for large copies on a terminal. */
function byteBar(ctx: CliContext): { update(p: { phase: string; done: number; total: number }): void; stop(): void } {
  let bar: Progress | undefined;
  let phase = '';
  const mb = (n: number) => (n / 1048576).toFixed(0);
  return {
    update(p) {
      if (p.total < BAR_FROM_BYTES) return;
      if (p.phase !== phase) {
        bar?.stop();
        phase = p.phase;
        bar = progressBar(ctx, '{phase} |{bar}| {percentage}% {done}/{all} MB | {eta_formatted}', p.total, {
          phase,
          done: '0',
          all: mb(p.total),
        });
      }
      bar!.update(p.done, undefined, { phase, done: mb(p.done), all: mb(p.total) });
    },
    stop: () => bar?.stop(),
  };
}

/**
 * Ctrl-C / SIGTERM stop a backup or restore between chunks; what it wrote is removed
 * (docs/cli.md, "Ctrl-C and SIGTERM").
 */
function stopCopyOnSignals(what: string, again: string): Interrupt {
  return interruptOnSignals({
    onFirst: (sig) => process.stderr.write(`sds: ${sig}: stopping the ${what} and removing what it wrote (again to exit at once)\n`),
    again: () => again,
  });
}

/** `sds backup` and `sds restore` (docs/backup.md). */
export function registerBackupCommands(program: Command): void {
  program
    .command('backup')
    .description('copy the home (store, media and app files, config.json) into DEST/sds-backup-<time>/')
    .argument('<dest>', 'folder to hold the backups, outside the home (its parent must exist)')
    .option('--keep <n>', 'then keep only the newest N complete backups in DEST')
    .addHelpText(
      'after',
      examples(
        'sds backup /var/backups/sds',
        'sds --home /var/lib/sds backup /var/backups/sds --keep 14',
        'sds backup /mnt/usb/backups/sds --json',
      ) +
        '\nSafe while sds serve and scheduler-run work: the store is copied as one\n' +
        'snapshot (VACUUM INTO). Not copied: logs, locks, targets/ and backups/.\n' +
        'DEST must lie outside the home, and its parent must exist: only DEST itself\n' +
        'is made, so a disk that is not mounted is refused rather than filled in its\n' +
        'place. Restore a backup folder into a new home with sds restore.\n',
    )
    .action(
      action(async (ctx, dest: string, o: { keep?: string }) => {
        if (o.keep !== undefined && !/^[1-9]\d{0,5}$/.test(o.keep)) {
          throw new AppError('USAGE', `--keep must be a whole number from 1 to 999999, not "${o.keep}"`, { field: 'keep' });
        }
        const keep = o.keep === undefined ? undefined : Number(o.keep);
        const bar = byteBar(ctx);
        const interrupt = stopCopyOnSignals('backup', 'the partial backup folder may remain; remove it by hand');
        let r;
        try {
          r = await backupHome(ctx.home, dest, { keep, onProgress: (p) => bar.update(p), signal: interrupt.signal });
        } catch (err) {
          const sig = interrupt.received();
          if (sig === undefined) throw err;
          return reportInterrupted(sig, 'no backup was made; its partial folder was removed');
        } finally {
          bar.stop();
          interrupt.dispose();
        }
        if (r.audit_through_seq !== undefined) await noteBackupInAudit(ctx, r.name, r.audit_through_seq);
        const changed = [...r.reconciled.changed, ...r.reconciled.removed];
        ctx.print(r, () =>
          fields([
            ['backup', r.path],
            ['schema version', r.schema_version],
            ['files', `${r.files} (${r.bytes} bytes)`],
            ...(changed.length > 0 ? ([['changed meanwhile', changed.join(', ')]] as [string, unknown][]) : []),
            ...(keep !== undefined ? ([['removed', r.pruned.length > 0 ? r.pruned.join(', ') : 'none']] as [string, unknown][]) : []),
          ]),
        );
      }),
    );

  program
    .command('restore')
    .description('check a backup folder, then restore it into a new (missing or empty) home')
    .argument('<src>', 'one backup folder (DEST/sds-backup-<time>), or DEST with --latest')
    .option('--latest', 'SRC holds backups (the DEST of sds backup): restore the newest')
    .addHelpText(
      'after',
      examples(
        'sds restore /var/backups/sds/sds-backup-20261124T020000Z --home /var/lib/sds',
        'sds restore /var/backups/sds --latest --home /var/lib/sds',
        'sds restore ./sds-backup-20261124T020000Z --home ./restored --json',
      ) +
        '\nEvery file is checked against the manifest and the store with PRAGMA\n' +
        'integrity_check before anything is written. The home given by --home (or\n' +
        'SDS_HOME) must not exist or be empty. An older store: run sds migrate next.\n' +
        'Given DEST without --latest, restore names the backups in it.\n',
    )
    .action(
      action(async (ctx, src: string, o: { latest?: boolean }) => {
        const bar = byteBar(ctx);
        const interrupt = stopCopyOnSignals('restore', `${ctx.home.root} may hold part of the restore; empty it before trying again`);
        let r;
        try {
          r = await restoreHome(src, ctx.home, { latest: o.latest === true, onProgress: (p) => bar.update(p), signal: interrupt.signal });
        } catch (err) {
          const sig = interrupt.received();
          if (sig === undefined) throw err;
          return reportInterrupted(sig, `nothing was restored; what had been written to ${ctx.home.root} was removed`);
        } finally {
          bar.stop();
          interrupt.dispose();
        }
        ctx.print(r, () =>
          fields([
            ['restored', r.home],
            ['from', r.source],
            ['backup time', r.created_at],
            ['schema version', `${r.schema_version} (this sds: ${r.latest_schema_version})`],
            ['files', `${r.files} (${r.bytes} bytes)`],
            ['', r.needs_migration ? `the store is at an older schema: run \`sds --home ${r.home} migrate\` before using it` : 'ready'],
          ]),
        );
      }),
    );
}

/**
 * Tells the audit trail that this backup holds its records up to `seq`, so that its retention may
 * prune them (docs/supervision.md#retention), and records the backup. The backup is made
 * whatever happens here: a store that cannot be written now only keeps its records longer.
 */
async function noteBackupInAudit(ctx: CliContext, name: string, seq: number): Promise<void> {
  const { sudo_user, ...who } = cliAuditSource();
  try {
    await markAuditBackedUp(await ctx.store(), seq, {
      ...who,
      action: 'backup.create',
      target: `backup:${name}`,
      details: sudo_user ? { sudo_user } : {},
    });
  } catch (err) {
    ctx.note(`the audit trail was not told of this backup (${(err as Error).message}): its records are kept until the next backup`);
  }
}
