import { existsSync } from 'node:fs';
import type { Statement } from 'better-sqlite3';
import { AppError } from '../shared/errors.js';
import { GroupFsync } from './group-fsync.js';
import { DictionaryModelCache } from './dictionary-model-cache.js';
import type { Database as Db } from 'better-sqlite3';
import { fsyncFile } from '../shared/durable-file.js';
import { WalFileSync } from './wal-file-sync.js';
import type { HomePaths } from '../shared/home.js';
import type { MigrateResult } from './migrate.js';
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
import { SyncReportsRepo } from './sync-reports-repo.js';
import { AppPackagesRepo } from './app-packages-repo.js';
import { CaseQueriesRepo } from './case-queries-repo.js';
import { DutyClaimsRepo } from './duty-claims-repo.js';
import { RolesRepo } from './roles-repo.js';
import { AuditRepo } from './audit-repo.js';
import { Gate } from './gate.js';
import type { FileStore } from './file-store-contract.js';
import { LocalFileStore } from './file-store/local/file-store.js';
import { REPO_NAMES, TransactionScopeBase, wrapAsyncMethods } from './store-scope.js';
import { insideTransactionOf, outsideTransaction, runAsTransactionOf, writeInReadTransaction } from './transaction-context.js';
import type { Store, StoreRepos, StoreScope, WriteTurns } from './store-contract.js';
import { CHECKPOINT_DEFAULTS, WalCheckpointer, type CheckpointOptions } from './wal-checkpointer.js';

/** The repositories over one connection; their methods run their statements at once. */
function reposOf(db: Db, models: DictionaryModelCache): StoreRepos {
  return {
    dictionaries: new DictionariesRepo(db, models),
    cases: new CasesRepo(db),
    binaryItems: new BinaryItemsRepo(db),
    users: new UsersRepo(db),
    files: new FilesRepo(db),
    settings: new SettingsRepo(db),
    refreshTokens: new RefreshTokensRepo(db),
    targets: new TargetsRepo(db),
    jobs: new JobsRepo(db),
    breakoutState: new BreakoutStateRepo(db),
    breakoutLog: new BreakoutLogRepo(db),
    schedules: new SchedulesRepo(db),
    sync: new SyncRepo(db),
    webhooks: new WebhooksRepo(db),
    webhookQueue: new WebhookQueueRepo(db),
    rateLimit: new RateLimitRepo(db),
    followUps: new FollowUpsRepo(db),
    loginThrottle: new LoginThrottleRepo(db),
    logRetention: new LogRetentionRepo(db),
    monitoring: new MonitoringRepo(db),
    appPackages: new AppPackagesRepo(db),
    caseQueries: new CaseQueriesRepo(db),
    duties: new DutyClaimsRepo(db),
    roles: new RolesRepo(db),
    syncReports: new SyncReportsRepo(db),

    audit: new AuditRepo(db),
  };
}

/** The repositories and savepoints of one open transaction (its `tx`); unusable once it ended. */
class TransactionScope extends TransactionScopeBase {
  private depth = 0;

  constructor(
    private readonly db: Db,
    repos: StoreRepos,
  ) {
    super(repos);
  }

  /** A savepoint of this transaction: released when `fn` resolves, rolled back to when it throws. */
  async transaction<T>(fn: (tx: StoreScope) => Promise<T>): Promise<T> {
    this.requireOpen();
    const name = `sds_savepoint_${++this.depth}`;
    try {
      this.db.exec(`SAVEPOINT ${name}`);
      let result: T;
      try {
        result = await fn(this);
      } catch (err) {
        // A failed statement may have ended the whole transaction already (SQLite rolls back on some errors).
        if (this.db.inTransaction) {
          this.db.exec(`ROLLBACK TO ${name}`);
          this.db.exec(`RELEASE ${name}`);
        }
        throw err;
      }
      this.db.exec(`RELEASE ${name}`);
      return result;
    } finally {
      this.depth--;
    }
  }
}

