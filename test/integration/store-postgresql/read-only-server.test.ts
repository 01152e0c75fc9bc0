/**
 * A store whose PostgreSQL server takes no writes (docs/production.md#while-the-primary-is-away):
 * a primary demoted in a switchover, or a standby a node was pointed at. Here the server is made
 * read-only for the store's database (`default_transaction_read_only`, as a switchover tool sets
 * it on the old primary): reads still answer, a write is STORE_UNAVAILABLE (503, try again), and
 * `/readyz`'s store check fails so a balancer takes the node out. PostgreSQL only.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { AppError } from '../../../src/shared/errors.js';
import { openStore } from '../../../src/store/open-store.js';
import { readinessProbe } from '../../../src/core/health/readiness.js';
import { tempHome, type TempHome } from '../../helpers/temp-home.js';

let home: TempHome | undefined;
after(async () => home?.cleanup());

async function setReadOnly(url: string, on: boolean): Promise<void> {
  const u = new URL(url);
  const db = u.pathname.slice(1);
  // From another database: the store's own refuses the ALTER once it is read-only.
  u.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: u.toString() });
  await admin.connect();
  try {
    await admin.query(`ALTER DATABASE "${db}" SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
  } finally {
    await admin.end();
  }
}

test('a read-only server: reads answer, writes are STORE_UNAVAILABLE, /readyz fails; writable again, all is well', async () => {
  home = await tempHome('postgresql');
  const url = (JSON.parse(readFileSync(join(home.root, 'config.json'), 'utf8')) as { store: { url: string } }).store.url;
  await setReadOnly(url, true);
  // Opened after the switch: its connections start read-only, as they would on a standby.
  const store = await openStore(home);
  try {
    assert.equal(typeof (await store.monitoring.schemaVersion()), 'number', 'a read answers');
    await assert.rejects(
      store.settings.set('read_only_probe', 'x'),
      (e: unknown) => e instanceof AppError && e.code === 'STORE_UNAVAILABLE' && e.http === 503 && /takes no writes/.test(e.message),
    );
    await assert.rejects(
      store.transaction(async (tx) => tx.settings.set('read_only_probe', 'x')),
      (e: unknown) => e instanceof AppError && e.code === 'STORE_UNAVAILABLE',
      'the same inside a transaction',
    );
    const ready = await readinessProbe(store, { minFreeBytes: 0 }, () => 0, 0)();
    assert.equal(ready.ready, false);
    assert.deepEqual(ready.failed, ['store']);
  } finally {
    await store.close();
  }
  await setReadOnly(url, false);
  const again = await openStore(home);
  try {
    await again.settings.set('read_only_probe', 'x');
    assert.equal(await again.settings.get('read_only_probe'), 'x');
    assert.equal((await readinessProbe(again, { minFreeBytes: 0 }, () => 0, 0)()).ready, true);
  } finally {
    await again.close();
  }
});
