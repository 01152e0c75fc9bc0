/**
 * The server prunes the home's logs on its own timer (docs/logs.md#when-logs-are-pruned): a real
 * server on loopback over a real home with an old import log; the line it logs is awaited, no
 * sleeping.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../../../src/http/serve.js';
import { currentNode } from '../../../src/shared/node-id.js';
import { storeSql, tempStore } from '../../helpers/temp-home.js';

test('sds serve prunes old logs when due and claims the period, for the other processes', async () => {
  const t = await tempStore();
  const old = join(t.home.importLogs, 'CEN2000_2026-01-01_00-00-00.log');
  mkdirSync(t.home.importLogs, { recursive: true });
  writeFileSync(old, 'x'.repeat(10));
  const then = new Date(Date.now() - 45 * 86_400_000);
  utimesSync(old, then, then);
  let pruned!: (line: string) => void;
  const line = new Promise<string>((resolve) => (pruned = resolve));
  const server = await startServer({
    store: t.store,
    port: 0,
    webhookDispatcher: false,
    logPruneCheckMs: 5,
    config: { log: (l) => l.startsWith('logs pruned') && pruned(l) },
  });
  try {
    assert.match(await line, /^logs pruned: import: 0 rows, 1 files \(10 bytes\);/);
    assert.ok(!existsSync(old));
    const claims = await storeSql(t.store, "SELECT slot, node FROM duty_claims WHERE duty = 'log-prune'");
    assert.equal(claims.length, 1, 'the period of the prune is claimed in the store, for the other processes and nodes');
    assert.equal(claims[0]!.node, currentNode().id);
    const r = await fetch(`${server.url}/api/openapi.json`);
    assert.equal(r.status, 200, 'the server serves while it prunes');
  } finally {
    await server.close();
    await t.cleanup();
  }
});