/**
 * The local store in one SQLite file, over one connection. A transaction holds the connection
 * (the gate) until it commits or rolls back: calls through `store.X` and other transactions wait
 * for it, in the order they came; while the gate is free a call through `store.X` runs at once.
 * Only store/ touches the file.
 */
export class SqliteStore implements Store {
  declare readonly dictionaries: DictionariesRepo;
  declare readonly cases: CasesRepo;
  declare readonly binaryItems: BinaryItemsRepo;
  declare readonly users: UsersRepo;
  declare readonly files: FilesRepo;
  declare readonly settings: SettingsRepo;
  declare readonly refreshTokens: RefreshTokensRepo;
  declare readonly targets: TargetsRepo;
  declare readonly jobs: JobsRepo;
  declare readonly breakoutState: BreakoutStateRepo;
  declare readonly breakoutLog: BreakoutLogRepo;
  declare readonly schedules: SchedulesRepo;
  declare readonly sync: SyncRepo;
  declare readonly webhooks: WebhooksRepo;
  declare readonly webhookQueue: WebhookQueueRepo;
  declare readonly rateLimit: RateLimitRepo;
  declare readonly followUps: FollowUpsRepo;
  declare readonly loginThrottle: LoginThrottleRepo;
  declare readonly logRetention: LogRetentionRepo;
  declare readonly monitoring: MonitoringRepo;
  declare readonly appPackages: AppPackagesRepo;
  declare readonly caseQueries: CaseQueriesRepo;
  declare readonly duties: DutyClaimsRepo;
  declare readonly roles: RolesRepo;
  declare readonly syncReports: SyncReportsRepo;

  declare readonly audit: AuditRepo;

  /** Held by the transaction in progress; calls through the store's repositories wait for it. */
  private readonly gate = new Gate();
  private readonly repos: StoreRepos;

  constructor(
    /** The connection: for store/ and tests that look at the file itself. */
    readonly db: Db,
    readonly home: HomePaths,
    readonly migration: MigrateResult,
  ) {
    this.repos = reposOf(db, new DictionaryModelCache());
    for (const name of REPO_NAMES) Object.defineProperty(this, name, { value: this.gated(name, this.repos[name]), enumerable: true });
    this.fileStore = new LocalFileStore(home, this);
  }

  /** The bytes of the store's files, in the home's folders (file-store/local/). */
  readonly fileStore: FileStore;

  /**
   * The repository `repo` as `store.X` offers it: each of its (async) methods waits for the gate,
   * and is refused from inside a transaction of this store (that work must use its `tx`).
   */
  private gated<R extends object>(name: string, repo: R): R {
    // Writable like a method of the class: a test may wrap one (test/helpers/durable-breakout-child.ts).
    return wrapAsyncMethods(name, repo, (call, what) => (...args: unknown[]): Promise<unknown> => {
      if (this.insideOwnTransaction()) return Promise.reject(outsideTransaction(what));
      if (this.gate.tryTake()) return this.callHolding(call, args);
      return this.gate.take().then(() => this.callHolding(call, args));
    });
  }

  /**
   * Runs a repository method with the gate taken, and gives it back: the SQLite repositories'
   * methods run their statements before they return, so the call is over by then.
   */
  private callHolding(call: (...args: unknown[]) => Promise<unknown>, args: unknown[]): Promise<unknown> {
    let changed: boolean;
    let result: Promise<unknown>;
    try {
      const before = this.changes();
      result = call(...args);
      changed = this.changedSince(before);
    } catch (err) {
      // The repositories' methods are async and reject rather than throw; keep it that way.
      return Promise.reject(err);
    } finally {
      this.gate.release();
    }
    return changed ? result.then((value) => this.afterCommit().then(() => value)) : result;
  }

  private insideOwnTransaction(): boolean {
    return insideTransactionOf(this);
  }

