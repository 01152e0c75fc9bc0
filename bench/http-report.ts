// The result of bench/http.ts and its human-readable lines, shared by that script and bench/run.ts.

/** One measured load run against one endpoint. */
export interface HttpRun {
  name: string;
  method: string;
  path: string;
  connections: number;
  seconds: number;
  requests: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  status_codes: Record<string, number>;
  /** False when any reply was not 2xx or any request failed: the speed is then not a result. */
  ok: boolean;
}

export interface HttpBenchResult {
  cases: number;
  server_peak_rss_mb: number | null;
  runs: HttpRun[];
  ok: boolean;
}

export function httpLines(r: HttpBenchResult): string[] {
  return r.runs.map((run) => {
    const label = `http ${run.name}`.padEnd(22);
    if (!run.ok && run.requests === 0)
      return `${label} FAILED: no reply within the run (${run.errors} errors, ${run.timeouts} timeouts); no speed reported`;
    if (!run.ok) {
      const codes = Object.entries(run.status_codes)
        .map(([code, n]) => `${code}: ${n}`)
        .join(', ');
      return `${label} FAILED: ${run.non2xx} non-2xx replies (${codes}), ${run.errors} errors, ${run.timeouts} timeouts of ${run.requests} requests; no speed reported`;
    }
    return `${label} ${Math.round(run.rps)} req/s, p99 ${run.p99_ms} ms (p50 ${run.p50_ms} ms, max ${run.max_ms} ms; ${run.connections} connections, ${run.seconds} s, ${r.cases} cases stored)`;
  });
}
