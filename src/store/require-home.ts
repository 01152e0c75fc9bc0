import { existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { AppError } from '../shared/errors.js';
import type { HomePaths, HomeSource } from '../shared/home.js';

/** Why a path is not a home (the `reason` of HOME_NOT_FOUND's details). */
export type MissingHomeReason = 'missing' | 'not_a_directory' | 'no_store';

/**
 * A home exists when its store file (`sds.db`) does: an existing directory without one, empty or
 * not, is not a home (docs/decisions.md, "Homes are made only by `sds init` and `sds quickstart`").
 */
export function missingHomeReason(home: HomePaths): MissingHomeReason | undefined {
  if (existsSync(home.db)) return undefined;
  if (!existsSync(home.root)) return 'missing';
  return statSync(home.root).isDirectory() ? 'no_store' : 'not_a_directory';
}

const CHOSEN_BY: Record<HomeSource, string> = {
  flag: 'given by --home',
  environment: 'given by SDS_HOME',
  default: 'the default ./var of the current directory, as neither --home nor SDS_HOME is set',
};

const shellWord = (s: string): string => (/^[\w./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** How to make this home with `sds init`, chosen the same way. */
function initAdvice(home: HomePaths, source: HomeSource): string {
  if (source === 'flag') return `run \`sds --home ${shellWord(home.root)} init\` to make it`;
  if (source === 'environment') return 'run `sds init` with the same SDS_HOME to make it';
  return 'run `sds init` in this directory to make it';
}

/**
 * Throws HOME_NOT_FOUND (exit 3) unless the home exists, naming the path looked at and how it was
 * chosen (`--home`, `SDS_HOME`, the default). Creates nothing: only `sds init` and `sds quickstart`
 * make a home.
 */
export function requireHome(home: HomePaths): void {
  const reason = missingHomeReason(home);
  if (reason === undefined) return;
  const source = home.source ?? 'flag';
  const what =
    reason === 'missing'
      ? 'the directory does not exist'
      : reason === 'not_a_directory'
        ? 'it is not a directory'
        : `the directory exists but has no store ${basename(home.db)}, so it is not an sds home`;
  throw new AppError('HOME_NOT_FOUND', `no sds home at ${home.root} (${CHOSEN_BY[source]}): ${what}; ${initAdvice(home, source)}`, {
    path: home.root,
    source,
    ...(source === 'default' ? {} : { from: source === 'flag' ? '--home' : 'SDS_HOME' }),
    reason,
  });
}

/**
 * Throws HOME_NOT_FOUND unless the home's folder exists: a home whose store is in PostgreSQL has
 * no store file, but keeps its folder (config.json, logs, media) made by `sds init`.
 */
export function requireHomeFolder(home: HomePaths): void {
  if (existsSync(home.root) && statSync(home.root).isDirectory()) return;
  const source = home.source ?? 'flag';
  const what = existsSync(home.root) ? 'it is not a directory' : 'the directory does not exist';
  throw new AppError('HOME_NOT_FOUND', `no sds home at ${home.root} (${CHOSEN_BY[source]}): ${what}; ${initAdvice(home, source)}`, {
    path: home.root,
    source,
    ...(source === 'default' ? {} : { from: source === 'flag' ? '--home' : 'SDS_HOME' }),
    reason: existsSync(home.root) ? 'not_a_directory' : 'missing',
  });
}
