import { spawn, type ChildProcess } from 'node:child_process';
import { entryProcessArgs } from '../../../shared/entry-module.js';
import { runChild, type ChildResult, type ChildSpec } from '../../../scheduler/run-child.js';

/**
 * The background entry points of src/entry/, one per kind of work started in a process of its
 * own: a breakout job (`run-job`), the incremental breakout of a scheduled run
 * (`scheduled-breakout`), and a Run Now claimed by the HTTP server (`run-now`).
 */
type EntryName = 'run-job' | 'scheduled-breakout' | 'run-now';

/** Where a detached child's stdout and stderr go: nowhere, or an open file (a job's log). */
type DetachedOutput = 'ignore' | number;

/**
 * How core starts background work (docs/decisions.md, "Process model"). Core never starts the
 * CLI: it names an entry point and its arguments, and the launcher runs it with this Node.
 */
export interface BackgroundLauncher {
  /**
   * Starts an entry point in its own detached process (its own process group), so it survives
   * the command or server that started it; unref'd, so the caller may exit first.
   */
  detached(entry: EntryName, args: string[], opts: { output: DetachedOutput; env?: NodeJS.ProcessEnv }): ChildProcess;
  /**
   * Runs an entry point to its end with its output captured, under `runChild`'s time limit and
   * signal forwarding.
   */
  run(entry: EntryName, args: string[], limits: Omit<ChildSpec, 'command' | 'args'>): Promise<ChildResult>;
}

/** The process's executable and arguments that run an entry point. */
function entryCommand(entry: EntryName, args: string[]): { command: string; args: string[] } {
  return { command: process.execPath, args: [...entryProcessArgs(entry), ...args] };
}

/**
 * The launcher of this installation: `process.execPath` on the entry point beside this code, the
 * `.js` of dist/ or, when core itself runs from source, the `.ts` of src/ under tsx; so tests
 * exercise the source they test.
 */
export const processLauncher: BackgroundLauncher = {
  detached(entry, args, opts) {
    const c = entryCommand(entry, args);
    const child = spawn(c.command, c.args, {
      detached: true,
      stdio: opts.output === 'ignore' ? 'ignore' : ['ignore', opts.output, opts.output],
      env: opts.env ?? process.env,
    });
    child.unref();
    return child;
  },
  run(entry, args, limits) {
    const c = entryCommand(entry, args);
    return runChild({ ...limits, command: c.command, args: c.args });
  },
};
