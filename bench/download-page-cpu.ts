// The CPU a download page costs in the server's process, without HTTP (bench/README.md, "Pages
// from stored text"): BENCH_PAGE_CASES SIMPLECAPI cases (default 20,000) uploaded through the sync
// path into a new home of the run's store (SDS_TEST_STORE, SQLite by default), then downloaded from
// scratch in pages of 100 through the same calls as the route (downloadCases, chunkJson, the body's
// UTF-8 bytes, chunkBinaryItems), BENCH_PAGE_ROUNDS times (default 5) after one warm-up download. Prints the CPU time
// (user + system, process.cpuUsage) per page of each round and their median, as one JSON line.
// BENCH_PAGE_API=3 builds CSPro 8.1's case JSON instead of the older form. PostgreSQL's own CPU is
// not counted.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { uploadDictionary } from '../src/core/dictionaries/index.js';
import { chunkJson, downloadCases, uploadCases } from '../src/core/sync/sync.js';
import { chunkBinaryItems } from '../src/core/sync/binary-items.js';
import { openStore } from '../src/store/open-store.js';
import type { DownloadRequest } from '../src/sync/headers.js';
import { simplecapiCase } from './make-simplecapi-cases.js';
import { fixture, tempHome, testStoreKind } from '../test/helpers/temp-home.js';

const N = Number(process.env.BENCH_PAGE_CASES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_PAGE_ROUNDS ?? 5);
const API = process.env.BENCH_PAGE_API === '3' ? 3 : 2;
const DICT = 'SIMPLECAPI_DICT';

const home = await tempHome();
const store = await openStore(home);
try {
  const file = fixture('simple-capi.dcf');
  await uploadDictionary(store, { source: readFileSync(file), label: 'simplecapi', file });
  for (let i = 0; i < N; i += 500) {
    const batch = Array.from({ length: Math.min(500, N - i) }, (_, k) => simplecapiCase(i + k, 'bench-tablet'));
    await uploadCases(
      store,
      DICT,
      (async function* () {
        yield batch;
      })(),
      { device: 'bench-tablet' },
      'bench',
    );
  }

  /** One download from scratch by a new device; the number of pages. */
  const download = async (device: string): Promise<number> => {
    let req: DownloadRequest = {
      device,
      lastRevision: 0,
      hasLastRevision: false,
      startAfter: '',
      count: 100,
      universe: '',
      excludeRevisions: [],
    };
    for (let pages = 1; ; pages++) {
      const chunk = await downloadCases(store, DICT, req, 'bench');
      Buffer.from(await chunkJson(store, DICT, chunk, API));
      await chunkBinaryItems(store, chunk, API);
      const last = chunk.cases.at(-1);
      if (chunk.status === 200 || !last) return pages;
      req = { ...req, lastRevision: last.revision, hasLastRevision: true, startAfter: last.guid };
    }
  };
  await download('warm-up');
  const perPage: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const before = process.cpuUsage();
    const pages = await download(`tablet-${r}`);
    const used = process.cpuUsage(before);
    perPage.push(Math.round((used.user + used.system) / pages));
  }
  const sorted = [...perPage].sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      store: testStoreKind(),
      api: API,
      cases: N,
      cpu_us_per_page: perPage,
      median_cpu_us_per_page: sorted[sorted.length >> 1],
      load_average: loadavg().map((l) => Number(l.toFixed(2))),
    }),
  );
} finally {
  await store.close();
  await home.cleanup();
}
