import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { once } from 'node:events';

/** Popstan's id items fill columns 2-19; case k of the copy gets the id text of number k. */
const ID_START = 1;
const ID_LENGTH = 18;

/**
 * Writes `n` Popstan-shaped cases: the bundled file's cases repeated with distinct ids, so the
 * import and breakout benchmarks see realistic record mixes without a data file in git.
 */
export async function makePopstanDat(source: string, target: string, n: number): Promise<void> {
  const cases: string[][] = [];
  let current: string[] = [];
  let key = '';
  const rl = createInterface({ input: createReadStream(source, 'utf8'), crlfDelay: Infinity });
  for await (let line of rl) {
    line = line.replace(/^\uFEFF/, '');
    if (!line) continue;
    const k = line.slice(ID_START, ID_START + ID_LENGTH);
    if (k !== key && current.length) {
      cases.push(current);
      current = [];
    }
    key = k;
    current.push(line);
  }
  if (current.length) cases.push(current);
  const out = createWriteStream(target);
  for (let i = 0; i < n; i++) {
    const id = String(i + 1).padStart(ID_LENGTH, '0');
    for (const line of cases[i % cases.length]!) {
      if (!out.write(line.slice(0, ID_START) + id + line.slice(ID_START + ID_LENGTH) + '\n')) await once(out, 'drain');
    }
  }
  out.end();
  await once(out, 'finish');
}
