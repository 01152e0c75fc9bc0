import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { HomePaths } from '../../shared/home.js';

/** What the files step of a move did with the home's files. */
export interface FilesMoved {
  /** `home-folder`: they stay where they are, in the home's folder, which the moved home keeps using. */
  where: 'home-folder';
  /** The folders looked at, relative to the home. */
  folders: string[];
  files: number;
  bytes: number;
}

/**
 * The files step of `sds store copy`: takes the home's files (media and synced files, app
 * packages, binary case items, breakout job logs) to where the moved home reads them. Swapped
 * for one that writes them into the PostgreSQL store's file store, each checked by its SHA-256,
 * once that store exists (docs/production.md, "Moving a home to PostgreSQL").
 */
export type FilesStep = (home: HomePaths) => Promise<FilesMoved>;

/**
 * Today's files step: with a PostgreSQL store the files stay in the home's folder
 * (docs/production.md#choosing-a-store), so nothing is copied; they are counted, for the
 * report, and the home folder must stay.
 */
export const keepFilesInHome: FilesStep = async (home) => {
  const folders = [join(home.root, 'files'), home.breakoutLogs];
  let files = 0;
  let bytes = 0;
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const e of entries) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.isFile()) {
        files++;
        bytes += statSync(path).size;
      }
    }
  };
  for (const f of folders) walk(f);
  return { where: 'home-folder', folders: folders.map((f) => relative(home.root, f)), files, bytes };
};
