/**
 * Reads an SPSS `.sav` file back with GNU PSPP (`pspp`), a reader others wrote: the dictionary
 * from DISPLAY DICTIONARY (CSV output, variables shown by name), the data from SAVE TRANSLATE to
 * CSV; any warning PSPP gives about the file fails the read. Date-time variables are switched to a plain number format before the data is written
 * (PSPP's plain CSV drops their milliseconds) and turned back into ISO 8601 strings here.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SpssValueLabel {
  value: number | string;
  label: string;
  /** PSPP marks the value user-missing. */
  missing: boolean;
}

export interface SpssColumn {
  name: string;
  label: string;
  valueLabels: SpssValueLabel[];
  /** Print format as PSPP shows it, e.g. `F5.0`, `A36`, `DATETIME24.3`. */
  format: string;
  /** PSPP's text of the user-missing values, e.g. `9`, `7; 8; 9`, `96 THRU 99`; '' for none. */
  missing: string;
  measure: string;
}

export type SpssCell = number | string | null;

export interface SpssFile {
  columns: SpssColumn[];
  /** Numbers (SYSMIS as null), strings right-trimmed, date-times as ISO 8601 strings. */
  rows: SpssCell[][];
}

/** Seconds from 1582-10-14 (the SPSS epoch) to 1970-01-01. */
const EPOCH_OFFSET = -Date.UTC(1582, 9, 14) / 1000;

export function readSpss(file: string): SpssFile {
  const dir = mkdtempSync(join(tmpdir(), 'sds-read-spss-'));
  try {
    const quoted = file.replace(/'/g, "''");
    const dictCsv = join(dir, 'dict.csv');
    writeFileSync(join(dir, 'dict.sps'), `SET TVARS=NAMES TNUMBERS=VALUES.\nGET FILE='${quoted}'.\nDISPLAY DICTIONARY.\n`);
    runPspp(['-O', 'format=csv', '-o', dictCsv, join(dir, 'dict.sps')]);
    const columns = parseDictionary(readFileSync(dictCsv, 'utf8'));
    const dates = columns.filter((c) => /^DATETIME/.test(c.format)).map((c) => c.name);
    const dataCsv = join(dir, 'data.csv');
    const syntax = [
      `GET FILE='${quoted}'.`,
      ...(dates.length > 0 ? [`FORMATS ${dates.join(' ')} (F20.3).`] : []),
      `SAVE TRANSLATE /OUTFILE='${dataCsv}' /TYPE=CSV /FIELDNAMES /REPLACE.`,
    ];
    writeFileSync(join(dir, 'data.sps'), syntax.join('\n') + '\n');
    runPspp([join(dir, 'data.sps')]);
    const [head, ...body] = parseCsv(readFileSync(dataCsv, 'utf8'));
    if (!head || head.join(',') !== columns.map((c) => c.name).join(',')) {
      throw new Error(`PSPP data columns ${head?.join(',')} differ from the dictionary`);
    }
    const rows = body.map((r) =>
      r.map((text, i): SpssCell => {
        const c = columns[i]!;
        if (c.format.startsWith('A')) return text.replace(/ +$/, '');
        if (text.trim() === '') return null;
        const n = Number(text);
        return dates.includes(c.name) ? new Date(Math.round((n - EPOCH_OFFSET) * 1000)).toISOString() : n;
      }),
    );
    return { columns, rows };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs PSPP; any warning or error it reports about the file fails the read. */
function runPspp(args: string[]): void {
  const r = spawnSync('pspp', args, { encoding: 'utf8' });
  if (r.error) throw r.error;
  // PSPP reports problems on stdout or stderr, as `warning: …` or `file:line: error: …` lines.
  const messages = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => /(^|: )(warning|error):/.test(l));
  if (r.status !== 0 || messages.length > 0)
    throw new Error(`pspp ${args.join(' ')} (exit ${r.status}): ${messages.join('\n') || r.stderr}`);
}

function parseDictionary(text: string): SpssColumn[] {
  const rows = parseCsv(text);
  const columns: SpssColumn[] = [];
  const byName = new Map<string, SpssColumn>();
  let table = '';
  let current: SpssColumn | undefined;
  for (const row of rows) {
    if (row.length === 1 && row[0]!.startsWith('Table: ')) {
      // PSPP's CSV output may repeat the tables; read each once.
      const name = row[0]!.slice(7);
      table = (name === 'Variables' && columns.length > 0) || (name === 'Value Labels' && table === 'done') ? 'skip' : name;
      continue;
    }
    if (row.length === 1 && row[0]!.startsWith('Footnote')) {
      if (table === 'Value Labels') table = 'done';
      continue;
    }
    if (row.length <= 1) continue;
    if (table === 'Variables') {
      if (row[0] === 'Name') continue;
      const c: SpssColumn = { name: row[0]!, label: row[2]!, measure: row[3]!, format: row[7]!, missing: row[9] ?? '', valueLabels: [] };
      columns.push(c);
      byName.set(c.name, c);
    } else if (table === 'Value Labels') {
      if (row[0] === 'Variable Value') continue;
      if (row[0] !== '') current = byName.get(row[0]!);
      if (!current) throw new Error(`value labels of an unknown variable ${row[0]}`);
      const missing = /\[[a-z]+\]$/.test(row[1]!);
      const raw = row[1]!.replace(/\[[a-z]+\]$/, '');
      const value = current.format.startsWith('A') ? raw : Number(raw);
      current.valueLabels.push({ value, label: row[2]!, missing });
    }
  }
  return columns;
}

/** RFC 4180 CSV: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