  /**
   * Runs `fn` in one IMMEDIATE write transaction of the whole store (see StoreScope.transaction),
   * holding the connection: everything else waits until it commits, or rolls back when `fn`
   * throws (the error is then thrown on).
   */
  transaction<T>(fn: (tx: StoreScope) => Promise<T>): Promise<T> {
    // After a failed fsync nothing new is written: it could not be made durable either.
    if (this.fsyncFailure) return Promise.reject(this.fsyncFailure);
    const turns = this.writeTurns;
    if (turns && this.insideOwnTransaction()) return Promise.reject(outsideTransaction('store.transaction'));
    // The turn before the gate: a read holding the gate never waits for a turn, so no cycle.
    const write = !turns
      ? this.run('BEGIN IMMEDIATE', 'store.transaction', fn)
      : turns.take().then(async () => {
          try {
            return await this.run('BEGIN IMMEDIATE', 'store.transaction', fn);
          } finally {
            turns.release();
          }
        });
    // With group commit the turn and the gate are given back before the fsync: other writes
    // commit meanwhile and share the next one (docs/durability.md#group-commit).
    return write.then(({ result, changed }) => (changed ? this.afterCommit().then(() => result) : result));
  }

  private writeTurns: WriteTurns | undefined;

  /** See Store.shareWriteTurns: write transactions take a turn of `turns` first. */
  shareWriteTurns(turns: WriteTurns): void {
    this.writeTurns = turns;
  }

  /**
   * Runs `fn` in one DEFERRED (read) transaction, so that several reads see the same snapshot
   * (a download chunk and its count) without taking the write lock up front.
   */
  readTransaction<T>(fn: (tx: StoreScope) => Promise<T>): Promise<T> {
    return this.run('BEGIN DEFERRED', 'store.readTransaction', fn, true).then((r) => r.result);
  }

  /**
   * Runs `fn` in a transaction holding the gate; whether it changed rows (only counted with group
   * commit on: the caller then waits for the fsync that makes them durable).
   */
  private async run<T>(
    begin: string,
    what: string,
    fn: (tx: StoreScope) => Promise<T>,
    readOnly = false,
  ): Promise<{ result: T; changed: boolean }> {
    if (this.insideOwnTransaction()) throw outsideTransaction(what);
    if (!this.gate.tryTake()) await this.gate.take();
    // A read transaction refuses writes here as PostgreSQL's READ ONLY does there: code tried on
    // one store must not write on the other by accident (docs/architecture.md#the-store-contract).
    if (readOnly) this.db.pragma('query_only = ON');
    try {
      const before = this.changes();
      this.db.exec(begin);
      const tx = new TransactionScope(this.db, this.repos);
      try {
        const result = await runAsTransactionOf(this, fn, tx);
        this.db.exec('COMMIT');
        return { result, changed: this.changedSince(before) };
      } catch (err) {
        // A failed statement may have rolled the transaction back already (SQLite does on some errors).
        if (this.db.inTransaction) this.db.exec('ROLLBACK');
        if (readOnly && (err as { code?: unknown }).code === 'SQLITE_READONLY') throw writeInReadTransaction(what, err);
        throw err;
      } finally {
        tx.end();
      }
    } finally {
      if (readOnly) this.db.pragma('query_only = OFF');
      this.gate.release();
    }
  }

  private group: GroupFsync | undefined;
  private walSync: WalFileSync | undefined;
  private changesStatement: Statement | undefined;
  /** Commits that changed rows, counted; and how many of them an fsync has covered. */
  private committed = 0;
  private coveredCommits = 0;
  /** The first failed fsync: every later commit is refused with it (docs/durability.md#group-commit). */
  private fsyncFailure: AppError | undefined;

  /**
   * The connection's count of changed rows, with group commit on and the connection open: a call
   * that moved it wrote. Never throws: a closed connection counts nothing (its calls fail anyway).
   * Schema changes are not counted; the store changes its schema only in migrations, which run
   * before `sds serve` turns group commit on.
   */
  private changes(): number | undefined {
    if (!this.group || !this.db.open) return undefined;
    this.changesStatement ??= this.db.prepare('SELECT total_changes()').pluck();
    return this.changesStatement.get() as number;
  }

