/**
 * How the CLI says that a dictionary's breakout was interrupted: the core's figures, then the
 * command that resumes from the saved cursor (docs/breakout.md#interrupted-breakouts). Core says
 * "an incremental breakout"; the CLI names its command, as error hints do.
 */
import type { BreakoutInterruption } from '../core/breakout/index.js';

const count = (n: number): string => n.toLocaleString('en-US');

/** The command that resumes the breakout of `dictionary` from where it stopped. */
export function resumeCommand(dictionary: string): string {
  return `sds process-cases-by-dict ${dictionary}`;
}

/** `CEN2000: interrupted at 46,000 of 100,000 cases (job … cancelled), resume with: sds process-cases-by-dict CEN2000`. */
export function interruptionLine(dictionary: string, i: BreakoutInterruption): string {
  const job = `job ${i.job_id}${i.job_status ? ` ${i.job_status}` : ''}`;
  return `${dictionary}: interrupted at ${count(i.processed_cases)} of ${count(i.total_cases)} cases (${job}), resume with: ${resumeCommand(dictionary)}`;
}
