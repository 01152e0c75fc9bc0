/**
 * The fsync of a SQLite store's write-ahead log for group commit (docs/durability.md#group-commit),
 * through one descriptor held for the store's life instead of one opened and closed per fsync:
 * each open and close is a round trip through libuv's thread pool, and with one tablet syncing
 * they add up to a request's time (docs/decisions.md, "The WAL's descriptor held open").
 *
 * Holding it is safe because the store's own connection holds the same file open: SQLite removes
 * the WAL only when its last connection closes, so while the store is open the path names the
 * file the connection writes, and an fsync through any descriptor of it flushes it.
 */
import { close, fsync, open } from 'node:fs';
import { promisify } from 'node:util';
import { fsyncFileAsync } from '../shared/durable-file.js';

const openFile = promisify(open);
const fsyncFd = promisify(fsync);
const closeFd = promisify(close);

/** The group fsync of one store's WAL through a descriptor opened once (this file's header). */
export class WalFileSync {
  private fd: number | undefined;
  private inFlight: Promise<void> | undefined;
  private closed = false;

  /** `db`: the database file; its WAL is `db`-wal. */
  constructor(private readonly db: string) {}

  /**
   * Flushes the WAL to disk; the database file instead while there is no WAL yet (a store that
   * has not written), opening the WAL again at the next call. One call at a time (GroupFsync).
   */
  sync(): Promise<void> {
    const run = this.flush();
    this.inFlight = run.catch(() => {});
    return run;
  }

  /**
   * Closes the descriptor once the fsync in flight, if any, has ended. A later call opens the
   * file by its path for that fsync alone, as before the descriptor was held.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.inFlight;
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) await closeFd(fd);
  }

  private async flush(): Promise<void> {
    if (this.closed) return fsyncWalByPath(this.db);
    if (this.fd === undefined) {
      try {
        this.fd = await openFile(`${this.db}-wal`, 'r+');
      } catch (err) {
        return databaseFileWithoutWal(err, this.db);
      }
    }
    await fsyncFd(this.fd);
  }
}

/** Fsyncs a store's WAL file opened by its path; its database file when it has no WAL. */
async function fsyncWalByPath(db: string): Promise<void> {
  try {
    await fsyncFileAsync(`${db}-wal`);
  } catch (err) {
    await databaseFileWithoutWal(err, db);
  }
}

/** After `err` reaching the WAL: the database file fsynced when the WAL does not exist (yet); `err` otherwise. */
async function databaseFileWithoutWal(err: unknown, db: string): Promise<void> {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  await fsyncFileAsync(db);
}