  /** Whether rows changed since `before` (changes()); counts the commit for durable(). */
  private changedSince(before: number | undefined): boolean {
    if (before === undefined) return false;
    const now = this.changes();
    if (now === undefined || now === before) return false;
    this.committed += 1;
    return true;
  }

  /**
   * Group commit, for the rest of this store's life (`sds serve`): commits no longer fsync the
   * WAL while they hold the connection; each write waits, with the gate given back, for an fsync
   * of the WAL made after it, shared by every commit of the meantime. A write still resolves
   * only once it is on disk. `fsync` replaces the flush of the WAL file (tests). Idempotent.
   */
  groupCommits(opts: { fsync?: () => Promise<void> } = {}): void {
    if (this.group || this.db.readonly || this.db.memory) return;
    this.db.pragma('synchronous = NORMAL');
    if (opts.fsync) {
      this.group = new GroupFsync(opts.fsync);
      return;
    }
    const wal = (this.walSync = new WalFileSync(this.db.name));
    this.group = new GroupFsync(() => wal.sync());
  }

  /** How many group fsyncs have started (undefined without group commit): tests and metrics. */
  get groupFsyncs(): number | undefined {
    return this.group?.started;
  }

  /** Waits for an fsync that covers the commit just made. */
  private async afterCommit(): Promise<void> {
    if (this.group) await this.coverCommits(this.group);
  }

  /**
   * Resolves once every commit this store has made is on disk; at once without group commit,
   * where each commit fsyncs before it returns. With other server processes writing the same file
   * (`--workers`), their commits count too: the wait is then for an fsync in any case.
   */
  async durable(): Promise<void> {
    if (!this.group) return;
    if (this.writeTurns === undefined && this.coveredCommits >= this.committed) return;
    await this.coverCommits(this.group);
  }

  /**
   * Waits for a group fsync that covers every commit counted so far (each came before this call);
   * a failed one is IO_ERROR, then and for every later write (docs/durability.md#group-commit).
   */
  private async coverCommits(group: GroupFsync): Promise<void> {
    const seq = this.committed;
    if (this.fsyncFailure) throw this.fsyncFailure;
    try {
      await group.after();
    } catch (err) {
      this.fsyncFailure ??= new AppError(
        'IO_ERROR',
        `the store's write-ahead log could not be flushed to disk (${(err as Error).message}); writes are refused until sds serve is restarted`,
        { file: `${this.db.name}-wal` },
        { cause: err },
      );
      throw this.fsyncFailure;
    }
    if (seq > this.coveredCommits) this.coveredCommits = seq;
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
    this.db.pragma(`wal_autocheckpoint = ${opts.backstopPages ?? CHECKPOINT_DEFAULTS.backstopPages}`);
    // Another process of the same server checkpoints this file (docs/production.md#workers).
    if (opts.thread === false) return undefined;
    this.checkpointer = WalCheckpointer.start(this.db.name, opts);
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
      this.db.pragma(this.group ? 'synchronous = NORMAL' : 'synchronous = FULL');
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
   * such as `sds export` (docs/export.md#how-an-export-runs), on a connection of its own.
   */
  async beginReadSnapshot(): Promise<{ end(): Promise<void> }> {
    this.db.exec('BEGIN');
    return {
      end: async () => {
        if (this.db.inTransaction) this.db.exec('COMMIT');
      },
    };
  }

  /** Closes the connection once the transaction in progress, if any, has ended. */
  async close(): Promise<void> {
    if (this.insideOwnTransaction()) throw outsideTransaction('store.close');
    if (!this.gate.tryTake()) await this.gate.take();
    try {
      this.checkpointer?.stop();
      if (this.db.open) this.db.close();
    } finally {
      this.gate.release();
    }
    await this.walSync?.close();
  }
}
