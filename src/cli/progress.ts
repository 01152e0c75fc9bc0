import cliProgress from 'cli-progress';
import type { CliContext } from './context.js';

export interface Progress {
  update(value: number, total?: number): void;
  stop(): void;
}

const NONE: Progress = { update() {}, stop() {} };

/**
 * A progress bar on stderr, only for a human at a terminal (never with --json, --quiet or in
 * CI), so scripts and logs never receive control characters.
 */
export function progressBar(ctx: CliContext, format: string, total = 0): Progress {
  if (!ctx.interactive) return NONE;
  const bar = new cliProgress.SingleBar(
    { format, stream: process.stderr, hideCursor: true, clearOnComplete: true, fps: 5 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0);
  return {
    update(value, newTotal) {
      if (newTotal !== undefined) bar.setTotal(newTotal);
      bar.update(value);
    },
    stop() {
      bar.stop();
    },
  };
}
