/**
 * Note times: CSWeb writes a note's `modified_time` as wall time in its DEFAULT_TIMEZONE
 * (docs/migrating-from-csweb.md#notes). These pure functions find that zone and turn a wall time
 * back into the UTC instant, with the daylight-saving edges handled explicitly.
 */
import { AppError } from '../shared/errors.js';

/** Checks a IANA zone name (Intl knows it); returns it or throws CSWEB_TIMEZONE_REQUIRED. */
export function checkTimeZone(zone: string, from: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new AppError('CSWEB_TIMEZONE_REQUIRED', `time zone "${zone}" (${from}) is not a known IANA zone name, such as Africa/Nairobi`, {
      zone,
      from,
    });
  }
  return zone;
}

/** The DEFAULT_TIMEZONE constant of CSWeb's config.php text, if it defines one (pure). */
export function timeZoneFromConfigPhp(php: string): string | undefined {
  const m = /define\s*\(\s*['"]DEFAULT_TIMEZONE['"]\s*,\s*['"]([^'"]+)['"]\s*\)/.exec(php);
  return m?.[1];
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Milliseconds to add to UTC to get the wall time of `zone` at instant `t`. */
function offsetAt(t: number, zone: string): number {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(new Date(t))) if (part.type !== 'literal') p[part.type] = Number(part.value);
  const wall = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  return wall - Math.floor(t / 1000) * 1000;
}

/** How a wall time mapped to an instant: exactly, in a repeated hour, or in a skipped hour. */
export type WallTimeFit = 'exact' | 'ambiguous' | 'gap';

/**
 * The UTC instant of a `YYYY-MM-DD HH:MM:SS` wall time in `zone`, as RFC 3339 with Z. In the
 * hour repeated when clocks go back, the earlier instant is taken (`ambiguous`); a time in the
 * hour skipped when clocks go forward cannot have been written by CSWeb, and is read with the
 * offset before the change, as PHP reads it (`gap`). Throws an Error for text that is not a time.
 */
export function wallTimeToUtc(text: string, zone: string): { iso: string; fit: WallTimeFit } {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})/.exec(text);
  if (!m) throw new Error(`"${text}" is not a date and time`);
  const wall = Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!);
  // The offsets a day either side cover any zone's change at this wall time.
  const candidates = [...new Set([offsetAt(wall - 86_400_000, zone), offsetAt(wall, zone), offsetAt(wall + 86_400_000, zone)])]
    .map((off) => wall - off)
    .filter((t) => t + offsetAt(t, zone) === wall)
    .sort((a, b) => a - b);
  const iso = (t: number) => new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (candidates.length === 1) return { iso: iso(candidates[0]!), fit: 'exact' };
  if (candidates.length > 1) return { iso: iso(candidates[0]!), fit: 'ambiguous' };
  return { iso: iso(wall - offsetAt(wall - 86_400_000, zone)), fit: 'gap' };
}
