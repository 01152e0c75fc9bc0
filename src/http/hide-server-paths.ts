/**
 * HTTP replies never name absolute server paths (docs/errors.md): a message that names a file of
 * the server (a SQLite target, the home) shows only the file's name. CLI output keeps full paths:
 * there the operator is on the server.
 */
import { existsSync } from 'node:fs';
import { basename } from 'node:path';

/**
 * An absolute POSIX path of at least two segments, starting a word (after the start, a space, a
 * quote or a bracket), so URLs (`scheme://host/db`) and `host:port/db` are left alone. A Windows
 * drive path (`C:\...`) is matched too.
 */
const ABSOLUTE_PATH = /(^|[\s'"`([=])((?:\/[^\s'"`()[\]/,;]+){2,}|[A-Za-z]:\\[^\s'"`()[\],;]+)/g;

const QUOTED_PATH = /(['"`])(\/[^'"`\n/]+\/[^'"`\n]*[^'"`\n/])\1/g;

/** Whether `path` is one of this server's: its first folder exists here (`/tmp`, `/srv`, `/home`...). */
function isServerPath(path: string): boolean {
  if (/^[A-Za-z]:\\/.test(path)) return true;
  const first = path.split('/')[1];
  return first !== undefined && first !== '' && existsSync(`/${first}`);
}

/**
 * `text` with each absolute server path replaced by its last segment (trailing `.`/`:` kept
 * outside). Route paths such as `/api/breakout/jobs` are not server folders and stay.
 */
export function hideServerPaths(text: string, isServer: (path: string) => boolean = isServerPath): string {
  // A quoted path may hold spaces: the whole quoted path goes first.
  const quoted = text.replace(QUOTED_PATH, (whole, q: string, path: string) => (isServer(path) ? `${q}${basename(path)}${q}` : whole));
  return quoted.replace(ABSOLUTE_PATH, (whole, lead: string, path: string) => {
    const trail = /[.:]+$/.exec(path)?.[0] ?? '';
    const bare = trail ? path.slice(0, -trail.length) : path;
    if (!isServer(bare)) return whole;
    return `${lead}${basename(bare.replace(/\\/g, '/'))}${trail}`;
  });
}

/** `value` with hideServerPaths applied to every string inside it (a job reply, a log page). */
export function hideServerPathsIn<T>(value: T): T {
  if (typeof value === 'string') return hideServerPaths(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => hideServerPathsIn(v)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hideServerPathsIn(v)])) as T;
  }
  return value;
}
