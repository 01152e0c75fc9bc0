import type { Command } from 'commander';
import { contextOf, type CliContext } from './context.js';

/**
 * Wraps a command handler: builds its context from the command's options and closes the store
 * afterwards. Commander passes the positional arguments, then the options, then the command.
 */
export function action<A extends unknown[]>(fn: (ctx: CliContext, ...args: A) => Promise<void> | void) {
  return async (...args: unknown[]): Promise<void> => {
    const cmd = args[args.length - 1] as Command;
    const ctx = contextOf(cmd);
    try {
      await fn(ctx, ...(args.slice(0, -1) as A));
    } finally {
      await ctx.close();
    }
  };
}

/** Help text listing examples, appended after a command's options. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}
