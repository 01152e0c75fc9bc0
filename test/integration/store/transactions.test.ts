/**
 * The store contract's transactions (docs/architecture.md#the-store-contract), on the run's store:
 * `store.transaction(async (tx) => …)` commits or rolls back as one, `tx.transaction` is a
 * savepoint, and reaching the store rather than `tx` from inside a transaction is refused. Two
 * tests are about the SQLite store's one connection (a call through `store.X` runs at once, or
 * waits for the transaction holding the connection, in order) and open a SQLite store whatever
 * the run's store; PostgreSQL's pool has no such order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { AppError } from '../../../src/shared/errors.js';
import { openStore, type Store } from '../../../src/store/open-store.js';
import type { HomePaths } from '../../../src/shared/home.js';
import { storeKindOf, storeSql, tempStore, withStore } from '../../helpers/temp-home.js';

const outside = (err: unknown) => err instanceof AppError && err.code === 'STORE_OUTSIDE_TRANSACTION';

/** A value read by a second connection: what is committed, whatever the store's connection holds open. */
async function committed(store: Store, home: HomePaths, name: string): Promise<string | undefined> {
  if (storeKindOf(store) === 'postgresql') return withStore(home, (other) => other.settings.get(name));
  const db = new Database(home.db, { readonly: true });
  try {
    return (db.prepare('SELECT value FROM settings WHERE name = ?').get(name) as { value: string } | undefined)?.value;
  } finally {
    db.close();
  }
}

test('an async transaction commits what it wrote through tx, and returns what fn returned', async (t) => {
  const { store, home, cleanup } = await tempStore();
  t.after(cleanup);
  const r = await store.transaction(async (tx) => {
    await tx.settings.set('a', '1');
    await tx.settings.set('b', '2');
    // Not committed yet: another connection does not see it.
    assert.equal(await committed(store, home, 'a'), undefined);
    return (await tx.settings.get('a')) + (await tx.settings.get('b'))!;
  });
  assert.equal(r, '12');
  assert.equal(await committed(store, home, 'a'), '1');
  assert.equal(await store.settings.get('b'), '2');
});

test('a transaction whose fn throws rolls back everything and throws the error on', async (t) => {
  const { store, cleanup } = await tempStore();
  t.after(cleanup);
  await store.settings.set('kept', 'before');
  await assert.rejects(
    store.transaction(async (tx) => {
      await tx.settings.set('kept', 'changed');
      await tx.settings.set('new', 'x');
      throw new Error('stop here');
    }),
    /stop here/,
  );
  assert.equal(await store.settings.get('kept'), 'before');
  assert.equal(await store.settings.get('new'), undefined);
  // The connection is usable again: the next transaction commits.
  await store.transaction(async (tx) => tx.settings.set('new', 'y'));
  assert.equal(await store.settings.get('new'), 'y');
});

test('a savepoint rolled back inside a committed transaction loses only its own writes', async (t) => {
  const { store, cleanup } = await tempStore();
  t.after(cleanup);
  await store.transaction(async (tx) => {
    await tx.settings.set('outer', '1');
    await assert.rejects(
      tx.transaction(async (sp) => {
        await sp.settings.set('inner', 'lost');
        await sp.settings.set('outer', 'lost');
        throw new Error('undo the savepoint');
      }),
      /undo the savepoint/,
    );
    assert.equal(await tx.settings.get('outer'), '1');
    const kept = await tx.transaction(async (sp) => {
      await sp.settings.set('second', 'kept');
      return 'released';
    });
    assert.equal(kept, 'released');
  });
  assert.equal(await store.settings.get('outer'), '1');
  assert.equal(await store.settings.get('inner'), undefined);
  assert.equal(await store.settings.get('second'), 'kept');
});

test('while nothing holds the store, a call through store.X runs its statement at once', async (t) => {
  const { store, home, cleanup } = await tempStore('sqlite');
  t.after(cleanup);
  const written = store.settings.set('now', 'yes');
  // Before any tick: the statement has run (and, outside a transaction, committed).
  const db = new Database(home.db, { readonly: true });
  t.after(() => db.close());
  assert.equal((db.prepare("SELECT value FROM settings WHERE name = 'now'").get() as { value: string }).value, 'yes');
  await written;
});

