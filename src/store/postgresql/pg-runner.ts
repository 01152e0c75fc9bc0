/**
 * How the PostgreSQL repositories run their statements (docs/architecture.md#the-store-contract):
 * a runner over the pool (each statement on any connection; `atomic` in a transaction of its own)
 * or over the one connection of an open transaction (`atomic` as a savepoint of it). A repository
 * is written once against PgRunner and works in both places, as a SQLite repository works both
 * inside and outside `store.transaction`.
 */
import type { ClientBase, Pool, QueryResultRow } from 'pg';
import { storeUnavailableOr } from './connection-loss.js';

/** Runs statements of one PostgreSQL store, inside a transaction or not. */
export interface PgRunner {
  /** Every row the statement returns. */
  rows<T extends QueryResultRow>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /**
   * Every row the statement returns as an array of its values in column order: no object per
   * row (a download page's hundred rows; docs/decisions.md, "Less CPU per sync request").
   */
  arrays(sql: string, params?: readonly unknown[]): Promise<unknown[][]>;
  /** The first row the statement returns, or undefined. */
  row<T extends QueryResultRow>(sql: string, params?: readonly unknown[]): Promise<T | undefined>;
  /** Runs the statement; the number of rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /**
   * Runs `fn` all or nothing: in a transaction of its own on one connection of the pool, or as a
   * savepoint of the transaction this runner is in. A repository method of several statements
   * that must not be seen half done (a claim, a replace) runs them through it.
   */
  atomic<T>(fn: (r: PgRunner) => Promise<T>): Promise<T>;
  /**
   * Takes the transaction-scoped advisory lock `key` (a 64-bit integer, as digits) in a statement
   * of its own, so that every later statement's snapshot sees what committed while it waited;
   * skipped when this transaction already holds it (nothing to wait for then, and a round trip
   * less). Outside a transaction the lock ends with its statement.
   */
  lockForTransaction(key: string): Promise<void>;
  /** Notes that this transaction now holds the advisory lock `key`, taken by a statement of the caller's. */
  heldForTransaction(key: string): void;
}

const lockStatement = (key: string): string => {
  if (!/^-?\d+$/.test(key)) throw new Error(`an advisory lock key is an integer, not ${key}`);
  return `SELECT pg_advisory_xact_lock(${key})`;
};

/**
 * PostgreSQL text cannot hold U+0000 (SQLite's can): a text parameter keeps U+FFFD in its place,
 * as sds does for lone surrogates, so a login name or key sent with a NUL is looked up (and
 * found nowhere, since no name sds stores has one) instead of failing the statement
 * (docs/decisions.md, "Queries written per database").
 */
const withoutNul = (params: readonly unknown[]): unknown[] =>
  params.map((p) => (typeof p === 'string' && p.includes('\u0000') ? p.replaceAll('\u0000', '\ufffd') : p));

async function query<T extends QueryResultRow>(on: ClientBase | Pool, sql: string, params: readonly unknown[] = []) {
  try {
    return await on.query<T>(sql, withoutNul(params));
  } catch (err) {
    throw storeUnavailableOr(err);
  }
}

async function queryArrays(on: ClientBase | Pool, sql: string, params: readonly unknown[] = []): Promise<unknown[][]> {
  try {
    return (await on.query<unknown[]>({ text: sql, values: withoutNul(params), rowMode: 'array' })).rows;
  } catch (err) {
    throw storeUnavailableOr(err);
  }
}

/** A runner over one connection that is in a transaction; `atomic` nests savepoints. */
export class ClientRunner implements PgRunner {
  private depth = 0;
  /**
   * The advisory locks this transaction holds, each with the savepoint depth that took it: a
   * savepoint rolled back releases the locks taken inside it, one released hands them to its parent.
   */
  private readonly held = new Map<string, number>();

  constructor(private readonly client: ClientBase) {}

