/**
 * What the store implementations share (docs/architecture.md#the-store-contract): the names of
 * the repositories, a transaction's scope of them (`tx`), unusable once its transaction ended,
 * and the wrapping of a repository's async methods for `store.X`.
 */
import { AppError } from '../shared/errors.js';
import type { StoreRepos, StoreScope } from './store-contract.js';

/** The repositories of the contract, by name. */
export const REPO_NAMES = Object.freeze([
  'dictionaries',
  'cases',
  'binaryItems',
  'users',
  'files',
  'settings',
  'refreshTokens',
  'targets',
  'jobs',
  'breakoutState',
  'breakoutLog',
  'schedules',
  'sync',
  'webhooks',
  'webhookQueue',
  'rateLimit',
  'followUps',
  'loginThrottle',
  'logRetention',
  'monitoring',
  'appPackages',
  'caseQueries',
  'duties',
  'roles',
  'syncReports',
  'audit',
] as const satisfies readonly (keyof StoreRepos)[]);

const ended = (what: string) => new AppError('INTERNAL', `a transaction's tx was used after the transaction ended (${what})`);

/**
 * The repositories of one open transaction (its `tx`); a store implementation adds how a
 * savepoint is made (`transaction`).
 */
export abstract class TransactionScopeBase implements StoreScope {
  private open = true;

  constructor(private readonly repos: StoreRepos) {}

  private repo<K extends keyof StoreRepos>(name: K): StoreRepos[K] {
    if (!this.open) throw ended(`tx.${name}`);
    return this.repos[name];
  }

  get dictionaries() {
    return this.repo('dictionaries');
  }
  get cases() {
    return this.repo('cases');
  }
  get binaryItems() {
    return this.repo('binaryItems');
  }
  get users() {
    return this.repo('users');
  }
  get files() {
    return this.repo('files');
  }
  get settings() {
    return this.repo('settings');
  }
  get refreshTokens() {
    return this.repo('refreshTokens');
  }
  get targets() {
    return this.repo('targets');
  }
  get jobs() {
    return this.repo('jobs');
  }
  get breakoutState() {
    return this.repo('breakoutState');
  }
  get breakoutLog() {
    return this.repo('breakoutLog');
  }
  get schedules() {
    return this.repo('schedules');
  }
  get sync() {
    return this.repo('sync');
  }
  get webhooks() {
    return this.repo('webhooks');
  }
  get webhookQueue() {
    return this.repo('webhookQueue');
  }
  get rateLimit() {
    return this.repo('rateLimit');
  }
  get followUps() {
    return this.repo('followUps');
  }
  get loginThrottle() {
    return this.repo('loginThrottle');
  }
  get logRetention() {
    return this.repo('logRetention');
  }
  get monitoring() {
    return this.repo('monitoring');
  }
  get appPackages() {
    return this.repo('appPackages');
  }
  get caseQueries() {
    return this.repo('caseQueries');
  }
  get duties() {
    return this.repo('duties');
  }
  get roles() {
    return this.repo('roles');
  }
  get syncReports() {
    return this.repo('syncReports');
  }
  get audit() {
    return this.repo('audit');
  }

  /** Refuses a savepoint of a transaction that has ended. */
  protected requireOpen(): void {
    if (!this.open) throw ended('tx.transaction');
  }

  abstract transaction<T>(fn: (tx: StoreScope) => Promise<T>): Promise<T>;

  /** Marks the transaction ended: its `tx` refuses every later use. */
  end(): void {
    this.open = false;
  }
}

/**
 * A copy of `repo` whose async methods (the contract's) go through `wrap`, named `store.<name>.<method>`
 * for messages. The copy's methods stay writable like a class's: a test may wrap one.
 */
export function wrapAsyncMethods<R extends object>(
  name: string,
  repo: R,
  wrap: (call: (...args: unknown[]) => Promise<unknown>, what: string) => (...args: unknown[]) => Promise<unknown>,
): R {
  const out = Object.create(repo) as R;
  for (
    let proto: unknown = Object.getPrototypeOf(repo);
    proto !== null && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const key of Object.getOwnPropertyNames(proto)) {
      if (key === 'constructor' || Object.hasOwn(out, key)) continue;
      const method: unknown = Object.getOwnPropertyDescriptor(proto, key)?.value;
      // The public methods are async; the synchronous helpers stay the repository's own.
      if (typeof method !== 'function' || method.constructor.name !== 'AsyncFunction') continue;
      const call = (...args: unknown[]) => (method as (...a: unknown[]) => Promise<unknown>).apply(repo, args);
      Object.defineProperty(out, key, { writable: true, configurable: true, value: wrap(call, `store.${name}.${key}`) });
    }
  }
  return out;
}
