import type { Command, Help } from 'commander';

/** Widest term column: a longer term (`process-cases-by-dict|service:…`) goes on a line of its own. */
export const MAX_TERM_WIDTH = 28;
/** Help width when stdout is not a terminal and COLUMNS is not set. */
export const DEFAULT_HELP_WIDTH = 80;

/**
 * Width of the help: COLUMNS when set (so `COLUMNS=80 sds --help | less` and tests can choose),
 * else the terminal's width, else 80 (a pipe, a file).
 */
export function helpWidth(env: NodeJS.ProcessEnv = process.env, stdout: { isTTY?: boolean; columns?: number } = process.stdout): number {
  const fromEnv = Number(env.COLUMNS);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  if (stdout.isTTY && stdout.columns) return stdout.columns;
  return DEFAULT_HELP_WIDTH;
}

/**
 * Lays out one term and its description: the description is wrapped at spaces into the column
 * after the terms; a term wider than the column is printed alone and its description starts on
 * the next line, so one long alias never pushes every description off the screen (issue 17:
 * help wrapped mid-word at 80 columns).
 */
export function formatHelpItem(term: string, termWidth: number, description: string, helper: Help, width: number): string {
  const indent = '  ';
  if (!description) return indent + term;
  const column = Math.min(termWidth, MAX_TERM_WIDTH);
  const descWidth = Math.max(width - indent.length - column - 2, 20);
  const lines = helper.boxWrap(description, descWidth).split('\n');
  const pad = ' '.repeat(indent.length + column + 2);
  if (helper.displayWidth(term) > column) return [indent + term, ...lines.map((l) => pad + l)].join('\n');
  return [indent + term.padEnd(column) + '  ' + lines[0], ...lines.slice(1).map((l) => pad + l)].join('\n');
}

/**
 * Help that fits the width: descriptions wrap at word boundaries, long terms get their own line.
 * Set on the program before its commands are added, so every command inherits it.
 */
export function configureHelpLayout(program: Command, width = helpWidth()): void {
  program.configureHelp({
    helpWidth: width,
    // boxWrap skips wrapping below this width; ours is never that narrow at 80 columns.
    minWidthToWrap: 20,
    formatItem(term: string, termWidth: number, description: string, helper: Help): string {
      return formatHelpItem(term, termWidth, description, helper, width);
    },
  });
}
