/**
 * Which store transaction a piece of async work runs inside (docs/architecture.md#the-store-contract):
 * every store implementation refuses its own `store.X` from inside its own transaction, since that
 * work must go through the transaction's `tx` (on SQLite it would wait for itself; on PostgreSQL
 * it would write outside the transaction and survive its rollback).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from '../shared/errors.js';

/** The transaction a piece of async work runs inside, if any (and the ones around it, of other stores). */
interface TransactionContext {
  readonly store: object;
  /** False once the transaction has ended: work it left running is then outside it. */
  open: boolean;
  readonly outer: TransactionContext | undefined;
}

const inTransaction = new AsyncLocalStorage<TransactionContext>();

/** The STORE_OUTSIDE_TRANSACTION error for `what` (e.g. `store.cases.put`). */
export function outsideTransaction(what: string): AppError {
  return new AppError(
    'STORE_OUTSIDE_TRANSACTION',
    `reached the store, not the transaction, inside a transaction (${what}): use the transaction's tx`,
    { call: what },
  );
}

/**
 * The error of a write tried inside `readTransaction`: refused by both stores alike (SQLite's
 * `query_only`, PostgreSQL's READ ONLY), so that code written on one store does not write on the
 * other by accident (docs/architecture.md#the-store-contract).
 */
export function writeInReadTransaction(what: string, cause: unknown): AppError {
  return new AppError(
    'STORE_WRITE_IN_READ_TRANSACTION',
    `a write inside a read transaction (${what}): ${cause instanceof Error ? cause.message : String(cause)}`,
    { call: what },
  );
}

/** Whether the current async work runs inside an open transaction of `store`. */
export function insideTransactionOf(store: object): boolean {
  for (let c = inTransaction.getStore(); c !== undefined; c = c.outer) if (c.store === store && c.open) return true;
  return false;
}

/** Runs `fn(tx)` as the work of a transaction of `store`; the mark ends with it. */
export async function runAsTransactionOf<S, T>(store: object, fn: (tx: S) => Promise<T>, tx: S): Promise<T> {
  const context: TransactionContext = { store, open: true, outer: inTransaction.getStore() };
  try {
    return await inTransaction.run(context, fn, tx);
  } finally {
    context.open = false;
  }
}
