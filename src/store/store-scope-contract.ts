/**
 * The repositories and transactions the store contract (store-contract.ts) offers, in a file of
 * their own so that the file store's contract, which the store contract names, can hand its hooks
 * a transaction's scope without the two contracts importing each other
 * (docs/architecture.md#the-store-contract).
 */
import type { AppPackagesRepo } from './app-packages-repo.js';
import type { AuditRepo } from './audit-repo.js';
import type { BinaryItemsRepo } from './binary-items-repo.js';
import type { BreakoutLogRepo } from './breakout-log-repo.js';
import type { BreakoutStateRepo } from './breakout-state-repo.js';
import type { CaseQueriesRepo } from './case-queries-repo.js';
import type { CasesRepo } from './cases-repo.js';
import type { DictionariesRepo } from './dictionaries-repo.js';
import type { DutyClaimsRepo } from './duty-claims-repo.js';
import type { FilesRepo } from './files-repo.js';
import type { FollowUpsRepo } from './follow-ups-repo.js';
import type { JobsRepo } from './jobs-repo.js';
import type { LogRetentionRepo } from './log-retention-repo.js';
import type { LoginThrottleRepo } from './login-throttle-repo.js';
import type { MonitoringRepo } from './monitoring-repo.js';
import type { RateLimitRepo } from './rate-limit-repo.js';
import type { RolesRepo } from './roles-repo.js';
import type { RefreshTokensRepo } from './refresh-tokens-repo.js';
import type { SchedulesRepo } from './schedules-repo.js';
import type { SettingsRepo } from './settings-repo.js';
import type { SyncRepo } from './sync-repo.js';
import type { SyncReportsRepo } from './sync-reports-repo.js';
import type { TargetsRepo } from './targets-repo.js';
import type { UsersRepo } from './users-repo.js';
import type { WebhookQueueRepo } from './webhook-queue-repo.js';
import type { WebhooksRepo } from './webhooks-repo.js';

/**
 * A repository as the contract offers it: its async methods, whatever database implements them
 * (the SQLite classes are the reference; a class of another store implements the same shape).
 */
export type RepoContract<T> = { [K in keyof T as T[K] extends (...args: any[]) => Promise<unknown> ? K : never]: T[K] };

/** The repositories, one per table group; every method returns a promise. */
export interface StoreRepos {
  readonly dictionaries: RepoContract<DictionariesRepo>;
  readonly cases: RepoContract<CasesRepo>;
  readonly binaryItems: RepoContract<BinaryItemsRepo>;
  readonly users: RepoContract<UsersRepo>;
  readonly files: RepoContract<FilesRepo>;
  readonly settings: RepoContract<SettingsRepo>;
  readonly refreshTokens: RepoContract<RefreshTokensRepo>;
  readonly targets: RepoContract<TargetsRepo>;
  readonly jobs: RepoContract<JobsRepo>;
  readonly breakoutState: RepoContract<BreakoutStateRepo>;
  readonly breakoutLog: RepoContract<BreakoutLogRepo>;
  readonly schedules: RepoContract<SchedulesRepo>;
  readonly sync: RepoContract<SyncRepo>;
  readonly webhooks: RepoContract<WebhooksRepo>;
  readonly webhookQueue: RepoContract<WebhookQueueRepo>;
  readonly rateLimit: RepoContract<RateLimitRepo>;
  readonly followUps: RepoContract<FollowUpsRepo>;
  readonly loginThrottle: RepoContract<LoginThrottleRepo>;
  readonly logRetention: RepoContract<LogRetentionRepo>;
  readonly monitoring: RepoContract<MonitoringRepo>;
  readonly appPackages: RepoContract<AppPackagesRepo>;
  readonly caseQueries: RepoContract<CaseQueriesRepo>;
  readonly duties: RepoContract<DutyClaimsRepo>;
  readonly roles: RepoContract<RolesRepo>;
  readonly syncReports: RepoContract<SyncReportsRepo>;

  readonly audit: RepoContract<AuditRepo>;
}

/** What a transaction and the store both offer: the repositories, and transactions. */
export interface StoreScope extends StoreRepos {
  /**
   * Runs `fn` in one write transaction of the whole store: every repository written through `tx`
   * commits or rolls back together (a case write and its sync history, a change and the
   * deliveries queued for it). Transactions belong to the store, not to one repository, because
   * they span several (docs/decisions.md, "Transactions are the store's"). Called on a `tx`, a
   * savepoint of that transaction: rolled back alone when `fn` throws. `fn` awaits only calls
   * through `tx` and computation; reaching the store itself from inside is refused
   * (STORE_OUTSIDE_TRANSACTION). One savepoint at a time: await each before the next.
   */
  transaction<T>(fn: (tx: StoreScope) => Promise<T>): Promise<T>;
}