  async rows<T extends QueryResultRow>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    return (await query<T>(this.client, sql, params)).rows;
  }

  async arrays(sql: string, params?: readonly unknown[]): Promise<unknown[][]> {
    return queryArrays(this.client, sql, params);
  }

  async row<T extends QueryResultRow>(sql: string, params?: readonly unknown[]): Promise<T | undefined> {
    return (await query<T>(this.client, sql, params)).rows[0];
  }

  async run(sql: string, params?: readonly unknown[]): Promise<number> {
    return (await query(this.client, sql, params)).rowCount ?? 0;
  }

  async lockForTransaction(key: string): Promise<void> {
    if (this.held.has(key)) return;
    await this.client.query(lockStatement(key));
    this.held.set(key, this.depth);
  }

  heldForTransaction(key: string): void {
    if (!this.held.has(key)) this.held.set(key, this.depth);
  }

  async atomic<T>(fn: (r: PgRunner) => Promise<T>): Promise<T> {
    const depth = ++this.depth;
    const name = `sds_atomic_${depth}`;
    try {
      await this.client.query(`SAVEPOINT ${name}`);
      try {
        const result = await fn(this);
        await this.client.query(`RELEASE SAVEPOINT ${name}`);
        for (const [key, d] of this.held) if (d >= depth) this.held.set(key, depth - 1);
        return result;
      } catch (err) {
        for (const [key, d] of this.held) if (d >= depth) this.held.delete(key);
        await this.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
        await this.client.query(`RELEASE SAVEPOINT ${name}`);
        throw err;
      }
    } finally {
      this.depth--;
    }
  }
}

/**
 * Runs `fn` in one transaction on a connection of the pool: committed when it resolves, rolled
 * back when it throws (the error is thrown on). `begin` sets the isolation level.
 */
export async function inPoolTransaction<T>(pool: Pool, begin: string, fn: (client: ClientBase) => Promise<T>): Promise<T> {
  try {
    return await transactionOnPool(pool, begin, fn);
  } catch (err) {
    // The server lost on the way (connecting, BEGIN, a statement, COMMIT): STORE_UNAVAILABLE.
    throw storeUnavailableOr(err);
  }
}

async function transactionOnPool<T>(pool: Pool, begin: string, fn: (client: ClientBase) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    try {
      await client.query(begin);
    } catch (err) {
      // A connection that cannot even begin is not given back to the pool.
      broken = true;
      throw err;
    }
    try {
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {
        // The connection itself failed: it is not given back to the pool.
        broken = true;
      });
      throw err;
    }
  } finally {
    client.release(broken);
  }
}

/** A runner over the pool: outside any transaction, each statement commits on its own. */
export class PoolRunner implements PgRunner {
  constructor(private readonly pool: Pool) {}

  async rows<T extends QueryResultRow>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    return (await query<T>(this.pool, sql, params)).rows;
  }

  async arrays(sql: string, params?: readonly unknown[]): Promise<unknown[][]> {
    return queryArrays(this.pool, sql, params);
  }

  async row<T extends QueryResultRow>(sql: string, params?: readonly unknown[]): Promise<T | undefined> {
    return (await query<T>(this.pool, sql, params)).rows[0];
  }

  async run(sql: string, params?: readonly unknown[]): Promise<number> {
    return (await query(this.pool, sql, params)).rowCount ?? 0;
  }

  atomic<T>(fn: (r: PgRunner) => Promise<T>): Promise<T> {
    return inPoolTransaction(this.pool, 'BEGIN', (client) => fn(new ClientRunner(client)));
  }

  async lockForTransaction(key: string): Promise<void> {
    await query(this.pool, lockStatement(key));
  }

  heldForTransaction(): void {}
}

/**
 * A runner that sends every statement to whichever runner it is pointed at: the pool, or for a
 * while one connection (a read snapshot that several passes of an export share).
 */
export class SwitchableRunner implements PgRunner {
  constructor(public target: PgRunner) {}

  rows<T extends QueryResultRow>(sql: string, params?: readonly unknown[]): Promise<T[]> {
    return this.target.rows<T>(sql, params);
  }

  arrays(sql: string, params?: readonly unknown[]): Promise<unknown[][]> {
    return this.target.arrays(sql, params);
  }

  row<T extends QueryResultRow>(sql: string, params?: readonly unknown[]): Promise<T | undefined> {
    return this.target.row<T>(sql, params);
  }

  run(sql: string, params?: readonly unknown[]): Promise<number> {
    return this.target.run(sql, params);
  }

  atomic<T>(fn: (r: PgRunner) => Promise<T>): Promise<T> {
    return this.target.atomic(fn);
  }

  lockForTransaction(key: string): Promise<void> {
    return this.target.lockForTransaction(key);
  }

  heldForTransaction(key: string): void {
    this.target.heldForTransaction(key);
  }
}
