/**
 * Which version of the sync protocol a request gets (docs/sync.md#client-versions), decided from
 * its `User-Agent` alone, here and nowhere else. CSPro sends `CSPro sync client/<version>`; the
 * version is the first `\d+\.?\d+` after the slash, the way CSPro's own peer-to-peer sync reads
 * it. 8.1 and later get version 3 (CSPro 8.1's case JSON, the wrapped token reply); everything
 * else gets 2, because an 8.0 client refuses any server above 2 and a client that names no
 * version cannot be assumed to read version 3. Pure.
 */

/** The sync API versions this server speaks. */
export type SyncApiVersion = 2 | 3;

/** The User-Agent prefix every CSPro sync request carries (CSEntry, Data Manager, the data source). */
const CSPRO_AGENT = /^CSPro sync client\/(.*)$/i;

/** The first CSPro version to get version 3. */
const V3_FROM = { major: 8, minor: 1 };

/** The CSPro version a User-Agent names, or undefined when it is not CSPro's or names none. */
export function csproVersionOf(userAgent: string | undefined): { major: number; minor: number } | undefined {
  const rest = CSPRO_AGENT.exec((userAgent ?? '').trim())?.[1];
  if (rest === undefined) return undefined;
  const m = /(\d+)\.?(\d+)/.exec(rest);
  if (!m) return undefined;
  // `\d+\.?\d+` on "81" reads 81 (as CSPro does); with a dot, major and minor apart.
  return m[0].includes('.') ? { major: Number(m[1]), minor: Number(m[2]) } : { major: Number(m[0]), minor: 0 };
}

/** True when the request comes from a CSPro client (any version): its errors carry `code` (docs/sync.md#errors). */
export function isCsproClient(userAgent: string | undefined): boolean {
  return CSPRO_AGENT.test((userAgent ?? '').trim());
}

/** The sync API version for a request with this User-Agent: 3 for CSPro 8.1 and later, else 2. */
export function syncApiVersion(userAgent: string | undefined): SyncApiVersion {
  const v = csproVersionOf(userAgent);
  if (!v) return 2;
  return v.major > V3_FROM.major || (v.major === V3_FROM.major && v.minor >= V3_FROM.minor) ? 3 : 2;
}

/**
 * The CSPro version a User-Agent names as it writes it (`8.0.1`), for the reports' last app
 * version (docs/supervision.md#sync-history-and-reports); undefined when it is not CSPro's or its
 * version is not a short run of digits, dots and letters (nothing else is stored).
 */
export function csproVersionText(userAgent: string | undefined): string | undefined {
  const rest = CSPRO_AGENT.exec((userAgent ?? '').trim())?.[1];
  const word = rest?.trim().split(/\s+/)[0] ?? '';
  return /^\d[\w.+-]{0,39}$/.test(word) ? word : undefined;
}
