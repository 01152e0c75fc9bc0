import { createInterface } from 'node:readline';
import { AppError } from '../shared/errors.js';

/**
 * Asks a y/N question for a destructive command: on a terminal a prompt on stderr answered on
 * the terminal (anything but y/yes declines); without a terminal the command needs `--yes`,
 * so a script never hangs on a prompt nobody sees nor destroys data without saying so.
 */
export async function confirmDestructive(question: string, opts: { yes?: boolean; flagHint: string }): Promise<boolean> {
  if (opts.yes) return true;
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    throw new AppError(
      'USAGE',
      `${question.replace(/\?$/, '')} needs confirmation and there is no terminal to ask on: add --yes (${opts.flagHint})`,
      {},
    );
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    const answer = await new Promise<string>((resolve) => rl.question(`${question} [y/N] `, resolve));
    return /^(y|yes)$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
