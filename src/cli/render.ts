import Table from 'cli-table3';

export type Cell = string | number | boolean | null | undefined;

function text(v: Cell): string {
  return v === null || v === undefined ? '' : String(v);
}

/**
 * A table: boxed for a person at a terminal, else (`plain`) a header line then one line per row,
 * cells separated by tabs, for `cut`, `awk` and `sort` (docs/decisions.md, "Tables on pipes").
 * A tab or line break inside a cell becomes a space so every row stays one line.
 */
export function table(head: string[], rows: Cell[][], plain = false): string {
  if (plain) return [head, ...rows.map((r) => r.map(text))].map((r) => r.map((c) => c.replace(/[\t\r\n]+/g, ' ')).join('\t')).join('\n');
  const t = new Table({ head, style: { head: [], border: [] } });
  for (const r of rows) t.push(r.map(text));
  return t.toString();
}

/** Whether tables are plain: asked for with --plain, or stdout is not a terminal. */
export function plainTables(flag: boolean | undefined, stdoutIsTTY: boolean | undefined): boolean {
  return flag === true || stdoutIsTTY !== true;
}

/** `key: value` lines for one object. */
export function fields(pairs: [string, unknown][]): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${k.padEnd(width)}  ${v === null || v === undefined ? '' : String(v)}`).join('\n');
}
