/**
 * The store on PostgreSQL (docs/architecture.md#the-store-contract): the same contract as the
 * SQLite store, over a pool of connections. Outside a transaction each repository call runs on
 * any connection of the pool; `store.transaction` holds one connection from BEGIN to COMMIT and
 * hands its `tx`, whose repositories run on that connection. Write transactions are READ
 * COMMITTED: where SQLite's one writer at a time made a check-then-write safe, the repositories
 * take explicit locks (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
 */
import { DictionaryModelCache } from '../dictionary-model-cache.js';
import pg from 'pg';
import type { ClientBase, Pool, PoolConfig } from 'pg';
import { AppError } from '../../shared/errors.js';
import type { HomePaths } from '../../shared/home.js';
import type { MigrateResult } from '../migrate.js';
import type { Store, StoreRepos, StoreScope } from '../store-contract.js';
import { insideTransactionOf, outsideTransaction, runAsTransactionOf, writeInReadTransaction } from '../transaction-context.js';
import { REPO_NAMES, TransactionScopeBase, wrapAsyncMethods } from '../store-scope.js';
import { ClientRunner, inPoolTransaction, PoolRunner, SwitchableRunner, type PgRunner } from './pg-runner.js';
import { PgDictionariesRepo } from './dictionaries-repo.js';
import { PgCasesRepo } from './cases-repo.js';
import { PgBinaryItemsRepo } from './binary-items-repo.js';
import { PgUsersRepo } from './users-repo.js';
import { PgFilesRepo } from './files-repo.js';
import { PgSettingsRepo } from './settings-repo.js';
import { PgRefreshTokensRepo } from './refresh-tokens-repo.js';
import { PgTargetsRepo } from './targets-repo.js';
import { PgJobsRepo } from './jobs-repo.js';
import { PgBreakoutStateRepo } from './breakout-state-repo.js';
import { PgBreakoutLogRepo } from './breakout-log-repo.js';
import { PgSchedulesRepo } from './schedules-repo.js';
import { PgSyncRepo } from './sync-repo.js';
import { PgWebhooksRepo } from './webhooks-repo.js';
import { PgWebhookQueueRepo } from './webhook-queue-repo.js';
import { PgRateLimitRepo } from './rate-limit-repo.js';
import { PgFollowUpsRepo } from './follow-ups-repo.js';
import { PgLoginThrottleRepo } from './login-throttle-repo.js';
import { PgLogRetentionRepo } from './log-retention-repo.js';
import { PgMonitoringRepo } from './monitoring-repo.js';
import { PgAppPackagesRepo } from './app-packages-repo.js';
import { PgCaseQueriesRepo } from './case-queries-repo.js';
import { PgDutyClaimsRepo } from './duty-claims-repo.js';
import { PgRolesRepo } from './roles-repo.js';
import { PgSyncReportsRepo } from './sync-reports-repo.js';

import { PgAuditRepo } from './audit-repo.js';
import type { FileStore } from '../file-store-contract.js';
import { PgFileStore } from '../file-store/postgresql/file-store.js';
import { storeUnavailableOr } from './connection-loss.js';

/** The repositories over one runner (the pool, or one transaction's connection). */
function reposOf(runner: PgRunner, models: DictionaryModelCache): StoreRepos {
  return {
    dictionaries: new PgDictionariesRepo(runner, models),
    cases: new PgCasesRepo(runner),
    binaryItems: new PgBinaryItemsRepo(runner),
    users: new PgUsersRepo(runner),
    files: new PgFilesRepo(runner),
    settings: new PgSettingsRepo(runner),
    refreshTokens: new PgRefreshTokensRepo(runner),
    targets: new PgTargetsRepo(runner),
    jobs: new PgJobsRepo(runner),
    breakoutState: new PgBreakoutStateRepo(runner),
    breakoutLog: new PgBreakoutLogRepo(runner),
    schedules: new PgSchedulesRepo(runner),
    sync: new PgSyncRepo(runner),
    webhooks: new PgWebhooksRepo(runner),
    webhookQueue: new PgWebhookQueueRepo(runner),
    rateLimit: new PgRateLimitRepo(runner),
    followUps: new PgFollowUpsRepo(runner),
    loginThrottle: new PgLoginThrottleRepo(runner),
    logRetention: new PgLogRetentionRepo(runner),
    monitoring: new PgMonitoringRepo(runner),
    appPackages: new PgAppPackagesRepo(runner),
    caseQueries: new PgCaseQueriesRepo(runner),
    duties: new PgDutyClaimsRepo(runner),
    roles: new PgRolesRepo(runner),
    syncReports: new PgSyncReportsRepo(runner),

    audit: new PgAuditRepo(runner),
  };
}

