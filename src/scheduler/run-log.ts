/** `YYYY-MM-DD_HH-MM-SS` of a moment, in UTC (the run log file name of docs/scheduler.md#run-log-files). */
function logStamp(at: Date): string {
  return at.toISOString().slice(0, 19).replace('T', '_').replace(/:/g, '-');
}

/** `{dictionary}_{YYYY-MM-DD_HH-MM-SS}.log` (docs/scheduler.md#run-log-files); `attempt` > 0 adds `-N` when the name is taken. */
export function runLogName(dictionary: string, startedAt: Date, attempt = 0): string {
  return `${dictionary}_${logStamp(startedAt)}${attempt > 0 ? `-${attempt}` : ''}.log`;
}

export interface RunLogContent {
  command: string;
  startedAt: Date;
  endedAt: Date;
  /** The exit code recorded for the run. */
  exitCode: number;
  /** Why the run was stopped or did not start; printed after the exit code when set. */
  note?: string;
  stdout: string;
  stderr: string;
}

/**
 * The run log of docs/scheduler.md#run-log-files: a Command line, a Started line, an Exit code line, a STDOUT section and
 * a STDERR section (the layout of the old scheduler, so tools reading those logs keep working),
 * plus an Ended line and, for a stopped run, an Interrupted line saying why.
 */
export function formatRunLog(c: RunLogContent): string {
  const lines = [
    `Command: ${c.command}`,
    `Started: ${c.startedAt.toISOString()}`,
    `Ended: ${c.endedAt.toISOString()}`,
    `Exit code: ${c.exitCode}`,
    ...(c.note ? [`Interrupted: ${c.note}`] : []),
    '',
    '--- STDOUT ---',
    c.stdout.replace(/\n$/, ''),
    '--- STDERR ---',
    c.stderr.replace(/\n$/, ''),
    '',
  ];
  return lines.join('\n');
}

/** Shell-like rendering of a command line for the log (arguments with spaces quoted). */
export function commandLine(command: string, args: string[]): string {
  return [command, ...args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
