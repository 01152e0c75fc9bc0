/**
 * The store's contract (docs/architecture.md#the-store-contract): what the rest of sds codes
 * against, whatever database holds the store. Every repository method returns a promise, and a
 * transaction hands its scope `tx` explicitly: inside `store.transaction(async (tx) => …)` every
 * store call goes through `tx`, and nothing but store calls and computation is awaited (no file
 * or network I/O, no timers): the store waits for a transaction to end. SQLite implements it
 * (sqlite-store.ts) and PostgreSQL (postgresql/pg-store.ts).
 */
import type { HomePaths } from '../shared/home.js';
import type { FileStore } from './file-store-contract.js';
import type { MigrateResult } from './migrate.js';
import type { CheckpointOptions, WalCheckpointer } from './wal-checkpointer.js';
import type { StoreScope } from './store-scope-contract.js';

export type { RepoContract, StoreRepos, StoreScope } from './store-scope-contract.js';

/**
 * Turns to write, shared by the server processes of one `sds serve --workers N`: one holds the
 * turn at a time, the others wait for it without blocking their event loop
 * (docs/decisions.md#workers-on-one-machine-issue-29).
 */
export interface WriteTurns {
  /** Resolves once this process holds the turn. */
  take(): Promise<void>;
  /** Gives the turn back. */
  release(): void;
}

/** The local store of a home. */
export interface Store extends StoreScope {
  readonly home: HomePaths;
  /**
   * Where the bytes of media and synced files, application packages and binary case items live
   * (file-store-contract.ts): the home's folders for SQLite, the database for PostgreSQL.
   */
  readonly fileStore: FileStore;
  /** What opening the store migrated. */
  readonly migration: MigrateResult;
  /**
   * Runs `fn` in one read transaction, so that several reads see the same snapshot (a download
   * chunk and its count) without taking the write lock up front.
   */
  readTransaction<T>(fn: (tx: StoreScope) => Promise<T>): Promise<T>;
  /**
   * Moves WAL checkpoints (and their fsyncs) to a worker thread for the rest of this store's
   * life: for long write-heavy processes (`serve`, an import). Idempotent; a read-only or
   * in-memory store has nothing to checkpoint.
   */
  checkpointInBackground(opts?: CheckpointOptions): WalCheckpointer | undefined;
  /**
   * From now on, takes a turn of `turns` around each write transaction: SQLite's one writer is
   * then handed from process to process in order, instead of each waiting in SQLite's busy
   * handler, which sleeps and blocks the whole process. PostgreSQL locks rows, not the
   * database: it has nothing to share and ignores them.
   */
  shareWriteTurns(turns: WriteTurns): void;
  /**
   * Runs `fn`, a long series of commits acknowledged only when it ends, without an fsync per
   * commit, then makes all of it durable at once (also when `fn` fails). Only for a store that
   * nothing else writes through meanwhile (a CLI process).
   */
  deferSync<T>(fn: () => Promise<T>): Promise<T>;
  /** Makes every commit made so far durable on disk. */
  syncToDisk(): void;
  /**
   * Group commit for the rest of the store's life (`sds serve`): concurrent writes share one
   * fsync, each still resolving only once it is on disk (docs/durability.md#group-commit).
   * PostgreSQL groups its WAL flushes itself and ignores it.
   */
  groupCommits(opts?: { fsync?: () => Promise<void> }): void;
  /**
   * Resolves once every commit made so far is on disk: what a reply sends out (a download page)
   * is then never a write that a power cut could still take back. At once where each commit is
   * durable before it returns (PostgreSQL; SQLite without group commit).
   */
  durable(): Promise<void>;
  /**
   * Starts a read transaction: every read until `end()` sees the store as it was at the first
   * one. For a reader of its own connection that makes several passes, such as `sds export`.
   */
  beginReadSnapshot(): Promise<{ end(): Promise<void> }>;
  /** Closes the store once the transaction in progress, if any, has ended; a second close does nothing. */
  close(): Promise<void>;
}
