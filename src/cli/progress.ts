import { lazyRequire } from '../shared/lazy-require.js';
import type { CliContext } from './context.js';

/** cli-progress, loaded when a bar is first drawn (docs/cli.md#start-up-time). */
const loadCliProgress = lazyRequire<typeof import('cli-progress')>('cli-progress');

export type ProgressPayload = Record<string, string | number>;

export interface Progress {
  update(value: number, total?: number, payload?: ProgressPayload): void;
  stop(): void;
}

const NONE: Progress = { update() {}, stop() {} };

/**
 * cli-progress's ETA is a number of seconds, or 'NULL' / 'INF' before it can be estimated; its
 * default formatter pads those into `NFs`. Unknown reads `--`.
 */
function formatEta(t: unknown): string {
  if (typeof t !== 'number' || !Number.isFinite(t)) return '--';
  const s = Math.max(0, Math.round(t));
  const pad = (n: number) => String(n).padStart(2, '0');
  return s >= 3600
    ? `${Math.floor(s / 3600)}h${pad(Math.floor((s % 3600) / 60))}m`
    : s >= 60
      ? `${Math.floor(s / 60)}m${pad(s % 60)}s`
      : `${s}s`;
}

/**
 * Draws a bar on `stream`. Every `{token}` of `format` that is not one of cli-progress's own
 * must be given in `payload` from the start, or it is printed literally.
 */
function drawProgress(stream: NodeJS.WritableStream, format: string, total: number, payload: ProgressPayload): Progress {
  const cliProgress = loadCliProgress();
  const bar = new cliProgress.SingleBar(
    { format, stream, hideCursor: true, clearOnComplete: true, fps: 5, emptyOnZero: true, formatTime: formatEta },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, payload);
  return {
    update(value, newTotal, more) {
      if (newTotal !== undefined) bar.setTotal(newTotal);
      bar.update(value, more);
    },
    stop() {
      bar.stop();
    },
  };
}

/**
 * A progress bar on stderr, only for a human at a terminal (never with --json, --quiet or in
 * CI), so scripts and logs never receive control characters.
 */
export function progressBar(ctx: CliContext, format: string, total = 0, payload: ProgressPayload = {}): Progress {
  if (!ctx.interactive) return NONE;
  return drawProgress(process.stderr, format, total, payload);
}
