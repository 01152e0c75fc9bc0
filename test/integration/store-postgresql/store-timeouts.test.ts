/**
 * The store's connect timeout on a real PostgreSQL server (docs/production.md#while-the-primary-is-away):
 * a server that accepts the connection and never answers is STORE_UNAVAILABLE once
 * `store.connect_timeout_ms` has passed, while a request waiting for a free connection of a full
 * pool (load, not an absent server) waits past it and succeeds. PostgreSQL only: SQLite has no
 * server to lose.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../../src/shared/errors.js';
import { openStore } from '../../../src/store/open-store.js';
import { PostgresStore } from '../../../src/store/postgresql/pg-store.js';
import { tempHome, writeHomeConfig, type TempHome } from '../../helpers/temp-home.js';
import { startTcpProxy } from '../../helpers/tcp-proxy.js';

const homes: TempHome[] = [];
after(async () => {
  for (const h of homes) await h.cleanup();
});

async function homeWith(store: Record<string, unknown>): Promise<TempHome> {
  const home = await tempHome('postgresql');
  homes.push(home);
  const url = (JSON.parse(readFileSync(join(home.root, 'config.json'), 'utf8')) as { store: { url: string } }).store.url;
  writeHomeConfig(home, { store: { url, ...store } });
  return home;
}

test('a silent server fails the open with STORE_UNAVAILABLE once the connect timeout has passed', async () => {
  const home = await homeWith({ connect_timeout_ms: 300 });
  const proxy = await startTcpProxy();
  try {
    await proxy.cut('blackhole');
    const t0 = performance.now();
    await assert.rejects(
      openStore({ ...home, storeUrl: `postgresql://postgres@127.0.0.1:${proxy.port}/postgres` }),
      (e: unknown) => e instanceof AppError && e.code === 'STORE_UNAVAILABLE',
    );
    const ms = performance.now() - t0;
    assert.ok(ms >= 280 && ms < 5000, `${Math.round(ms)} ms`);
  } finally {
    await proxy.close();
  }
});

test('a request waiting for the connection of a full pool waits past the connect timeout', async () => {
  const home = await homeWith({ pool_size: 1, connect_timeout_ms: 100 });
  const store = await openStore(home);
  try {
    assert.ok(store instanceof PostgresStore);
    // The pool's only connection is busy for 0.5 s (the server's clock, not the test's).
    const client = await store.pool.connect();
    const busy = client.query('SELECT pg_sleep(0.5)').finally(() => client.release());
    const t0 = performance.now();
    await store.settings.get('server_device_id');
    const waited = performance.now() - t0;
    await busy;
    assert.ok(waited >= 300, `it waited ${Math.round(waited)} ms for the connection, past the 100 ms connect timeout`);
  } finally {
    await store.close();
  }
});
