/**
 * Two transactions at once on two connections of a PostgreSQL store, overlapping for certain:
 * for the tests that show a place SQLite's one writer made safe stays safe on PostgreSQL
 * (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
 */
import type { StoreScope } from '../../src/store/open-store.js';
import type { PostgresStore } from '../../src/store/postgresql/pg-store.js';
import { openTestStore } from './store-kinds.js';

/** What each of the two transactions came to, and whether the second had to wait for the first. */
export interface RaceOutcome<A, B> {
  first: PromiseSettledResult<A>;
  second: PromiseSettledResult<B>;
  /** The second transaction was seen waiting for a lock while the first held its transaction open. */
  secondWaited: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `first` in a transaction and holds that transaction open once `first` resolved; then runs
 * `second` in another transaction, on another connection, until it either ends or is seen (in
 * pg_stat_activity) waiting for a lock of this database; then lets the first commit (or roll
 * back, when `first` threw). `readOnlySecond` runs the second in `store.readTransaction` instead.
 * Throws when the second neither ends nor waits within `timeoutMs`.
 */
export async function raceTwoTransactions<A, B>(
  store: PostgresStore,
  first: (tx: StoreScope) => Promise<A>,
  second: (tx: StoreScope) => Promise<B>,
  { readOnlySecond = false, timeoutMs = 5000 }: { readOnlySecond?: boolean; timeoutMs?: number } = {},
): Promise<RaceOutcome<A, B>> {
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const firstDone = store.transaction(async (tx) => {
    try {
      return await first(tx);
    } finally {
      holding();
      await released;
    }
  });
  firstDone.catch(() => undefined);
  await held;
  let secondEnded = false;
  const secondDone = (readOnlySecond ? store.readTransaction(second) : store.transaction(second)).finally(() => (secondEnded = true));
  secondDone.catch(() => undefined);
  let secondWaited = false;
  try {
    // A guard against a hang, not a speed check: it counts polls, not the clock.
    for (let polls = 0; !secondEnded && !secondWaited; polls++, await sleep(5)) {
      if (polls > timeoutMs / 5) throw new Error(`the second transaction neither ended nor waited for a lock in ${polls} polls`);
      const r = await store.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      secondWaited = r.rows[0]!.n > 0;
    }
  } finally {
    release();
  }
  const [a, b] = await Promise.allSettled([firstDone, secondDone]);
  return { first: a, second: b, secondWaited };
}

/** Runs `fn` on a new PostgreSQL store of its own (the races need its pool), dropped after it. */
export async function onPostgresStore(fn: (store: PostgresStore) => Promise<void>): Promise<void> {
  const { store, cleanup } = await openTestStore('postgresql');
  try {
    await fn(store as PostgresStore);
  } finally {
    await cleanup();
  }
}
