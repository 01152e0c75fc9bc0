import { createHash } from 'node:crypto';

/** What sds keeps of a package's deployment specification (its `package.json`), docs/sync.md#apps. */
export interface AppPackageSpec {
  description: string | null;
  version: string | null;
  /** The `buildTime` it states, in epoch milliseconds; absent when missing or not a date. */
  buildTimeMs?: number;
  /** The `files` list as JSON text; null when there is none. */
  files: string | null;
  /** md5 (hex) of the exact bytes, as CSWeb computes a package's signature: what the client sends as `If-None-Match`. */
  signature: string;
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * Reads a package's `package.json` (or an old package's `package.csds`, when that is JSON): its
 * description, version, build time and files list, and its signature. A leading BOM is allowed;
 * a field of the wrong type is treated as missing. Text that is not a JSON object is `problem`.
 */
export function parseAppPackageSpec(bytes: Buffer): { spec: AppPackageSpec } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (err) {
    return { problem: `it is not JSON (${(err as Error).message})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { problem: 'it is not a JSON object' };
  const o = value as Record<string, unknown>;
  const version = typeof o.version === 'number' && Number.isFinite(o.version) ? String(o.version) : text(o.version);
  const built = typeof o.buildTime === 'string' ? Date.parse(o.buildTime) : NaN;
  return {
    spec: {
      description: text(o.description),
      version,
      ...(Number.isNaN(built) ? {} : { buildTimeMs: built }),
      files: Array.isArray(o.files) ? JSON.stringify(o.files) : null,
      signature: createHash('md5').update(bytes).digest('hex'),
    },
  };
}
