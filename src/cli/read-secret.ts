import { createInterface } from 'node:readline';
import { AppError } from '../shared/errors.js';

/**
 * Reads a password: from standard input when it is piped (first line, for scripts), or typed at a
 * terminal prompt without echo. Never from a command-line argument, which `ps` would show.
 */
export async function readSecret(prompt: string): Promise<string> {
  if (!process.stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const first = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
    if (!first) throw new AppError('USAGE', 'no password on standard input (pipe it: printf "%s\\n" "$PW" | sds ...)', {});
    return first;
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const muted = rl as unknown as { _writeToOutput: (s: string) => void };
  process.stderr.write(prompt);
  muted._writeToOutput = () => {};
  try {
    return await new Promise<string>((resolve) => rl.question('', resolve));
  } finally {
    rl.close();
    process.stderr.write('\n');
  }
}
