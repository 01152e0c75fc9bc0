import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

/** promtool's verdict on a scrape; a missing promtool fails under CI (npm test installs it: scripts/ensure-test-tools.sh) and skips elsewhere. */
export function promtool(text: string): { status: number | null; output: string } | undefined {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    if (process.env.CI)
      assert.fail('promtool is not installed (Debian package prometheus); npm test installs it (scripts/ensure-test-tools.sh)');
    return undefined;
  }
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** One sample line of a Prometheus text scrape. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text scrape: `name{labels}` → value. */
export function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The value of the first sample named `name` with (at least) `labels`. */
export function value(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  return samples(text).find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
