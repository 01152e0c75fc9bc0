import { lstatSync, readdirSync, type Dirent } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { StaleUploadsReport, StaleUploadsRule } from '../../file-store-contract.js';
import { removeDurably } from './atomic-write.js';
import { isStalePart, partWriter } from './part-name.js';

const reasonOf = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

/**
 * Removes the stale temporary files of the file writer under `folder` (the home's `files/`:
 * media, synced files, application packages, binary items): those an upload cut by a crash left
 * behind, by the rule of isStalePart (docs/sync.md#files, "Temporary files"). Other hidden files
 * and anything that is not a regular file are left alone; symbolic links are not followed. Never
 * throws: what it cannot read or remove is reported in `failed`, with paths relative to `root`.
 */
export function removeStaleParts(root: string, folder: string, rule: StaleUploadsRule): StaleUploadsReport {
  const report: StaleUploadsReport = { removed: [], kept: 0, failed: [] };
  const rel = (p: string) => relative(root, p).split(sep).join('/');
  const visit = (dir: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') report.failed.push({ path: rel(dir), reason: reasonOf(err) });
      return;
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        visit(path);
        continue;
      }
      const writer = e.isFile() ? partWriter(e.name) : undefined;
      if (writer === undefined) continue;
      try {
        // Gone meanwhile: its writer renamed it into place or removed it.
        const st = lstatSync(path, { throwIfNoEntry: false });
        if (st === undefined) continue;
        if (!isStalePart(writer, st.mtimeMs, rule)) {
          report.kept += 1;
          continue;
        }
        removeDurably(path);
        report.removed.push(rel(path));
      } catch (err) {
        report.failed.push({ path: rel(path), reason: reasonOf(err) });
      }
    }
  };
  visit(folder);
  return report;
}