/** The repositories and savepoints of one open transaction (its `tx`); unusable once it ended. */
class PgTransactionScope extends TransactionScopeBase {
  constructor(
    private readonly runner: ClientRunner,
    repos: StoreRepos,
  ) {
    super(repos);
  }

  /** A savepoint of this transaction: released when `fn` resolves, rolled back to when it throws. */
  async transaction<T>(fn: (tx: StoreScope) => Promise<T>): Promise<T> {
    // A tx used after its transaction ended rejects, as on SQLite, rather than throwing at the call.
    this.requireOpen();
    return this.runner.atomic(() => fn(this));
  }
}

/** bigint (int8) columns read as numbers: every whole number sds stores stays below 2^53. */
const INT8_OID = 20;
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Connection settings of a PostgreSQL store: pg's pool settings, with sds's type parsers. */
export function pgStorePoolConfig(config: PoolConfig): PoolConfig {
  return { ...config, types: pgTypes };
}

/** The store of a home held in PostgreSQL. */
export class PostgresStore implements Store {
  declare readonly dictionaries: StoreRepos['dictionaries'];
  declare readonly cases: StoreRepos['cases'];
  declare readonly binaryItems: StoreRepos['binaryItems'];
  declare readonly users: StoreRepos['users'];
  declare readonly files: StoreRepos['files'];
  declare readonly settings: StoreRepos['settings'];
  declare readonly refreshTokens: StoreRepos['refreshTokens'];
  declare readonly targets: StoreRepos['targets'];
  declare readonly jobs: StoreRepos['jobs'];
  declare readonly breakoutState: StoreRepos['breakoutState'];
  declare readonly breakoutLog: StoreRepos['breakoutLog'];
  declare readonly schedules: StoreRepos['schedules'];
  declare readonly sync: StoreRepos['sync'];
  declare readonly webhooks: StoreRepos['webhooks'];
  declare readonly webhookQueue: StoreRepos['webhookQueue'];
  declare readonly rateLimit: StoreRepos['rateLimit'];
  declare readonly followUps: StoreRepos['followUps'];
  declare readonly loginThrottle: StoreRepos['loginThrottle'];
  declare readonly logRetention: StoreRepos['logRetention'];
  declare readonly monitoring: StoreRepos['monitoring'];
  declare readonly appPackages: StoreRepos['appPackages'];
  declare readonly caseQueries: StoreRepos['caseQueries'];
  declare readonly duties: StoreRepos['duties'];
  declare readonly roles: StoreRepos['roles'];
  declare readonly syncReports: StoreRepos['syncReports'];

  declare readonly audit: StoreRepos['audit'];

  /** The bytes of the store's files, in the database (file-store/postgresql/). */
  readonly fileStore: FileStore;
  private readonly repos: StoreRepos;
  /** Where `store.X` runs its statements: the pool, or the connection of a read snapshot. */
  private readonly runner: SwitchableRunner;
  private readonly poolRunner: PoolRunner;
  /** Models parsed by this store's repositories, its transactions' included. */
  private readonly models = new DictionaryModelCache();

  constructor(
    /** The pool of connections: for store/ and tests that look at the database itself. */
    readonly pool: Pool,
    readonly home: HomePaths,
    readonly migration: MigrateResult,
  ) {
    this.poolRunner = new PoolRunner(pool);
    this.runner = new SwitchableRunner(this.poolRunner);
    this.repos = reposOf(this.runner, this.models);
    for (const name of REPO_NAMES) Object.defineProperty(this, name, { value: this.guarded(name, this.repos[name]), enumerable: true });
    this.fileStore = new PgFileStore(this, this.poolRunner);
  }

  /** The repository `repo` as `store.X` offers it: refused from inside a transaction of this store. */
  private guarded<R extends object>(name: string, repo: R): R {
    return wrapAsyncMethods(
      name,
      repo,
      (call, what) =>
        (...args: unknown[]): Promise<unknown> =>
          insideTransactionOf(this) ? Promise.reject(outsideTransaction(what)) : call(...args),
    );
  }

  /**
   * Runs `fn` in one write transaction (READ COMMITTED) on one connection: committed when it
   * resolves, rolled back when it throws (the error is thrown on).
   */
  transaction<T>(fn: (tx: StoreScope) => Promise<T>): Promise<T> {
    return this.run('BEGIN ISOLATION LEVEL READ COMMITTED', 'store.transaction', fn);
  }

