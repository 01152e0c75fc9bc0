import { createHash } from 'node:crypto';
import type { AuditRow } from '../../store/audit-repo.js';

/** The version of the canonical form, its first element (docs/supervision.md#the-canonical-form). */
const FORM_VERSION = 1;

/**
 * Text as both stores keep it: a lone surrogate becomes U+FFFD (UTF-8 cannot hold it) and so
 * does U+0000 (PostgreSQL text cannot), so the hash computed before the write is the hash of
 * what is read back.
 */
export function storableText(s: string): string {
  // Node 20 has toWellFormed; the compiler's library (ES2023) does not declare it yet.
  return (s as unknown as { toWellFormed(): string }).toWellFormed().replaceAll('\u0000', '\ufffd');
}

/**
 * A JSON value with every object's keys sorted (by UTF-16 code units), recursively, and its texts
 * as stored (storableText): no lone surrogate is left for JSON.stringify to escape, so a script
 * that parses the details and writes them again gets the same text.
 */
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(o)
        .filter((k) => o[k] !== undefined)
        .sort()
        .map((k) => [storableText(k), sorted(o[k])]),
    );
  }
  return typeof v === 'string' ? storableText(v) : v;
}

/** The canonical JSON text of a details object: keys sorted, no spaces (JSON.stringify's escapes). */
export function canonicalDetails(details: Record<string, unknown>): string {
  return JSON.stringify(sorted(details));
}

/**
 * The canonical form of a record, the text its hash is taken of: the JSON array
 * `[1, seq, at, actor, origin, channel, action, target, outcome, details, prev_hash]` written by
 * JSON.stringify (no spaces; `details` is the stored JSON text, as a string), encoded as UTF-8
 * (docs/supervision.md#the-canonical-form).
 */
function canonicalForm(r: Omit<AuditRow, 'hash'>): string {
  return JSON.stringify([FORM_VERSION, r.seq, r.at, r.actor, r.origin, r.channel, r.action, r.target, r.outcome, r.details, r.prev_hash]);
}

/** The SHA-256 (lowercase hex) of a record's canonical form. */
export function hashOf(r: Omit<AuditRow, 'hash'>): string {
  return createHash('sha256').update(canonicalForm(r), 'utf8').digest('hex');
}
