import type { Dialect, TargetConfig, TargetSession } from './dialects/dialect.js';

/**
 * Opens a target session unless `signal` aborts first: a breakout stopped (SIGTERM, the
 * scheduler's time limit) while its target accepts the connection and never answers must not
 * wait out the driver's connect timeout (docs/scheduler.md, "Time limit"). Resolves null when
 * stopped; a session that opens after that is closed at once.
 */
export function connectUnlessStopped(
  dialect: Dialect,
  config: TargetConfig,
  signal: AbortSignal | undefined,
): Promise<TargetSession | null> {
  if (!signal) return dialect.connect(config);
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    let settled = false;
    const onAbort = () => {
      if (settled) return;
      settled = true;
      resolve(null);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    dialect.connect(config).then(
      (session) => {
        signal.removeEventListener('abort', onAbort);
        if (settled) {
          void session.close().catch(() => undefined);
          return;
        }
        settled = true;
        resolve(session);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        if (settled) return;
        settled = true;
        reject(err);
      },
    );
  });
}
