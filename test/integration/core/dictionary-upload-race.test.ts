/**
 * Two uploads of different dictionaries under labels whose breakout tables would collide, at
 * once on two connections of a PostgreSQL store: the label check and the save of each are one
 * transaction under the lock of dictionary changes, so the second sees the first and is refused
 * with CONFLICT (on SQLite the one writer gives the same; docs/decisions.md, "Concurrent writers
 * on the PostgreSQL store").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { uploadDictionary } from '../../../src/core/dictionaries/index.js';
import { AppError } from '../../../src/shared/errors.js';
import { onPostgresStore, raceTwoTransactions } from '../../helpers/store-races.js';
import { fixture } from '../../helpers/temp-home.js';

test('two uploads whose labels collide, at once on PostgreSQL: one is stored, the other is CONFLICT', async () => {
  const census = readFileSync(fixture('popstan-census.json.dcf'));
  const simple = readFileSync(fixture('simple-capi.dcf'));
  await onPostgresStore(async (store) => {
    const race = await raceTwoTransactions(
      store,
      (tx) => uploadDictionary(tx, { source: census, label: 'survey' }),
      (tx) => uploadDictionary(tx, { source: simple, label: 'SURVEY' }),
    );
    assert.equal(race.first.status, 'fulfilled', 'the first upload is stored');
    assert.equal(race.secondWaited, true, 'the second upload waited for the first to commit');
    assert.equal(race.second.status, 'rejected', 'the second upload is refused');
    const err = race.second.status === 'rejected' ? (race.second.reason as unknown) : undefined;
    assert.ok(err instanceof AppError && err.code === 'CONFLICT', `CONFLICT, not ${String(err)}`);
    assert.deepEqual(
      (await store.dictionaries.list()).map((d) => d.label),
      ['survey'],
      'only the first dictionary is stored',
    );
  });
});
