// The sync benchmarks' client side (bench/sync.ts, bench/store-compare.ts): a token for a tablet
// account, uploads of prepared zlib bodies by one or many tablets at once (each waiting for its
// reply before the next request, as the client does), a whole download in pages with the revision
// headers and the guid cursor, and the server's CPU time from /proc.
import { existsSync, readFileSync } from 'node:fs';

/** User + system CPU seconds of a process so far (Linux /proc), or undefined elsewhere. */
export function serverCpuSeconds(pid: number | undefined): number | undefined {
  const file = `/proc/${pid}/stat`;
  if (pid === undefined || !existsSync(file)) return undefined;
  const stat = readFileSync(file, 'utf8');
  // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The peak resident memory of a process in MB (Linux /proc `VmHWM`), or undefined. */
export function peakRssMb(pid: number | undefined): number | undefined {
  const file = `/proc/${pid}/status`;
  const hwm = /VmHWM:\s+(\d+) kB/.exec(pid !== undefined && existsSync(file) ? readFileSync(file, 'utf8') : '');
  return hwm ? Number(hwm[1]) / 1024 : undefined;
}

/** An access token by the password grant, as the data-collection client logs in. */
export async function tabletToken(url: string, username: string, password: string): Promise<string> {
  const reply = await fetch(`${url}/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username, password, client_id: 'cspro_android', client_secret: 'cspro' }),
  });
  if (reply.status !== 200) throw new Error(`token ${reply.status}: ${await reply.text()}`);
  return ((await reply.json()) as { access_token: string }).access_token;
}

/** One tablet's uploads: its device id and its request bodies (zlib JSON arrays of cases), in order. */
export interface TabletUploads {
  device: string;
  bodies: Buffer[];
}

/**
 * Every tablet uploads its bodies one request after the other, all tablets at once; any answer
 * but 200 throws. The wall time of the whole, and each request's latency in ms.
 */
export async function uploadAll(
  url: string,
  dict: string,
  token: string,
  tablets: TabletUploads[],
): Promise<{ seconds: number; latenciesMs: number[] }> {
  const latenciesMs: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    tablets.map(async ({ device, bodies }) => {
      for (const body of bodies) {
        const s = performance.now();
        const r = await fetch(`${url}/api/dictionaries/${dict}/cases`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'x-csw-device': device,
            'content-type': 'application/json; charset=utf-8',
            'content-encoding': 'gzip',
          },
          body,
        });
        if (r.status !== 200) throw new Error(`upload by ${device}: ${r.status} ${await r.text()}`);
        await r.arrayBuffer();
        latenciesMs.push(performance.now() - s);
      }
    }),
  );
  return { seconds: (performance.now() - t0) / 1000, latenciesMs };
}

/** Downloads the whole dictionary as `device`, in pages of `page` cases: pages, cases and wall time. */
export async function downloadAll(
  url: string,
  dict: string,
  token: string,
  device: string,
  page: number,
): Promise<{ pages: number; cases: number; seconds: number }> {
  const t0 = performance.now();
  let pages = 0;
  let cases = 0;
  let last: string | undefined;
  let after: string | undefined;
  for (;;) {
    const r = await fetch(`${url}/api/dictionaries/${dict}/cases`, {
      headers: {
        authorization: `Bearer ${token}`,
        'x-csw-device': device,
        'x-csw-case-range-count': String(page),
        ...(last ? { 'x-csw-if-revision-exists': last } : {}),
        ...(after ? { 'x-csw-case-range-start-after': after } : {}),
      },
    });
    if (r.status !== 200 && r.status !== 206) throw new Error(`download page ${pages + 1}: ${r.status} ${await r.text()}`);
    const chunk = (await r.json()) as { id: string }[];
    pages += 1;
    cases += chunk.length;
    last = r.headers.get('x-csw-chunk-max-revision')!;
    if (r.status === 200) break;
    after = chunk.at(-1)!.id;
  }
  return { pages, cases, seconds: (performance.now() - t0) / 1000 };
}

/** The `p`-th percentile (0–100) of `values`, nearest rank; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
