import { chmodSync, closeSync, existsSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { AppError } from '../shared/errors.js';
import { fsyncDirectory, fsyncFile } from '../shared/durable-file.js';
import type { HomePaths } from '../shared/home.js';
import { currentVersion, migrate, requireCurrentSchema, schemaStatus, type MigrateResult, type SchemaStatus } from './migrate.js';
import { requireHome } from './require-home.js';
import { DictionariesRepo } from './dictionaries-repo.js';
import { CasesRepo } from './cases-repo.js';
import { BinaryItemsRepo } from './binary-items-repo.js';
import { UsersRepo } from './users-repo.js';
import { FilesRepo } from './files-repo.js';
import { SettingsRepo } from './settings-repo.js';
import { RefreshTokensRepo } from './refresh-tokens-repo.js';
import { TargetsRepo } from './targets-repo.js';
import { JobsRepo } from './jobs-repo.js';
import { BreakoutStateRepo } from './breakout-state-repo.js';
import { BreakoutLogRepo } from './breakout-log-repo.js';
import { SchedulesRepo } from './schedules-repo.js';
import { SyncRepo } from './sync-repo.js';
import { WebhooksRepo } from './webhooks-repo.js';
import { WebhookQueueRepo } from './webhook-queue-repo.js';
import { RateLimitRepo } from './rate-limit-repo.js';
import { FollowUpsRepo } from './follow-ups-repo.js';
import { LoginThrottleRepo } from './login-throttle-repo.js';
import { LogRetentionRepo } from './log-retention-repo.js';
import { MonitoringRepo } from './monitoring-repo.js';
import { AppPackagesRepo } from './app-packages-repo.js';
import { CaseQueriesRepo } from './case-queries-repo.js';
import { CHECKPOINT_DEFAULTS, WalCheckpointer, type CheckpointOptions } from './wal-checkpointer.js';

/** The local store: one SQLite file and a repository per table group. Only store/ touches it. */
export class Store {
  readonly dictionaries: DictionariesRepo;
  readonly cases: CasesRepo;
  readonly binaryItems: BinaryItemsRepo;
  readonly users: UsersRepo;
  readonly files: FilesRepo;
  readonly settings: SettingsRepo;
  readonly refreshTokens: RefreshTokensRepo;
  readonly targets: TargetsRepo;
  readonly jobs: JobsRepo;
  readonly breakoutState: BreakoutStateRepo;
  readonly breakoutLog: BreakoutLogRepo;
  readonly schedules: SchedulesRepo;
  readonly sync: SyncRepo;
  readonly webhooks: WebhooksRepo;
  readonly webhookQueue: WebhookQueueRepo;
  readonly rateLimit: RateLimitRepo;
  readonly followUps: FollowUpsRepo;
  readonly loginThrottle: LoginThrottleRepo;
  readonly logRetention: LogRetentionRepo;
  readonly monitoring: MonitoringRepo;
  readonly appPackages: AppPackagesRepo;
  readonly caseQueries: CaseQueriesRepo;

  constructor(
    readonly db: Db,
    readonly home: HomePaths,
    readonly migration: MigrateResult,
  ) {
    this.dictionaries = new DictionariesRepo(db);
    this.cases = new CasesRepo(db);
    this.binaryItems = new BinaryItemsRepo(db);
    this.users = new UsersRepo(db);
    this.files = new FilesRepo(db);
    this.settings = new SettingsRepo(db);
    this.refreshTokens = new RefreshTokensRepo(db);
    this.targets = new TargetsRepo(db);
    this.jobs = new JobsRepo(db);
    this.breakoutState = new BreakoutStateRepo(db);
    this.breakoutLog = new BreakoutLogRepo(db);
    this.schedules = new SchedulesRepo(db);
    this.sync = new SyncRepo(db);
    this.webhooks = new WebhooksRepo(db);
    this.webhookQueue = new WebhookQueueRepo(db);
    this.rateLimit = new RateLimitRepo(db);
    this.followUps = new FollowUpsRepo(db, this.jobs);
    this.loginThrottle = new LoginThrottleRepo(db);
    this.logRetention = new LogRetentionRepo(db);
    this.monitoring = new MonitoringRepo(db);
    this.appPackages = new AppPackagesRepo(db);
    this.caseQueries = new CaseQueriesRepo(db);
  }

  /**
   * Runs `fn` in one IMMEDIATE write transaction of the whole store: every repository written
   * inside commits or rolls back together (a case write and its sync history, a change and the
   * deliveries queued for it). Transactions belong to the store, not to one repository, because
   * they span several (docs/decisions.md, "Transactions are the store's"). Nested calls become
   * savepoints of the outer transaction.
   */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /**
   * Runs `fn` in one DEFERRED (read) transaction, so that several reads see the same snapshot
   * (a download chunk and its count) without taking the write lock up front.
   */
  readTransaction<T>(fn: () => T): T {
    return this.db.transaction(fn).deferred();
  }

  private checkpointer: WalCheckpointer | undefined;

  /**
   * Moves WAL checkpoints (and their fsyncs) to a worker thread for the rest of this store's
   * life: for long write-heavy processes (`serve`, an import), whose commits would otherwise
   * stop to checkpoint. Idempotent; a read-only or in-memory store has nothing to checkpoint.
   */
  checkpointInBackground(opts: CheckpointOptions = {}): WalCheckpointer | undefined {
    if (this.checkpointer?.running) return this.checkpointer;
    if (this.db.readonly || this.db.memory) return undefined;
    this.checkpointer = WalCheckpointer.start(this.db.name, opts);
    this.db.pragma(`wal_autocheckpoint = ${opts.backstopPages ?? CHECKPOINT_DEFAULTS.backstopPages}`);
    return this.checkpointer;
  }

  /**
   * Runs `fn`, a long series of commits that is acknowledged only when it ends (`sds cases
   * import` reports once, at exit), without an fsync per commit, then makes all of it durable at
   * once: the connection goes back to `synchronous = FULL` and the WAL and database files are
   * fsynced, also when `fn` fails (its committed batches stay, durably). A power cut in between
   * loses only commits nobody was told about. Only for a connection that nothing else writes
   * through meanwhile (a CLI process): `sds serve`'s requests must keep their fsync per commit.
   */
  async deferSync<T>(fn: () => Promise<T>): Promise<T> {
    if (this.db.readonly || this.db.memory) return fn();
    this.db.pragma('synchronous = NORMAL');
    try {
      return await fn();
    } finally {
      this.db.pragma('synchronous = FULL');
      this.syncToDisk();
    }
  }

  /** Fsyncs the store's WAL and database files: every commit made so far is then on disk. */
  syncToDisk(): void {
    for (const file of [`${this.db.name}-wal`, this.db.name]) {
      if (existsSync(file)) fsyncFile(file);
    }
  }

  /**
   * Starts a read transaction: every read until `end()` sees the store as it was at the first
   * one (WAL keeps that snapshot while others write). For a reader that makes several passes,
   * such as `sds export` (docs/export.md#how-an-export-runs).
   */
  beginReadSnapshot(): { end(): void } {
    this.db.exec('BEGIN');
    return {
      end: () => {
        if (this.db.inTransaction) this.db.exec('COMMIT');
      },
    };
  }

  close(): void {
    this.checkpointer?.stop();
    if (this.db.open) this.db.close();
  }
}

/**
 * Creates the home directory layout if needed (idempotent). Folders are made 0700: only the
 * service account may read a home (docs/architecture.md#permissions-of-a-home); existing folders
 * keep their mode.
 */
function ensureHomeLayout(home: HomePaths): void {
  for (const dir of [home.root, home.media, home.breakoutLogs, home.locks, home.targets]) {
    try {
      mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    } catch (err) {
      // A file in the way, a parent not ours to write (a home under /srv): say which folder.
      throw new AppError(
        'IO_ERROR',
        `cannot create the folder ${dir} of the home ${home.root}: ${(err as Error).message}`,
        { file: dir },
        { cause: err },
      );
    }
  }
}

/** Modes of what a home holds, whatever the umask (docs/architecture.md#permissions-of-a-home). */
const PRIVATE_DIR_MODE = 0o700;
const PRIVATE_FILE_MODE = 0o600;

/**
 * Makes a new home private before anything is written in it: the root 0700 (also a directory
 * that existed empty: it becomes a home now) and an empty store file 0600, made here because
 * SQLite would create it 0644 less the umask. SQLite gives the -wal and -shm files the mode of
 * the store file.
 */
function createPrivateStore(home: HomePaths): void {
  try {
    chmodSync(home.root, PRIVATE_DIR_MODE);
    let fd: number;
    try {
      fd = openSync(home.db, 'wx', PRIVATE_FILE_MODE);
    } catch (err) {
      // Another `sds init` made it a moment ago: it is that one's to set up, and still empty
      // here (schema version 0), which openStore migrates like a new store.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
      throw err;
    }
    try {
      // The umask may have taken bits away from 0600 (a umask of 0200): the owner needs them all.
      fchmodSync(fd, PRIVATE_FILE_MODE);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    throw new AppError('IO_ERROR', `cannot create the store ${home.db}: ${(err as Error).message}`, { file: home.db }, { cause: err });
  }
}

/**
 * Makes a new home's directory entries durable (the store file, its WAL and the folders of the
 * layout): SQLite fsyncs its files, not the directories naming them, so right after `sds init` a
 * power cut could otherwise leave a home without its store.
 */
function syncNewHome(home: HomePaths): void {
  for (const dir of [home.root, dirname(home.media), home.media, dirname(home.breakoutLogs), home.breakoutLogs, home.locks, home.targets]) {
    fsyncDirectory(dir);
  }
  try {
    fsyncDirectory(dirname(home.root));
  } catch {
    // The parent may not be ours to open (a home under /srv): its entry is then as durable as the
    // file system makes it on its own.
  }
}

/**
 * The store's journal settings. `synchronous = FULL` fsyncs the WAL at every commit, so a write
 * that was acknowledged (a 2xx answer, a CLI exit 0) survives an OS crash or a power cut; with
 * NORMAL a commit reached the disk only at the next checkpoint (docs/durability.md).
 */
const BUSY_TIMEOUT = 'busy_timeout = 10000';
const STORE_PRAGMAS = [BUSY_TIMEOUT, 'journal_mode = WAL', 'foreign_keys = ON', 'synchronous = FULL'] as const;

/** How to open a store. */
export interface OpenStoreOptions {
  readonly?: boolean;
  /** Make the home if it has no store yet (`sds init`, `sds quickstart`); a new store gets every migration. */
  create?: boolean;
  /** Apply pending migrations (`sds migrate`); without it a store that needs them is refused. */
  migrate?: boolean;
}

function openDatabase(home: HomePaths, readonly: boolean): Db {
  try {
    return new Database(home.db, { readonly, fileMustExist: true });
  } catch (err) {
    throw new AppError('IO_ERROR', `cannot open the store ${home.db}: ${(err as Error).message}`, { file: home.db }, { cause: err });
  }
}

/**
 * Opens the store of a home. A missing home is HOME_NOT_FOUND and nothing is created (only
 * `sds init` and `sds quickstart`, through `{ create: true }`, make a home, with every
 * migration). Pending migrations are applied only with `{ migrate: true }` (`sds migrate`):
 * otherwise a store that needs them is refused with STORE_NEEDS_MIGRATION before anything is
 * written (docs/upgrading.md#why-commands-refuse-an-old-store), and one written by a newer sds
 * with STORE_TOO_NEW. WAL lets readers (the HTTP server, status queries) run while an import or
 * a job writes; the busy timeout makes concurrent CLI processes wait for each other instead of
 * failing at once. Every commit is fsynced before it returns (STORE_PRAGMAS).
 */
export function openStore(home: HomePaths, opts: OpenStoreOptions = {}): Store {
  const readonly = opts.readonly ?? false;
  const creating = opts.create === true && !readonly && !existsSync(home.db);
  if (creating) {
    ensureHomeLayout(home);
    createPrivateStore(home);
  } else requireHome(home);
  const db = openDatabase(home, readonly);
  try {
    db.pragma(BUSY_TIMEOUT);
    // A store still at version 0 is empty: made by an init that stopped (or is running) before
    // its first migration; creating it again is finishing that init, not an upgrade.
    const fresh = creating || (opts.create === true && !readonly && currentVersion(db) === 0);
    const current = fresh || opts.migrate === true ? undefined : requireCurrentSchema(db, home.root);
    // A home made by an older sds may lack a folder of the layout: a home's own folders are ours to add.
    if (!readonly && !creating) ensureHomeLayout(home);
    for (const p of STORE_PRAGMAS) db.pragma(p);
    // SQLite's default page cache is 2 MB, smaller than the case indexes an import updates at
    // random. 16 MB keeps their upper levels hot; a miss is a read from the OS file cache, and a
    // larger cache only adds to the resident memory of every process (measured in bench/).
    db.pragma('cache_size = -16384');
    // A new home is migrated in one transaction, so that a second `sds init` racing this one sees
    // either an empty store (version 0: it waits for the write lock, then finds nothing to do) or
    // a complete one, never one half-way that it would have to refuse as needing `sds migrate`.
    const migration = current ? unchanged(current) : fresh ? db.transaction(() => migrate(db)).immediate() : migrate(db);
    if (creating) syncNewHome(home);
    return new Store(db, home, migration);
  } catch (err) {
    db.close();
    throw err;
  }
}

const unchanged = (s: SchemaStatus): MigrateResult => ({ from: s.version, to: s.version, applied: [] });

/**
 * The schema status of a home's store (its version, the latest this sds knows, each migration
 * applied or pending), read through a read-only connection: nothing is applied or locked for
 * writing (`sds migrate --status`). HOME_NOT_FOUND when there is no home.
 */
export function readSchemaStatus(home: HomePaths): SchemaStatus {
  requireHome(home);
  const db = openDatabase(home, true);
  try {
    db.pragma(BUSY_TIMEOUT);
    return schemaStatus(db);
  } finally {
    db.close();
  }
}
