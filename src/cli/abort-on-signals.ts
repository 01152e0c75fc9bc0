/**
 * An AbortSignal raised by SIGTERM or SIGINT, so a long run (a breakout job, an incremental
 * breakout under cron) stops after the page it is writing instead of dying half way.
 */
export function abortOnSignals(): AbortSignal {
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return abort.signal;
}
