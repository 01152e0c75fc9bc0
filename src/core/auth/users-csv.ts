import { parse } from 'csv-parse/sync';

/** One record of a CSV file and the line of the file it starts on (1-based). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** The records of a CSV text, or the syntax error that stopped the reading and its line. */
export type CsvRead = { ok: true; records: CsvRecord[] } | { ok: false; line: number; message: string };

/**
 * Reads the records of a CSV text (RFC 4180: commas, double quotes, a quoted field may span
 * lines), each with the line it starts on, so an error can name the line a spreadsheet shows.
 * Line breaks are CRLF, LF or CR alike (a file saved on Windows or an old Mac); a UTF-8 byte
 * order mark is skipped; blank lines are skipped. Pure.
 */
export function readCsvRecords(text: string): CsvRead {
  // csv-parse takes the first line break it meets as the only one: one kind for the whole file.
  const normal = text.replace(/\r\n?/g, '\n');
  let parsed: { record: string[]; info: { lines: number } }[];
  try {
    parsed = parse(normal, { bom: true, info: true, relax_column_count: true, skip_empty_lines: true }) as unknown as typeof parsed;
  } catch (err) {
    const e = err as { lines?: number; message?: string };
    return { ok: false, line: e.lines ?? 1, message: `the CSV cannot be read: ${e.message ?? String(err)}` };
  }
  const records: CsvRecord[] = [];
  for (const { record, info } of parsed) {
    if (record.every((f) => f.trim() === '')) continue;
    // info.lines is the line the record ends on; line breaks inside quoted fields come before it.
    const inner = record.reduce((n, f) => n + (f.match(/\n/g)?.length ?? 0), 0);
    records.push({ line: info.lines - inner, fields: record });
  }
  return { ok: true, records };
}
