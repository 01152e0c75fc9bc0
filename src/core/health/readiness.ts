import { statfsSync } from 'node:fs';
import { loadMigrations } from '../../store/migrate.js';
import type { Store } from '../../store/open-store.js';

/** Free space of a file system, as `fs.statfsSync` reports it. */
export interface FsSpace {
  bavail: number;
  bsize: number;
}

/** One check of `GET /readyz`. */
export type ReadyCheck =
  | { name: 'store'; ok: boolean; message?: string }
  | { name: 'migrations'; ok: boolean; applied?: number; latest: number; message?: string }
  | { name: 'disk'; ok: boolean; free_bytes?: number; min_free_bytes: number; message?: string };

/** The readiness of the server: every check, and the names of those that failed. */
export interface Readiness {
  ready: boolean;
  failed: string[];
  checks: ReadyCheck[];
}

export interface ReadinessOptions {
  /** The free-space floor in bytes (healthSettings). */
  minFreeBytes: number;
  /** Reads the free space of the file system holding a path (default `fs.statfsSync`); tests inject one. */
  statfs?: (path: string) => FsSpace;
  /** The latest schema version this build knows (default: its last migration). */
  latestSchema?: number;
}

const reason = (err: unknown): string => (err instanceof Error ? err.message : String(err));

let shippedLatest: number | undefined;

/**
 * Whether the server can do its work now (docs/http-api.md#health-and-readiness): the store takes
 * a write (the write lock and a commit), its schema is the one this build migrates to, and the
 * home's file system has more free space than the floor. Each check runs even when another
 * fails, so the reply names every failing one. Messages name no paths: the route is public.
 */
async function checkReadiness(store: Store, opts: ReadinessOptions): Promise<Readiness> {
  const checks: ReadyCheck[] = [];
  try {
    await store.monitoring.probeWrite();
    checks.push({ name: 'store', ok: true });
  } catch (err) {
    checks.push({ name: 'store', ok: false, message: `the store cannot take a write: ${reason(err)}` });
  }
  const latest = opts.latestSchema ?? (shippedLatest ??= loadMigrations().at(-1)?.version ?? 0);
  try {
    const applied = await store.monitoring.schemaVersion();
    const ok = applied === latest;
    checks.push({
      name: 'migrations',
      ok,
      applied,
      latest,
      ...(ok
        ? {}
        : {
            message:
              applied < latest
                ? `the store is at schema version ${applied}, this sds needs ${latest}: run sds migrate`
                : `the store is at schema version ${applied}, newer than this sds knows (${latest}): upgrade sds`,
          }),
    });
  } catch (err) {
    checks.push({ name: 'migrations', ok: false, latest, message: `cannot read the store's schema version: ${reason(err)}` });
  }
  try {
    const fs = (opts.statfs ?? statfsSync)(store.home.root);
    const free = Number(fs.bavail) * Number(fs.bsize);
    const ok = free >= opts.minFreeBytes;
    checks.push({
      name: 'disk',
      ok,
      free_bytes: free,
      min_free_bytes: opts.minFreeBytes,
      ...(ok ? {} : { message: `${free} bytes free on the home's file system, below the floor of ${opts.minFreeBytes}` }),
    });
  } catch (err) {
    checks.push({ name: 'disk', ok: false, min_free_bytes: opts.minFreeBytes, message: `cannot read the free space: ${reason(err)}` });
  }
  const failed = checks.filter((c) => !c.ok).map((c) => c.name);
  return { ready: failed.length === 0, failed, checks };
}

/**
 * `checkReadiness` behind a short memory (docs/http-api.md#health-and-readiness): an answer is
 * reused for `maxAgeMs` of `clock` time, so however often the public route is polled, the store
 * takes at most one probe write per period. 0 checks on every call. The answer kept is the
 * check's promise, so probes that arrive while a check runs share it rather than each writing.
 */
export function readinessProbe(store: Store, opts: ReadinessOptions, clock: () => number, maxAgeMs: number): () => Promise<Readiness> {
  let last: { at: number; readiness: Promise<Readiness> } | undefined;
  return () => {
    const now = clock();
    // A clock that went back (a corrected system time) starts a new period.
    if (last && now >= last.at && now - last.at < maxAgeMs) return last.readiness;
    const readiness = checkReadiness(store, opts);
    last = { at: now, readiness };
    // A check that threw is not kept: the next probe checks again.
    readiness.catch(() => {
      if (last?.readiness === readiness) last = undefined;
    });
    return readiness;
  };
}
