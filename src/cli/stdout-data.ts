/**
 * Standard output that carries a command's data (the zip of `sds export --out -`): once a command
 * claims it, every message (the human summary, `--json`, an error) goes to standard error instead,
 * so the data on standard output stays whole (docs/cli.md#data-on-standard-output).
 */
let claimed = false;

/** Claims standard output for data; messages go to standard error from now on. */
export function claimStdoutForData(): void {
  claimed = true;
}

/** Where a message goes: standard output, or standard error once a command has claimed it for data. */
export function messageStream(): NodeJS.WriteStream {
  return claimed ? process.stderr : process.stdout;
}