test('a call through store.X waits while a transaction holds the store, then sees what it committed', async (t) => {
  const { store, cleanup } = await tempStore('sqlite');
  t.after(cleanup);
  await store.settings.set('counter', '0');
  const order: string[] = [];
  let inside!: () => void;
  const entered = new Promise<void>((resolve) => (inside = resolve));
  let finish!: () => void;
  const finishing = new Promise<void>((resolve) => (finish = resolve));
  const writer = store.transaction(async (tx) => {
    await tx.settings.set('counter', '1');
    inside();
    // Holds the transaction open across turns of the event loop (a test can: store code must not).
    await finishing;
    await tx.settings.set('counter', '2');
    order.push('commit');
  });
  await entered;
  const reader = store.settings.get('counter').then((v) => {
    order.push(`read ${v}`);
    return v;
  });
  const second = store.transaction(async (tx) => {
    order.push('second transaction');
    await tx.settings.set('counter', '3');
  });
  const third = store.transaction(async (tx) => {
    order.push('third transaction');
    return tx.settings.get('counter');
  });
  // Let the loop turn: the reader and the other transactions must still be waiting.
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, []);
  finish();
  await writer;
  // Each got the store in the order it asked: the read after the commit, before the second transaction.
  assert.equal(await reader, '2');
  await second;
  assert.equal(await third, '3');
  assert.deepEqual(
    order.filter((o) => o !== 'read 2'),
    ['commit', 'second transaction', 'third transaction'],
  );
});

test('reaching store.X inside a transaction throws STORE_OUTSIDE_TRANSACTION and rolls the transaction back', async (t) => {
  const { store, cleanup } = await tempStore();
  t.after(cleanup);
  await assert.rejects(
    store.transaction(async (tx) => {
      await tx.settings.set('half', 'written');
      await store.settings.get('half');
    }),
    (err: unknown) => outside(err) && /store\.settings\.get/.test((err as Error).message),
  );
  assert.equal(await store.settings.get('half'), undefined);
  // Also from a helper called with the store instead of tx, several awaits deep.
  const helper = async (s: typeof store) => {
    await Promise.resolve();
    return s.cases.count(1);
  };
  await assert.rejects(
    store.transaction(async (tx) => {
      await tx.settings.set('half', 'written');
      await helper(store);
    }),
    outside,
  );
  assert.equal(await store.settings.get('half'), undefined);
});

test('store.transaction and store.readTransaction inside a transaction throw; tx.transaction is the savepoint', async (t) => {
  const { store, cleanup } = await tempStore();
  t.after(cleanup);
  await assert.rejects(
    store.transaction(async (tx) => {
      await tx.settings.set('x', '1');
      await store.transaction(async (inner) => inner.settings.set('y', '1'));
    }),
    outside,
  );
  await assert.rejects(
    store.readTransaction(async () => store.readTransaction(async (inner) => inner.settings.get('x'))),
    outside,
  );
  assert.equal(await store.settings.get('x'), undefined);
  assert.equal(await store.settings.get('y'), undefined);
  // After the transaction, work it started is outside it: the store is reachable again.
  let later!: Promise<string | undefined>;
  await store.transaction(async (tx) => {
    await tx.settings.set('x', '2');
    later = new Promise((resolve) => setImmediate(resolve)).then(() => store.settings.get('x'));
  });
  assert.equal(await later, '2');
});

test('a tx used after its transaction ended is refused', async (t) => {
  const { store, cleanup } = await tempStore();
  t.after(cleanup);
  let leaked!: Parameters<Parameters<typeof store.transaction>[0]>[0];
  await store.transaction(async (tx) => {
    leaked = tx;
  });
  assert.throws(() => leaked.settings, /after the transaction ended/);
  await assert.rejects(
    leaked.transaction(async () => undefined),
    /after the transaction ended/,
  );
});

test('readTransaction sees one snapshot while another connection commits', async (t) => {
  const { store, home, cleanup } = await tempStore();
  t.after(cleanup);
  await store.settings.set('v', 'old');
  // Another connection: a second store on the same database.
  const other = await openStore(home);
  t.after(() => other.close());
  const seen = await store.readTransaction(async (tx) => {
    const first = await tx.settings.get('v');
    await storeSql(other, "UPDATE settings SET value = 'new' WHERE name = 'v'");
    const second = await tx.settings.get('v');
    return [first, second];
  });
  assert.deepEqual(seen, ['old', 'old']);
  assert.equal(await store.settings.get('v'), 'new');
});

test('close waits for the transaction in progress', async (t) => {
  const { store, home, cleanup } = await tempStore();
  t.after(cleanup);
  let finish!: () => void;
  const finishing = new Promise<void>((resolve) => (finish = resolve));
  const writer = store.transaction(async (tx) => {
    await finishing;
    await tx.settings.set('last', 'written');
  });
  const closing = store.close();
  finish();
  await writer;
  await closing;
  assert.equal(await committed(store, home, 'last'), 'written');
});
