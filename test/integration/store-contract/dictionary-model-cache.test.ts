/**
 * Dictionary models read once (docs/decisions.md, "Dictionary models read once"), on both stores:
 * `resolveWithModel` answers by name or syncable name in one statement, hands back the same parsed
 * model while the row is unchanged, and a new model as soon as the row changes — whether this
 * store, another store over the same database (another node) or a transaction changed it, twice in
 * one transaction or rolled back.
 */
import assert from 'node:assert/strict';
import { openStore } from '../../../src/store/open-store.js';
import { openPostgresStore } from '../../../src/store/postgresql/open-postgres-store.js';
import type { PostgresStore } from '../../../src/store/postgresql/pg-store.js';
import type { Store } from '../../../src/store/store-contract.js';
import { testOnBothStores, type StoreKind } from '../../helpers/store-kinds.js';
import { householdVersion, versionIn } from '../../helpers/dictionary-versions.js';

const labelOf = async (store: Store, name = 'HOUSEHOLD_DICT') => versionIn(await store.dictionaries.resolveWithModel(name));

/** A second store over the same database: another node. */
async function secondStore(store: Store, kind: StoreKind): Promise<Store> {
  if (kind === 'sqlite') return openStore(store.home);
  const url = ((store as PostgresStore).pool.options as { connectionString: string }).connectionString;
  return openPostgresStore({ connectionString: url, max: 2 }, store.home, { migrate: false });
}

testOnBothStores('a dictionary model is parsed once and read again as long as its row is unchanged', async (store) => {
  await store.dictionaries.save(householdVersion('v1'));
  const first = await store.dictionaries.resolveWithModel('HOUSEHOLD_DICT');
  const again = await store.dictionaries.resolveWithModel('HOUSEHOLD_SYNC');
  assert.equal(versionIn(first), 'v1');
  assert.equal(again?.name, 'HOUSEHOLD_DICT', 'found by its syncable name');
  assert.equal(again?.model, first?.model, 'the same parsed model, not parsed again');
  assert.throws(() => {
    (first!.model as unknown as { label: string }).label = 'changed by a caller';
  }, TypeError);
  assert.equal(await store.dictionaries.resolveWithModel('NO_SUCH_DICT'), undefined);
  // A dictionary whose own name is another's syncable name answers by its own name first.
  await store.dictionaries.save({ ...householdVersion('other'), name: 'HOUSEHOLD_SYNC', syncName: null });
  assert.equal((await store.dictionaries.resolveWithModel('HOUSEHOLD_SYNC'))?.name, 'HOUSEHOLD_SYNC');
  assert.equal((await store.dictionaries.resolve('HOUSEHOLD_SYNC'))?.name, 'HOUSEHOLD_SYNC');
  assert.equal((await store.dictionaries.resolve('HOUSEHOLD_DICT'))?.syncName, 'HOUSEHOLD_SYNC');
});

testOnBothStores('a dictionary replaced on another node, or in a transaction, is read anew', async (store, kind) => {
  await store.dictionaries.save(householdVersion('v1'));
  assert.equal(await labelOf(store), 'v1');
  const other = await secondStore(store, kind);
  try {
    await other.dictionaries.save(householdVersion('v2'));
    assert.equal(await labelOf(store), 'v2', 'changed by another node');
    await store.transaction(async (tx) => {
      await tx.dictionaries.save(householdVersion('v3'));
      assert.equal(versionIn(await tx.dictionaries.resolveWithModel('HOUSEHOLD_DICT')), 'v3');
      await tx.dictionaries.save(householdVersion('v4'));
      assert.equal(versionIn(await tx.dictionaries.resolveWithModel('HOUSEHOLD_DICT')), 'v4', 'twice in one transaction');
    });
    assert.equal(await labelOf(store), 'v4');
    assert.equal(await labelOf(other), 'v4');
    await assert.rejects(
      store.transaction(async (tx) => {
        await tx.dictionaries.save(householdVersion('v5'));
        assert.equal(versionIn(await tx.dictionaries.resolveWithModel('HOUSEHOLD_DICT')), 'v5');
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    assert.equal(await labelOf(store), 'v4', 'the rolled-back model is not served');
  } finally {
    await other.close();
  }
});
