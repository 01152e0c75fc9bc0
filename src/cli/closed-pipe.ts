/**
 * `sds cases list X | head -2`: once the reader has gone, the next write fails with EPIPE, which
 * Node raises as an unhandled 'error' event with a stack trace. Like `git log | head`, the
 * command ends quietly instead: nobody is left to read what it would print. Exit code 0, so a
 * `set -o pipefail` script does not fail because its reader stopped early.
 */
export function endQuietlyOnClosedPipe(stream: NodeJS.WriteStream, exit: (code: number) => void = (c) => process.exit(c)): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') exit(0);
    else throw err;
  });
}
