/** Messages between the store and its checkpoint worker (wal-checkpoint-worker.ts). */

export interface CheckpointWorkerInput {
  /** The store's SQLite file. */
  path: string;
  /** Milliseconds between two passive checkpoints. */
  intervalMs: number;
  /**
   * One Int32 the worker sets to 1 (and notifies) once its connection is closed after a `stop`,
   * so that the store's close can wait for it (wal-checkpointer.ts).
   */
  closed: SharedArrayBuffer;
}

/** What `PRAGMA wal_checkpoint(PASSIVE)` reports: frames in the WAL and frames copied back. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

export type ToCheckpointWorker = { type: 'checkpoint'; id: number } | { type: 'stop' };

export type FromCheckpointWorker =
  { type: 'checkpointed'; id: number; result: CheckpointResult } | { type: 'failed'; id: number; message: string };
