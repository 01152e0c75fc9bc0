// The mixed sync load of bench/workers.ts and bench/nodes.ts (issue 29, item 6): tablets uploading
// prepared bodies (each waiting for its reply before the next, as the client does) while other
// tablets download the dictionary in pages over and over until the uploads end; and the CPU
// seconds of PostgreSQL's own processes, which a server's /proc figures leave out.
import { readdirSync, readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { simplecapiCase } from './make-simplecapi-cases.js';
import { percentile, uploadAll, type TabletUploads } from './sync-load.js';

export const MIXED_DICT = 'SIMPLECAPI_DICT';
const PAGE = 100;

/** `tablets` tablets' request bodies: `requests` zlib JSON arrays of `perRequest` cases each, case ids from `base`. */
export function tabletBodies(tablets: number, base: number, requests: number, perRequest: number): TabletUploads[] {
  return Array.from({ length: tablets }, (_, t) => {
    const device = `bench-tablet-${t}`;
    return {
      device,
      bodies: Array.from({ length: requests }, (_, q) => {
        const first = base + t * 100_000 + q * perRequest;
        return deflateSync(JSON.stringify(Array.from({ length: perRequest }, (_, j) => simplecapiCase(first + j, device))));
      }),
    };
  });
}

/** Downloads the dictionary in pages, again and again, until `done()`; pages downloaded. */
async function readLoop(url: string, token: string, device: string, done: () => boolean): Promise<number> {
  let pages = 0;
  while (!done()) {
    let after: string | undefined;
    let last: string | undefined;
    for (;;) {
      const r = await fetch(`${url}/api/dictionaries/${MIXED_DICT}/cases`, {
        headers: {
          authorization: `Bearer ${token}`,
          'x-csw-device': device,
          'x-csw-case-range-count': String(PAGE),
          ...(last ? { 'x-csw-if-revision-exists': last } : {}),
          ...(after ? { 'x-csw-case-range-start-after': after } : {}),
        },
      });
      last = r.headers.get('x-csw-chunk-max-revision')!;
      if (r.status !== 200 && r.status !== 206) throw new Error(`download: ${r.status} ${await r.text()}`);
      const chunk = (await r.json()) as { id: string }[];
      pages += 1;
      if (r.status === 200 || done()) break;
      after = chunk.at(-1)!.id;
    }
  }
  return pages;
}

/** What one mixed run moved: uploads (requests, cases, latencies) and download pages, over `seconds`. */
export interface MixedRun {
  uploads: number;
  cases: number;
  pages: number;
  seconds: number;
  uploadSeconds: number;
  p50Ms: number;
  p99Ms: number;
}

/** Uploads `load` (`perRequest` cases in each body) while `readers` tablets download, until the uploads end. */
export async function mixedLoad(url: string, token: string, load: TabletUploads[], perRequest: number, readers: number): Promise<MixedRun> {
  const t0 = performance.now();
  let finished = false;
  const reading = Array.from({ length: readers }, (_, i) => readLoop(url, token, `bench-reader-${i}`, () => finished));
  const up = await uploadAll(url, MIXED_DICT, token, load).finally(() => (finished = true));
  const pages = (await Promise.all(reading)).reduce((a, b) => a + b, 0);
  const uploads = load.reduce((n, t) => n + t.bodies.length, 0);
  return {
    uploads,
    cases: uploads * perRequest,
    pages,
    seconds: (performance.now() - t0) / 1000,
    uploadSeconds: up.seconds,
    p50Ms: percentile(up.latenciesMs, 50),
    p99Ms: percentile(up.latenciesMs, 99),
  };
}

/** User + system CPU seconds of every process named `postgres` (Linux /proc): the PostgreSQL server's work. */
export function postgresCpuSeconds(): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (!stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).startsWith('postgres')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}
