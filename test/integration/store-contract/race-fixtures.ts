/**
 * Fixtures of the store-contract tests of the webhook queue, webhooks, follow-ups and breakout
 * state: a stored dictionary, and transactions that overlap on PostgreSQL and queue on SQLite
 * (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dictionary } from '../../../src/cspro/dictionary/model.js';
import type { PostgresStore } from '../../../src/store/postgresql/pg-store.js';
import type { Store, StoreScope } from '../../../src/store/store-contract.js';
import type { StoreKind } from '../../helpers/store-kinds.js';

/** A stored dictionary named `name` (the tables of these repositories refer to it); its id. */
export async function dictionary(s: StoreScope, name: string): Promise<number> {
  const saved = await s.dictionaries.save({
    name,
    label: name,
    version: 'CSPro 8.0',
    description: '',
    source: Buffer.from(`[Dictionary]\nName=${name}\n`),
    sourceFormat: 'text',
    syncName: null,
    model: { name } as unknown as Dictionary,
  });
  return saved.row.id;
}

/**
 * Resolves once a connection of a PostgreSQL store waits for a lock (the second of two
 * overlapping transactions); on SQLite at once, since the second waits for the first's gate.
 */
export async function untilSomeoneWaits(store: Store, kind: StoreKind): Promise<void> {
  if (kind === 'sqlite') return;
  const pool = (store as unknown as PostgresStore).pool;
  for (let i = 0; i < 400; i++) {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (rows[0]!.n > 0) return;
    await sleep(10);
  }
  throw new Error('the second transaction never waited for the first');
}

/**
 * A transaction that runs `first`, then waits for `release` before it commits; `entered` resolves
 * after `first`. Released after 15 s anyway, so that a failed test ends instead of waiting for it.
 */
export function heldTransaction<T>(store: Store, first: (tx: StoreScope) => Promise<T>) {
  let entered!: () => void;
  const isEntered = new Promise<void>((resolve) => (entered = resolve));
  let resolveReleased!: () => void;
  const released = new Promise<void>((resolve) => (resolveReleased = resolve));
  const safety = setTimeout(() => release(), 15_000);
  const release = () => {
    clearTimeout(safety);
    resolveReleased();
  };
  const done = store.transaction(async (tx) => {
    const out = await first(tx);
    entered();
    await released;
    return out;
  });
  return { entered: isEntered, release, done };
}

/**
 * Runs `first` in a transaction kept open until `second` (started outside it once `first` is
 * done) waits for it on PostgreSQL; then commits. Both results.
 */
export async function overlapping<A, B>(store: Store, kind: StoreKind, first: (tx: StoreScope) => Promise<A>, second: () => Promise<B>) {
  const held = heldTransaction(store, first);
  await held.entered;
  const b = second();
  try {
    await untilSomeoneWaits(store, kind);
  } finally {
    held.release();
  }
  return { a: await held.done, b: await b };
}

/** `p`, or a failure after 10 s: a test that would wait for ever fails instead. */
export async function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting after 10 s`)), 10_000);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
