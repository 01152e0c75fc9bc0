// 1, 2 and 3 `sds serve` nodes behind nginx on one PostgreSQL store, under the mixed sync load of
// bench/workers.ts, alternated in one run (issue 29, item 6): `npm run bench -- nodes`. Every node,
// nginx, PostgreSQL and the load driver share this machine's cores, so the figures show what each
// node adds in overhead, not the scaling that nodes on machines of their own give
// (docs/production.md#sizing). Per run: uploaded cases/s and requests/s, download pages/s, upload
// p50 and p99, and CPU ms per request of the nodes and of PostgreSQL. Knobs: BENCH_NODES_ROUNDS
// (2), BENCH_NODES_COUNTS (1,2,3), BENCH_NODES_TABLETS (30), BENCH_NODES_READERS (5),
// BENCH_NODES_REQUESTS (20), BENCH_NODES_PER_REQUEST (50).
import { loadavg } from 'node:os';
import { readFileSync } from 'node:fs';
import { addUser } from '../src/core/auth/users.js';
import { uploadDictionary } from '../src/core/dictionaries/dictionaries.js';
import { startCluster } from '../test/helpers/cluster.js';
import { MIXED_DICT, mixedLoad, postgresCpuSeconds, tabletBodies } from './mixed-load.js';
import { serverCpuSeconds, tabletToken, uploadAll } from './sync-load.js';

const knob = (name: string, def: number) => Number(process.env[name] ?? def);
const ROUNDS = knob('BENCH_NODES_ROUNDS', 2);
const COUNTS = (process.env.BENCH_NODES_COUNTS ?? '1,2,3').split(',').map(Number);
const TABLETS = knob('BENCH_NODES_TABLETS', 30);
const READERS = knob('BENCH_NODES_READERS', 5);
const REQUESTS = knob('BENCH_NODES_REQUESTS', 20);
const PER_REQUEST = knob('BENCH_NODES_PER_REQUEST', 50);
const PASSWORD = 'bench-password-0123456789';
const fixture = (f: string) => new URL(`../fixtures/cspro/${f}`, import.meta.url).pathname;

interface Figures {
  cases_s: number;
  requests_s: number;
  pages_s: number;
  p50_ms: number;
  p99_ms: number;
  node_cpu_ms_per_request: number;
  pg_cpu_ms_per_request: number;
}

const seed = tabletBodies(TABLETS, 0, 1, Math.ceil(5000 / TABLETS));
const load = tabletBodies(TABLETS, 50_000, REQUESTS, PER_REQUEST);

async function runOnce(nodes: number): Promise<Figures> {
  const cluster = await startCluster({
    nodes,
    seed: async (store) => {
      await addUser(store, 'tablet', 'Standard', PASSWORD);
      const file = fixture('simple-capi.dcf');
      await uploadDictionary(store, { source: readFileSync(file), label: 'simplecapi', file });
    },
  });
  try {
    const token = await tabletToken(cluster.url, 'tablet', PASSWORD);
    await uploadAll(cluster.url, MIXED_DICT, token, seed);
    const cpu = () => cluster.nodes.reduce((s, n) => s + (serverCpuSeconds(n.serve.child.pid) ?? 0), 0);
    const cpu0 = cpu();
    const pg0 = postgresCpuSeconds();
    const run = await mixedLoad(cluster.url, token, load, PER_REQUEST, READERS);
    const requests = run.uploads + run.pages;
    return {
      cases_s: run.cases / run.uploadSeconds,
      requests_s: run.uploads / run.uploadSeconds,
      pages_s: run.pages / run.seconds,
      p50_ms: run.p50Ms,
      p99_ms: run.p99Ms,
      node_cpu_ms_per_request: ((cpu() - cpu0) * 1000) / requests,
      pg_cpu_ms_per_request: ((postgresCpuSeconds() - pg0) * 1000) / requests,
    };
  } finally {
    await cluster.stop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (x: number) => (x >= 100 ? String(Math.round(x)) : x.toFixed(2));
const runs: Record<number, Figures[]> = {};
const loads: number[] = [];
console.log(
  `nodes: ${ROUNDS} rounds of ${COUNTS.join(', ')} nodes behind nginx; ${TABLETS} tablets × ${REQUESTS} uploads of ${PER_REQUEST} cases, ${READERS} tablets downloading meanwhile`,
);
for (let round = 0; round < ROUNDS; round++) {
  for (const n of round % 2 === 0 ? COUNTS : [...COUNTS].reverse()) {
    const la = loadavg()[0]!;
    loads.push(la);
    const f = await runOnce(n);
    (runs[n] ??= []).push(f);
    console.log(
      `round ${round + 1} ${n} node(s) load ${la.toFixed(1)}: ${fmt(f.cases_s)} cases/s, ${fmt(f.requests_s)} uploads/s, ${fmt(f.pages_s)} pages/s, ` +
        `p50 ${fmt(f.p50_ms)} p99 ${fmt(f.p99_ms)} ms, CPU ms/request: nodes ${fmt(f.node_cpu_ms_per_request)}, PostgreSQL ${fmt(f.pg_cpu_ms_per_request)}`,
    );
  }
}
console.log(
  `\n${'nodes'.padEnd(6)} ${'cases/s'.padStart(8)} ${'uploads/s'.padStart(10)} ${'pages/s'.padStart(8)} ${'p99 ms'.padStart(7)} ${'node ms/req'.padStart(12)} ${'PG ms/req'.padStart(10)}`,
);
const medians: Record<number, Figures> = {};
for (const n of COUNTS) {
  const fs = runs[n]!;
  const m = Object.fromEntries(
    (Object.keys(fs[0]!) as (keyof Figures)[]).map((k) => [k, median(fs.map((f) => f[k]))]),
  ) as unknown as Figures;
  medians[n] = m;
  console.log(
    `${String(n).padEnd(6)} ${fmt(m.cases_s).padStart(8)} ${fmt(m.requests_s).padStart(10)} ${fmt(m.pages_s).padStart(8)} ${fmt(m.p99_ms).padStart(7)} ${fmt(m.node_cpu_ms_per_request).padStart(12)} ${fmt(m.pg_cpu_ms_per_request).padStart(10)}`,
  );
}
console.log(`load average over the runs: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`);
console.log(
  JSON.stringify({
    rounds: ROUNDS,
    tablets: TABLETS,
    readers: READERS,
    requests: REQUESTS,
    per_request: PER_REQUEST,
    loads,
    runs,
    medians,
  }),
);
