/**
 * The area names file of a geographic report (docs/supervision.md#area-names), pure: CSV lines of
 * codes, one column per level of the geography, then the area's name, as CSWeb's area names file.
 * A line naming a higher level leaves the lower codes empty (`01,,North`; `01,03,Lakeside`).
 * Checked whole: every bad line is reported with its number and nothing is kept.
 */
import { AppError } from '../../shared/errors.js';

/** Most areas one file may name (docs/limits.md). */
const MAX_AREA_NAMES = 100000;
/** Most bad lines an error lists (the count says how many there were). */
const MAX_LISTED = 50;

/** One area: its codes, level by level, normalised (areaCode), and its name. */
export interface AreaName {
  codes: string[];
  label: string;
}

/**
 * A code as areas are matched by: trimmed, and a whole number without its leading zeros, so
 * `01`, `1` and a blank-padded ` 1` in a key are the same area.
 */
export function areaCode(text: string): string {
  const t = text.trim();
  return /^\d+$/.test(t) ? t.replace(/^0+(?=\d)/, '') : t;
}

/** The stored key of a list of codes. */
export const areaKey = (codes: readonly string[]): string => JSON.stringify(codes.map(areaCode));

/** The records of a CSV text (RFC 4180: quotes, doubled quotes, CRLF or LF), each with its first line's number. */
export function csvRecords(text: string): { line: number; fields: string[] }[] {
  const out: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let any = false;
  const s = text.startsWith('\uFEFF') ? text.slice(1) : text;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (quoted) {
      if (ch === '"' && s[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else {
        if (ch === '\n') line++;
        field += ch;
      }
      continue;
    }
    if (ch === '"' && field === '') {
      quoted = true;
      any = true;
    } else if (ch === ',') {
      fields.push(field);
      field = '';
      any = true;
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && s[i + 1] === '\n') i++;
      if (any || field !== '') {
        fields.push(field);
        out.push({ line: start, fields });
      }
      fields = [];
      field = '';
      any = false;
      line++;
      start = line;
    } else {
      field += ch;
      any = true;
    }
  }
  if (any || field !== '') {
    fields.push(field);
    out.push({ line: start, fields });
  }
  return out;
}

/**
 * The areas of an area names file; `header` skips its first line. AREA_NAMES_INVALID listing
 * every bad line (`lines`: number and reason): a line with another number of columns than the
 * first, no code, a code after an empty one, an empty name, an area named twice, or too many areas.
 */
export function parseAreaNames(text: string, header = false): AreaName[] {
  const records = csvRecords(text).slice(header ? 1 : 0);
  const bad: { line: number; reason: string }[] = [];
  if (records.length === 0) throw new AppError('AREA_NAMES_INVALID', 'the area names file has no line', { lines: [] });
  if (records.length > MAX_AREA_NAMES) {
    throw new AppError('AREA_NAMES_INVALID', `the area names file has ${records.length} lines; at most ${MAX_AREA_NAMES}`, { lines: [] });
  }
  const width = records[0]!.fields.length;
  const seen = new Map<string, number>();
  const areas: AreaName[] = [];
  for (const { line, fields } of records) {
    if (width < 2) {
      bad.push({ line, reason: 'a line needs at least one code and a name' });
      continue;
    }
    if (fields.length !== width) {
      bad.push({ line, reason: `${fields.length} columns where the first line has ${width}` });
      continue;
    }
    const label = fields[width - 1]!.trim();
    const raw = fields.slice(0, -1).map((c) => c.trim());
    const depth = raw.findIndex((c) => c === '');
    const codes = depth === -1 ? raw : raw.slice(0, depth);
    if (codes.length === 0) bad.push({ line, reason: 'no code' });
    else if (raw.slice(codes.length).some((c) => c !== '')) bad.push({ line, reason: 'a code follows an empty one' });
    else if (label === '') bad.push({ line, reason: 'the name is empty' });
    else {
      const key = areaKey(codes);
      const first = seen.get(key);
      if (first !== undefined) bad.push({ line, reason: `the same codes as line ${first}` });
      else {
        seen.set(key, line);
        areas.push({ codes: codes.map(areaCode), label });
      }
    }
  }
  if (bad.length > 0) {
    const shown = bad.slice(0, MAX_LISTED);
    const list = shown.map((b) => `line ${b.line}: ${b.reason}`).join('; ');
    throw new AppError('AREA_NAMES_INVALID', `${bad.length} bad line(s) in the area names file, nothing kept: ${list}`, {
      lines: shown,
      bad_lines: bad.length,
    });
  }
  return areas;
}
