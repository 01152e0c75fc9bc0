/**
 * The names of the file writer's temporary files, and when one is stale (pure). A temporary
 * file is `.<name>.<pid>-<12 hex>.part`: hidden, so the media area never lists or serves it and
 * a backup leaves it out, and named with the writing process's id, so that a server starting up
 * can tell a file whose writer died (a crash cut its upload) from one that another process
 * sharing the home is writing (docs/sync.md#files, "Temporary files").
 */

/**
 * The temporary name of a file `base` written by process `pid`; `random` is 12 hex digits. It adds
 * at most 30 bytes to `base` (a pid has at most 10 digits), which MAX_SEGMENT_BYTES leaves room for.
 */
export function partName(base: string, pid: number, random: string): string {
  return `.${base}.${pid}-${random}.part`;
}

/** Names by this writer, and by writers before the pid was part of the name (`.<name>.<12 hex>.part`). */
const WITH_PID = /^\..+\.(\d{1,10})-[0-9a-f]{12}\.part$/;
const WITHOUT_PID = /^\..+\.[0-9a-f]{12}\.part$/;

/** Who wrote a temporary file, from its name: `pid` when the name records it; undefined when it is no temporary file. */
export function partWriter(name: string): { pid: number | undefined } | undefined {
  const m = WITH_PID.exec(name);
  if (m) return { pid: Number(m[1]) };
  return WITHOUT_PID.test(name) ? { pid: undefined } : undefined;
}

/** What deciding about one temporary file needs. */
export interface StaleRule {
  now: number;
  /** A file untouched this long is stale whoever its writer (the pid may have been reused). */
  maxAgeMs: number;
  /** The deciding process: a file of its own pid predates it (a restart given the same pid, pid 1 in a container). */
  selfPid: number;
  /** Whether a process of this pid runs on this machine. */
  alive: (pid: number) => boolean;
}

/**
 * Whether a temporary file is stale, to be removed at server start (docs/sync.md#files,
 * "Temporary files"): its writer's process is gone (or is the deciding process, which has written
 * nothing yet), or it has not been written to for `maxAgeMs` (a name without a pid, from an
 * older sds, has only this rule). A file another live process is writing is kept: a writer
 * touches its file with every chunk.
 */
export function isStalePart(writer: { pid: number | undefined }, mtimeMs: number, rule: StaleRule): boolean {
  if (rule.now - mtimeMs >= rule.maxAgeMs) return true;
  if (writer.pid === undefined) return false;
  return writer.pid === rule.selfPid || !rule.alive(writer.pid);
}
