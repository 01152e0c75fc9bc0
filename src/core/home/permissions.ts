import { chmodSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { HomePaths } from '../../shared/home.js';
import { homeConfigPath } from '../../shared/home-config.js';

/** A path of a home whose privacy matters, and its mode bits (`stat.mode & 0o7777`). */
export interface ModeEntry {
  path: string;
  kind: 'directory' | 'file';
  mode: number;
}

/** A path readable, writable or (for a folder) enterable by group or others, and the chmod that fixes it. */
export interface LoosePermission {
  path: string;
  kind: 'directory' | 'file';
  /** The mode it has, in octal (`0644`). */
  mode: string;
  /** The mode it should have (`0700` for the home, `0600` for a file). */
  expected: string;
  /** Who besides the owner can reach it: `group`, `others` or both. */
  open_to: ('group' | 'others')[];
  /** The shell command that fixes it. */
  fix: string;
  message: string;
}

const GROUP_BITS = 0o070;
const OTHER_BITS = 0o007;

const octal = (mode: number): string => '0' + (mode & 0o777).toString(8).padStart(3, '0');
const shellWord = (s: string): string => (/^[\w./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * The entries that group or others can reach, with the chmod that makes each private: 0700 for
 * the home folder, 0600 for a file (docs/architecture.md#permissions-of-a-home). Pure: the modes
 * come from `homeModes`.
 */
export function loosePermissions(entries: readonly ModeEntry[]): LoosePermission[] {
  const found: LoosePermission[] = [];
  for (const e of entries) {
    const openTo = [...(e.mode & GROUP_BITS ? (['group'] as const) : []), ...(e.mode & OTHER_BITS ? (['others'] as const) : [])];
    if (openTo.length === 0) continue;
    const expected = e.kind === 'directory' ? '0700' : '0600';
    const fix = `chmod ${expected.slice(1)} ${shellWord(e.path)}`;
    found.push({
      path: e.path,
      kind: e.kind,
      mode: octal(e.mode),
      expected,
      open_to: openTo,
      fix,
      message: `${e.kind === 'directory' ? 'the home folder' : 'the file'} ${e.path} has mode ${octal(e.mode)}: ${openTo.join(' and ')} can ${e.kind === 'directory' ? 'enter' : 'read or write'} it; fix: ${fix}`,
    });
  }
  return found;
}

/** The mode of `path`, or undefined when it does not exist. */
function modeOf(path: string, kind: ModeEntry['kind']): ModeEntry | undefined {
  try {
    return { path, kind, mode: statSync(path).mode & 0o7777 };
  } catch {
    return undefined;
  }
}

/** The embedded SQLite target files of the home (`targets/*.sqlite`, `*.db`), with their -wal and -shm. */
function targetFiles(home: HomePaths): string[] {
  try {
    return readdirSync(home.targets)
      .filter((f) => /\.(sqlite|sqlite3|db)(-wal|-shm)?$/.test(f))
      .map((f) => join(home.targets, f));
  } catch {
    return [];
  }
}

/**
 * The modes of what must be private in a home: the folder itself, the store and its -wal and
 * -shm (the JWT signing key, webhook secrets, password hashes, every case), config.json, and the
 * embedded breakout targets (every case again). Absent files are left out.
 */
function homeModes(home: HomePaths): ModeEntry[] {
  const files = [home.db, `${home.db}-wal`, `${home.db}-shm`, homeConfigPath(home), ...targetFiles(home)];
  return [modeOf(home.root, 'directory'), ...files.map((f) => modeOf(f, 'file'))].filter((e): e is ModeEntry => e !== undefined);
}

/** What of the home `home` group or others can reach (`sds serve` warns about each at start). */
export function homePermissionWarnings(home: HomePaths): LoosePermission[] {
  return loosePermissions(homeModes(home));
}

/**
 * Makes the private parts of an existing home private (`sds init` run again on it: the explicit
 * way to tighten a home made by an older sds, docs/upgrading.md#permissions-of-an-existing-home).
 * Returns what it changed.
 */
export function tightenHomePermissions(home: HomePaths): LoosePermission[] {
  const loose = homePermissionWarnings(home);
  for (const p of loose) chmodSync(p.path, p.kind === 'directory' ? 0o700 : 0o600);
  return loose;
}