  /** Runs `fn` in one REPEATABLE READ, read-only transaction: every read sees one snapshot. */
  readTransaction<T>(fn: (tx: StoreScope) => Promise<T>): Promise<T> {
    return this.run('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', 'store.readTransaction', fn).catch((err: unknown) => {
      // 25006: read_only_sql_transaction, the same defect SQLite's query_only reports. A statement's
      // 25006 arrives as STORE_UNAVAILABLE (connection-loss.ts: outside a read transaction it means
      // the server takes no writes); inside this READ ONLY one it is the caller's write.
      const raw = err instanceof AppError && err.code === 'STORE_UNAVAILABLE' ? (err as { cause?: unknown }).cause : err;
      throw (raw as { code?: unknown } | undefined)?.code === '25006' ? writeInReadTransaction('store.readTransaction', raw) : err;
    });
  }

  /**
   * Runs `fn` in one write transaction as `transaction` does, handing it the transaction's runner
   * too: for the file store, whose statements commit with the metadata its caller records.
   */
  transactionWithRunner<T>(fn: (tx: StoreScope, runner: PgRunner) => Promise<T>): Promise<T> {
    return this.run('BEGIN ISOLATION LEVEL READ COMMITTED', 'store.transaction', fn);
  }

  private async run<T>(begin: string, what: string, fn: (tx: StoreScope, runner: PgRunner) => Promise<T>): Promise<T> {
    if (insideTransactionOf(this)) throw outsideTransaction(what);
    const running = this.runTransaction(begin, fn);
    // close() waits for it, as SQLite's close waits for the transaction holding the store.
    const settled = running.then(
      () => undefined,
      () => undefined,
    );
    this.inProgress.add(settled);
    void settled.then(() => this.inProgress.delete(settled));
    return running;
  }

  /** The transactions begun and not yet ended: close() waits for them. */
  private readonly inProgress = new Set<Promise<void>>();

  private async runTransaction<T>(begin: string, fn: (tx: StoreScope, runner: PgRunner) => Promise<T>): Promise<T> {
    return inPoolTransaction(this.pool, begin, async (client: ClientBase) => {
      const runner = new ClientRunner(client);
      const tx = new PgTransactionScope(runner, reposOf(runner, this.models));
      try {
        return await runAsTransactionOf(this, (t: StoreScope) => fn(t, runner), tx);
      } finally {
        tx.end();
      }
    });
  }

  /** PostgreSQL checkpoints on its own: nothing to move to a worker. */
  checkpointInBackground(): undefined {
    return undefined;
  }

  /** PostgreSQL's writers lock rows, not the database: several processes write at once. */
  shareWriteTurns(): void {}

  /** Every commit is durable as PostgreSQL makes it (synchronous_commit): nothing to defer. */
  deferSync<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  /** Commits are on disk when PostgreSQL acknowledges them. */
  syncToDisk(): void {}

  /** PostgreSQL flushes the WAL of concurrent commits together on its own. */
  groupCommits(): void {}

  /** A PostgreSQL commit is visible only once its WAL is flushed: nothing to wait for. */
  async durable(): Promise<void> {}

  /**
   * Starts a read snapshot for the rest of this store's use, until `end()`: every call through
   * `store.X` then runs on one connection in a REPEATABLE READ, read-only transaction, and sees the
   * store as it was at its first read. For a store opened for one reader that makes several
   * passes, such as `sds export` (docs/export.md#how-an-export-runs).
   */
  async beginReadSnapshot(): Promise<{ end(): Promise<void> }> {
    if (this.runner.target !== this.poolRunner) throw new AppError('INTERNAL', 'a read snapshot of this store is already open');
    const client = await this.pool.connect().catch((err: unknown) => {
      throw storeUnavailableOr(err);
    });
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    } catch (err) {
      client.release(true);
      throw storeUnavailableOr(err);
    }
    this.runner.target = new ClientRunner(client);
    let ended = false;
    return {
      end: async () => {
        if (ended) return;
        ended = true;
        this.runner.target = this.poolRunner;
        try {
          await client.query('COMMIT');
          client.release();
        } catch {
          client.release(true);
        }
      },
    };
  }

  /**
   * Closes every connection of the pool once the transactions and calls in progress have ended.
   * A second close does nothing, as on SQLite (pg's pool throws "Called end on pool more than once").
   */
  async close(): Promise<void> {
    if (insideTransactionOf(this)) throw outsideTransaction('store.close');
    this.closing ??= Promise.all(this.inProgress).then(() => this.pool.end());
    await this.closing;
  }

  /** The pool's end, once the store is being closed. */
  private closing: Promise<void> | undefined;
}
