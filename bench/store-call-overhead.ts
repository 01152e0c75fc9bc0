// What the async store contract (docs/architecture.md#the-store-contract) costs per call on the
// SQLite store: the same statement run directly through better-sqlite3, awaited through a
// transaction's `tx` (the async method alone), and awaited through `store.X` (the gate and the
// inside-a-transaction check besides); then 500-case upload transactions written directly in one
// better-sqlite3 transaction and through `store.transaction(async (tx) => …)`.
// `node --import tsx bench/store-call-overhead.ts` (BENCH_CALLS, BENCH_TRANSACTIONS to change the counts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { resolveHome } from '../src/shared/home.js';
import { initHome } from '../src/core/home/init.js';
import { openStore, SqliteStore } from '../src/store/open-store.js';
import type { CaseWrite } from '../src/store/cases-repo.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 200_000);
const TRANSACTIONS = Number(process.env.BENCH_TRANSACTIONS ?? 40);
const CASES = 500;

const dir = mkdtempSync(join(tmpdir(), 'sds-store-bench-'));
const home = resolveHome(join(dir, 'home'));
await initHome(home);
const store = await openStore(home);
if (!(store instanceof SqliteStore)) throw new Error('a SQLite store was expected');
const db: Database = store.db;

/** Best of 3 runs of `fn`, in ns per call. */
async function nsPerCall(calls: number, fn: () => Promise<void> | void): Promise<number> {
  let best = Infinity;
  for (let run = 0; run < 3; run++) {
    const t0 = process.hrtime.bigint();
    await fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / calls);
  }
  return best;
}

try {
  await store.settings.set('bench', 'value');
  const stmt = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE name = ?');
  const lines: string[] = [];
  const row = (what: string, ns: number, base?: number) =>
    lines.push(
      `${what.padEnd(58)} ${(ns / 1000).toFixed(2).padStart(7)} µs/call${base ? `  (+${((ns - base) / 1000).toFixed(2)} µs)` : ''}`,
    );

  const direct = await nsPerCall(CALLS, () => {
    for (let i = 0; i < CALLS; i++) stmt.get('bench');
  });
  row(`direct better-sqlite3 statement × ${CALLS}`, direct);
  // Before any transaction has run, AsyncLocalStorage has not yet switched on its promise hooks.
  const gatedCold = await nsPerCall(CALLS, async () => {
    for (let i = 0; i < CALLS; i++) await store.settings.get('bench');
  });
  row('await store.settings.get (before any transaction)', gatedCold, direct);
  const directInTx = await nsPerCall(CALLS, () => {
    db.exec('BEGIN');
    for (let i = 0; i < CALLS; i++) stmt.get('bench');
    db.exec('COMMIT');
  });
  row('direct statement inside one read transaction', directInTx);
  const inTx = await nsPerCall(CALLS, () =>
    store.readTransaction(async (tx) => {
      for (let i = 0; i < CALLS; i++) await tx.settings.get('bench');
    }),
  );
  row('await tx.settings.get (inside one read transaction)', inTx, directInTx);
  const gated = await nsPerCall(CALLS, async () => {
    for (let i = 0; i < CALLS; i++) await store.settings.get('bench');
  });
  row('await store.settings.get (after transactions ran)', gated, direct);

  // 500-case upload transactions: a revision and 500 upserts, as a sync upload writes them.
  db.prepare(
    `INSERT INTO dictionaries (id, name, label, version, source, source_format, model, created_at, updated_at)
     VALUES (900, 'BENCH_DICT', 'bench', '7.7', x'00', 'text', '{}', 't', 't')`,
  ).run();
  const data = JSON.stringify({ ID: { A: '1' }, REC: Array.from({ length: 10 }, (_, i) => ({ V: `value ${i}` })) });
  let serial = 0;
  const batch = (): CaseWrite[] =>
    Array.from({ length: CASES }, () => {
      const n = serial++;
      return {
        guid: `${String(n).padStart(8, '0')}-0000-4000-8000-000000000000`,
        caseKey: `key ${n}`,
        label: `case ${n}`,
        data,
        verified: false,
        deleted: false,
        clock: [{ deviceId: 'bench', revision: 1 }] as unknown as CaseWrite['clock'],
        partialSave: null,
        notes: [],
      };
    });
  const cases = (await import('../src/store/cases-repo.js')).CasesRepo;
  const raw = new cases(db);
  const nextRevision = db.prepare('INSERT INTO revisions (dictionary_id, origin, created_at) VALUES (?, ?, ?)');
  // Without an fsync per commit, so that the comparison is of the code, not of the disk.
  db.pragma('synchronous = NORMAL');
  // Alternated, so that both write into a table of the same size (inserts slow down as it grows).
  let directUpload = 0;
  let asyncUpload = 0;
  for (let t = 0; t < TRANSACTIONS; t++) {
    const first = batch();
    const second = batch();
    const t0 = process.hrtime.bigint();
    // The repository's own upsert body in one synchronous better-sqlite3 transaction, as the
    // code ran before the contract: nothing awaited (its promise is settled when it returns).
    db.transaction(() => {
      const revision = Number(nextRevision.run(900, 'bench', new Date().toISOString()).lastInsertRowid);
      for (const c of first) void raw.upsert(900, c, revision);
    }).immediate();
    const t1 = process.hrtime.bigint();
    await store.transaction(async (tx) => {
      const revision = await tx.cases.nextRevision(900, 'bench');
      for (const c of second) await tx.cases.upsert(900, c, revision);
    });
    const t2 = process.hrtime.bigint();
    directUpload += Number(t1 - t0) / TRANSACTIONS;
    asyncUpload += Number(t2 - t1) / TRANSACTIONS;
  }
  lines.push(
    `500-case upload transaction, synchronous = NORMAL: direct ${(directUpload / 1e6).toFixed(2)} ms, ` +
      `store.transaction ${(asyncUpload / 1e6).toFixed(2)} ms (+${(((asyncUpload - directUpload) / directUpload) * 100).toFixed(1)} %)`,
  );
  console.log(lines.join('\n'));
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
