/**
 * Ctrl-C (SIGINT) and SIGTERM on a command that waits for a job it started: the first signal
 * stops the job at a safe point (after the page it is writing) and the command then says on
 * stderr what became of the job and exits 128 + the signal's number; a second signal exits at
 * once with a note that the job may still be stopping (docs/cli.md, "Ctrl-C and SIGTERM").
 */

export type StopSignal = 'SIGINT' | 'SIGTERM';

/** Exit status after a signal, as a shell reports a command it killed: 130 for SIGINT, 143 for SIGTERM. */
export const SIGNAL_EXIT: Readonly<Record<StopSignal, number>> = { SIGINT: 130, SIGTERM: 143 };

export interface Interrupt {
  /** Aborted on the first signal, with the signal's name as its reason. */
  readonly signal: AbortSignal;
  /** The first signal received, if any. */
  received(): StopSignal | undefined;
  /** Stops listening: the command is over, a signal now ends the process as usual. */
  dispose(): void;
}

/**
 * Listens for SIGINT and SIGTERM. `onFirst` runs on the first (ask the job to stop); `again`
 * gives the note written to stderr before the process exits on the second.
 */
export function interruptOnSignals(opts: { onFirst?: (sig: StopSignal) => void; again: () => string }): Interrupt {
  const abort = new AbortController();
  let first: StopSignal | undefined;
  const on = (sig: StopSignal) => {
    if (first !== undefined) {
      process.stderr.write(`sds: ${sig} again: exiting now; ${opts.again()}\n`);
      process.exit(SIGNAL_EXIT[sig]);
    }
    first = sig;
    abort.abort(sig);
    opts.onFirst?.(sig);
  };
  const onInt = () => on('SIGINT');
  const onTerm = () => on('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return {
    signal: abort.signal,
    received: () => first,
    dispose() {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}

/** Writes the outcome line of an interrupted command on stderr and sets its exit status. */
export function reportInterrupted(sig: StopSignal, what: string): void {
  process.stderr.write(`sds: interrupted by ${sig}: ${what}\n`);
  process.exitCode = SIGNAL_EXIT[sig];
}
