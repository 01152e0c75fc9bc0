import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { AppError } from '../shared/errors.js';
import { fsyncDirectory, fsyncFile } from '../shared/durable-file.js';
import type { HomePaths } from '../shared/home.js';
import { migrate, type MigrateResult } from './migrate.js';
import { requireHome } from './require-home.js';
import { DictionariesRepo } from './dictionaries-repo.js';
import { CasesRepo } from './cases-repo.js';
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
import { CHECKPOINT_DEFAULTS, WalCheckpointer, type CheckpointOptions } from './wal-checkpointer.js';

/** The local store: one SQLite file and a repository per table group. Only store/ touches it. */
export class Store {
  readonly dictionaries: DictionariesRepo;
  readonly cases: CasesRepo;
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

  constructor(
    readonly db: Db,
    readonly home: HomePaths,
    readonly migration: MigrateResult,
  ) {
    this.dictionaries = new DictionariesRepo(db);
    this.cases = new CasesRepo(db);
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

  close(): void {
    this.checkpointer?.stop();
    if (this.db.open) this.db.close();
  }
}

/** Creates the home directory layout if needed (idempotent). */
function ensureHomeLayout(home: HomePaths): void {
  for (const dir of [home.root, home.media, home.breakoutLogs, home.locks, home.targets]) {
    try {
      mkdirSync(dir, { recursive: true });
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
const STORE_PRAGMAS = ['busy_timeout = 10000', 'journal_mode = WAL', 'foreign_keys = ON', 'synchronous = FULL'] as const;

/**
 * Opens the store of an existing home and applies pending migrations; a missing home is
 * HOME_NOT_FOUND and nothing is created (only `sds init` and `sds quickstart`, through
 * `{ create: true }`, make a home). WAL lets readers (the HTTP server, status queries) run while
 * an import or a job writes; the busy timeout makes concurrent CLI processes wait for each other
 * instead of failing at once. Every commit is fsynced before it returns (STORE_PRAGMAS).
 */
export function openStore(home: HomePaths, opts: { readonly?: boolean; create?: boolean } = {}): Store {
  const creating = opts.create === true && !opts.readonly && !existsSync(home.db);
  if (!creating) requireHome(home);
  // A home made by an older sds may lack a folder of the layout: a home's own folders are ours to add.
  if (!opts.readonly) ensureHomeLayout(home);
  let db: Db;
  try {
    db = new Database(home.db, { readonly: opts.readonly ?? false });
  } catch (err) {
    throw new AppError('IO_ERROR', `cannot open the store ${home.db}: ${(err as Error).message}`, { file: home.db }, { cause: err });
  }
  for (const p of STORE_PRAGMAS) db.pragma(p);
  // SQLite's default page cache is 2 MB, smaller than the case indexes an import updates at
  // random. 16 MB keeps their upper levels hot; a miss is a read from the OS file cache, and a
  // larger cache only adds to the resident memory of every process (measured in bench/).
  db.pragma('cache_size = -16384');
  try {
    const migration = migrate(db);
    if (creating) syncNewHome(home);
    return new Store(db, home, migration);
  } catch (err) {
    db.close();
    throw err;
  }
}
