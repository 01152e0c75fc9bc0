/**
 * Dictionary models read once (docs/decisions.md, "Dictionary models read once"), on both stores:
 * `resolveWithModel` answers by name or syncable name in one statement, hands back the same parsed
 * model while the row is unchanged, and a new model as soon as the row changes — whether this
 * store, another store over the same database (another node) or a transaction changed it, twice in
 * one transaction or rolled back.
 */
import assert from 'node:assert/strict';
import type { Dictionary } from '../../../src/cspro/dictionary/model.js';
import type { NewDictionary } from '../../../src/store/dictionaries-repo.js';
import { openStore } from '../../../src/store/open-store.js';
import { openPostgresStore } from '../../../src/store/postgresql/open-postgres-store.js';
import type { PostgresStore } from '../../../src/store/postgresql/pg-store.js';
import type { Store } from '../../../src/store/store-contract.js';
import { testOnBothStores, type StoreKind } from '../../helpers/store-kinds.js';

const version = (v: string): NewDictionary => ({
  name: 'HOUSEHOLD_DICT',
  label: 'household',
  version: 'CSPro 8.0',
  description: '',
  source: Buffer.from(v),
  sourceFormat: 'text',
  syncName: 'HOUSEHOLD_SYNC',
  model: { name: 'HOUSEHOLD_DICT', label: v } as unknown as Dictionary,
});

/** The label the test puts in each version's model (a field of the test's, not of a real model). */
const labelIn = (d: { model: Dictionary } | undefined) => (d?.model as unknown as { label: string } | undefined)?.label;
const labelOf = async (store: Store, name = 'HOUSEHOLD_DICT') => labelIn(await store.dictionaries.resolveWithModel(name));

/** A second store over the same database: another node. */
async function secondStore(store: Store, kind: StoreKind): Promise<Store> {
  if (kind === 'sqlite') return openStore(store.home);
  const url = ((store as PostgresStore).pool.options as { connectionString: string }).connectionString;
  return openPostgresStore({ connectionString: url, max: 2 }, store.home, { migrate: false });
}

testOnBothStores('a dictionary model is parsed once and read again as long as its row is unchanged', async (store) => {
  await store.dictionaries.save(version('v1'));
  const first = await store.dictionaries.resolveWithModel('HOUSEHOLD_DICT');
  const again = await store.dictionaries.resolveWithModel('HOUSEHOLD_SYNC');
  assert.equal(labelIn(first), 'v1');
  assert.equal(again?.name, 'HOUSEHOLD_DICT', 'found by its syncable name');
  assert.equal(again?.model, first?.model, 'the same parsed model, not parsed again');
  assert.throws(() => {
    (first!.model as unknown as { label: string }).label = 'changed by a caller';
  }, TypeError);
  assert.equal(await store.dictionaries.resolveWithModel('NO_SUCH_DICT'), undefined);
  // A dictionary whose own name is another's syncable name answers by its own name first.
  await store.dictionaries.save({ ...version('other'), name: 'HOUSEHOLD_SYNC', syncName: null });
  assert.equal((await store.dictionaries.resolveWithModel('HOUSEHOLD_SYNC'))?.name, 'HOUSEHOLD_SYNC');
  assert.equal((await store.dictionaries.resolve('HOUSEHOLD_SYNC'))?.name, 'HOUSEHOLD_SYNC');
  assert.equal((await store.dictionaries.resolve('HOUSEHOLD_DICT'))?.syncName, 'HOUSEHOLD_SYNC');
});

testOnBothStores('a dictionary replaced on another node, or in a transaction, is read anew', async (store, kind) => {
  await store.dictionaries.save(version('v1'));
  assert.equal(await labelOf(store), 'v1');
  const other = await secondStore(store, kind);
  try {
    await other.dictionaries.save(version('v2'));
    assert.equal(await labelOf(store), 'v2', 'changed by another node');
    await store.transaction(async (tx) => {
      await tx.dictionaries.save(version('v3'));
      assert.equal(labelIn(await tx.dictionaries.resolveWithModel('HOUSEHOLD_DICT')), 'v3');
      await tx.dictionaries.save(version('v4'));
      assert.equal(labelIn(await tx.dictionaries.resolveWithModel('HOUSEHOLD_DICT')), 'v4', 'twice in one transaction');
    });
    assert.equal(await labelOf(store), 'v4');
    assert.equal(await labelOf(other), 'v4');
    await assert.rejects(
      store.transaction(async (tx) => {
        await tx.dictionaries.save(version('v5'));
        assert.equal(labelIn(await tx.dictionaries.resolveWithModel('HOUSEHOLD_DICT')), 'v5');
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    assert.equal(await labelOf(store), 'v4', 'the rolled-back model is not served');
  } finally {
    await other.close();
  }
});
