import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** A regular file found under a folder: its path relative to that folder (forward slashes) and size. */
export interface FoundFile {
  rel: string;
  size: number;
}

/**
 * The regular files under `root`, depth first, by name. Hidden names (a leading dot: the media
 * writer's temporary files, docs/backup.md#what-a-backup-holds) are skipped when `skipHidden`;
 * symbolic links and other special files are never followed. A missing root has no files.
 */
export function walkFiles(root: string, opts: { skipHidden: boolean; other?: (rel: string) => void }): FoundFile[] {
  const out: FoundFile[] = [];
  const visit = (dir: string, prefix: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && prefix === '') return;
      throw err;
    }
    for (const name of names) {
      if (opts.skipHidden && name.startsWith('.')) continue;
      const rel = prefix === '' ? name : `${prefix}/${name}`;
      // A file removed between the listing and the stat (a media file being replaced) is skipped.
      const st = lstatSync(join(dir, name), { throwIfNoEntry: false });
      if (st === undefined) continue;
      if (st.isDirectory()) visit(join(dir, name), rel);
      else if (st.isFile()) out.push({ rel, size: st.size });
      else opts.other?.(rel);
    }
  };
  visit(root, '');
  return out;
}
