/**
 * Which warnings of a CSWeb import were already shown on an earlier run, so an import scheduled
 * every few minutes prints each warning once (docs/migrating-from-csweb.md#the-report). One
 * setting per warning shown, keyed like the import's cursors: `csweb_reported:<source>:<hash>`,
 * the hash over the warning's code, where (dictionary, guid, user, file) and message, so a
 * warning whose message changes (a new count, another holder of a role) is shown again.
 */
import { createHash } from 'node:crypto';
import type { Store } from '../../store/open-store.js';
import type { CswebImportReport, ReportEntry } from './import-report.js';

const reportedKey = (source: string, entry: ReportEntry): string => {
  const hash = createHash('sha256')
    .update(JSON.stringify([entry.code, entry.dictionary ?? '', entry.guid ?? '', entry.user ?? '', entry.file ?? '', entry.message]))
    .digest('hex')
    .slice(0, 32);
  return `csweb_reported:${source}:${hash}`;
};

/** The report lines to print and how many warnings were left out as shown before. */
export interface WarningsToShow {
  /** Errors, every one; warnings not shown on an earlier run (or all, with `all`), in report order. */
  entries: ReportEntry[];
  /** Warnings left out because an earlier run showed them. */
  alreadyReported: number;
}

/**
 * Picks the report lines a human run prints: every error, and each warning only if no earlier
 * run of this home showed it for this CSWeb source (every warning with `all`). With `record`,
 * the warnings picked are remembered as shown; leave it off when nobody sees them (`--quiet`,
 * `--json`) or nothing may be written (`--dry-run`). Errors are never remembered: they print
 * on every run until fixed (docs/migrating-from-csweb.md#the-report).
 */
export async function warningsToShow(
  store: Store,
  report: CswebImportReport,
  opts: { all?: boolean; record: boolean },
): Promise<WarningsToShow> {
  const source = report.source.serverDeviceId;
  const entries: ReportEntry[] = [];
  const fresh: string[] = [];
  let alreadyReported = 0;
  for (const e of report.entries) {
    if (e.level === 'error') {
      entries.push(e);
      continue;
    }
    const key = reportedKey(source, e);
    const seen = (await store.settings.get(key)) !== undefined;
    if (seen && opts.all !== true) {
      alreadyReported += 1;
      continue;
    }
    entries.push(e);
    if (!seen) fresh.push(key);
  }
  if (opts.record && fresh.length > 0) {
    const at = new Date().toISOString();
    await store.transaction(async (tx) => {
      for (const key of fresh) await tx.settings.set(key, at);
    });
  }
  return { entries, alreadyReported };
}
