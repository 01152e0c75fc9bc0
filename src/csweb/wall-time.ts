/**
 * Note times: CSWeb writes a note's `modified_time` as wall time in its DEFAULT_TIMEZONE
 * (docs/migrating-from-csweb.md#notes). These pure functions find that zone and turn a wall time
 * back into the UTC instant, with the daylight-saving edges handled explicitly.
 */
import { AppError } from '../shared/errors.js';

/** Edits (insert, delete, replace one character) between two texts. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * The zone names a misspelt one most likely meant (pure but for Intl): the name without its
 * surrounding spaces when that is a zone; those with the same place (the part after the last
 * `/`, any case, spaces as `_`); else the nearest within three edits. At most three; none for
 * an empty name.
 */
export function nearZones(zone: string, known: readonly string[] = [...Intl.supportedValuesOf('timeZone'), 'UTC']): string[] {
  // Zone names are short; nothing is near an empty or a long text (and editing that would be slow).
  if (zone.trim() === '' || zone.length > 64) return [];
  if (zone.trim() !== zone && isZone(zone.trim())) return [zone.trim()];
  const norm = (s: string) => s.trim().toLowerCase().replace(/ /g, '_');
  const placeOf = (s: string) => s.slice(s.lastIndexOf('/') + 1);
  const want = norm(zone);
  const same = known.filter((k) => placeOf(norm(k)) === placeOf(want));
  if (same.length > 0) return same.slice(0, 3);
  const scored = known.map((k) => ({ k, d: editDistance(want, norm(k)) })).filter((c) => c.d <= 3);
  const best = Math.min(...scored.map((c) => c.d));
  return scored
    .filter((c) => c.d === best)
    .map((c) => c.k)
    .sort()
    .slice(0, 3);
}

function isZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks a IANA zone name (Intl knows it); returns it or throws CSWEB_TIMEZONE_UNKNOWN saying
 * where the name came from and the known names it most likely meant.
 */
export function checkTimeZone(zone: string, from: string): string {
  if (!isZone(zone)) {
    const near = nearZones(zone);
    const hint = near.length > 0 ? `did you mean ${near.join(' or ')}?` : 'give an IANA zone name such as Africa/Nairobi';
    throw new AppError('CSWEB_TIMEZONE_UNKNOWN', `time zone "${zone}" (${from}) is unknown: it is not an IANA zone name; ${hint}`, {
      zone,
      from,
      suggestions: near,
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
