import Table from 'cli-table3';

/** A plain table for terminals and logs alike (no colour codes, so it pipes cleanly). */
export function table(head: string[], rows: (string | number | boolean | null | undefined)[][]): string {
  const t = new Table({ head, style: { head: [], border: [] } });
  for (const r of rows) t.push(r.map((v) => (v === null || v === undefined ? '' : String(v))));
  return t.toString();
}

/** `key: value` lines for one object. */
export function fields(pairs: [string, unknown][]): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${k.padEnd(width)}  ${v === null || v === undefined ? '' : String(v)}`).join('\n');
}
