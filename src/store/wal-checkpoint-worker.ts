/**
 * Worker-thread entry that checkpoints the store's WAL on its own connection, so the fsyncs of
 * copying the WAL back into the database happen here and not in the commit of a request or an
 * import batch (see wal-checkpointer.ts). A passive checkpoint never blocks a writer or a reader
 * and never waits for a lock; one that finds the WAL busy simply runs again on the next tick.
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { CheckpointResult, CheckpointWorkerInput, FromCheckpointWorker, ToCheckpointWorker } from './wal-checkpoint-protocol.js';

const port = parentPort!;
const { path, intervalMs, closed } = workerData as CheckpointWorkerInput;
const db = new Database(path, { fileMustExist: true });
// As the store's own connection (open-store.ts). A checkpoint fsyncs the WAL before copying it
// and the database file after, at NORMAL or FULL alike; this connection writes nothing else.
db.pragma('synchronous = FULL');
// This connection only checkpoints: it never writes pages of its own.
db.pragma('wal_autocheckpoint = 0');

function checkpoint(): CheckpointResult {
  const [row] = db.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
  return row ?? { busy: 0, log: 0, checkpointed: 0 };
}

const timer = setInterval(() => {
  try {
    checkpoint();
  } catch {
    // A tick that fails (the file busy or being closed) is retried by the next one; the
    // writer's own auto-checkpoint still bounds the WAL meanwhile.
  }
}, intervalMs);

port.on('message', (m: ToCheckpointWorker) => {
  if (m.type === 'stop') {
    clearInterval(timer);
    db.close();
    const flag = new Int32Array(closed);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
    port.close();
    return;
  }
  let reply: FromCheckpointWorker;
  try {
    reply = { type: 'checkpointed', id: m.id, result: checkpoint() };
  } catch (err) {
    reply = { type: 'failed', id: m.id, message: (err as Error).message };
  }
  port.postMessage(reply);
});
