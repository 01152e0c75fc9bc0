/** The signals that ask a background process to stop at a safe point. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

/** Exit status after a signal, as a shell reports a command it killed: 130 for SIGINT, 143 for SIGTERM. */
export const SIGNAL_EXIT: Readonly<Record<StopSignal, number>> = { SIGINT: 130, SIGTERM: 143 };

/**
 * An AbortSignal raised by the first SIGTERM or SIGINT (its reason is the signal's name), so
 * the work stops after the page it is writing instead of dying half way. A second signal exits
 * at once with 128 + its number. `onFirst` says on stderr (the job or run log) what is happening.
 */
export function stopOnSignals(onFirst?: (sig: StopSignal) => void): { signal: AbortSignal; received(): StopSignal | undefined } {
  const abort = new AbortController();
  let first: StopSignal | undefined;
  const on = (sig: StopSignal) => {
    if (first !== undefined) process.exit(SIGNAL_EXIT[sig]);
    first = sig;
    abort.abort(sig);
    onFirst?.(sig);
  };
  process.on('SIGINT', () => on('SIGINT'));
  process.on('SIGTERM', () => on('SIGTERM'));
  return { signal: abort.signal, received: () => first };
}
