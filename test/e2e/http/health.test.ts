// GET /healthz and GET /readyz over real servers: `sds serve` as a subprocess, and the server of
// serve.ts on loopback over stores made to fail one check each (docs/http-api.md#health-and-readiness).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import Database from 'better-sqlite3';
import { runCli, runCliAsync, show } from '../../helpers/run-cli.js';
import { startServe } from '../../helpers/serve-process.js';
import { startTestServer } from '../../helpers/http-server.js';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';
import { sqliteDb, storeKindOf, storeSql, tempDir, tempHome, writeHomeConfig } from '../../helpers/temp-home.js';
import { loadMigrations, migrate } from '../../../src/store/migrate.js';
import { SqliteStore, openStore } from '../../../src/store/open-store.js';
import { startServer } from '../../../src/http/serve.js';

interface Check {
  name: string;
  ok: boolean;
  message?: string;
  applied?: number;
  latest?: number;
  free_bytes?: number;
  min_free_bytes?: number;
}
interface ReadyBody {
  status: string;
  node: string;
  failed?: string[];
  checks: Check[];
}

const LATEST = loadMigrations().at(-1)!.version;
const PREVIOUS = loadMigrations().at(-2)!.version;
const JWT = { SDS_JWT_SECRET: 'a-jwt-secret-of-enough-length-0123456789' };

async function get(base: string, path: string, doc?: OpenApiDoc): Promise<{ status: number; body: ReadyBody }> {
  const r = await fetch(`${base}${path}`);
  const body = (await r.json()) as ReadyBody;
  if (doc) assert.deepEqual(checkReply(doc, 'get', path, r.status, body), [], `${path} ${r.status} against the OpenAPI document`);
  return { status: r.status, body };
}

test('sds serve: /healthz is ok; /readyz is ready with store, migrations and disk; both as documented', async () => {
  const home = await tempHome();
  const serve = await startServe(home.root);
  try {
    const doc = (await (await fetch(`${serve.url}/api/openapi.json`)).json()) as OpenApiDoc;
    const live = await get(serve.url, '/healthz', doc);
    assert.equal(live.status, 200);
    assert.deepEqual(live.body, { status: 'ok' });
    const ready = await get(serve.url, '/readyz', doc);
    assert.equal(ready.status, 200);
    assert.equal(ready.body.status, 'ready');
    // The node that answered: the server process's host, pid and start (docs/http-api.md#health-and-readiness).
    assert.match(ready.body.node, new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+:[0-9a-z]+$`));
    assert.deepEqual(
      ready.body.checks.map((c) => [c.name, c.ok]),
      [
        ['store', true],
        ['migrations', true],
        ['disk', true],
      ],
    );
    const migrations = ready.body.checks.find((c) => c.name === 'migrations')!;
    assert.equal(migrations.applied, LATEST);
    assert.equal(ready.body.checks.find((c) => c.name === 'disk')!.min_free_bytes, 1024 ** 3);
  } finally {
    await serve.stop();
    await home.cleanup();
  }
});

test('sds serve: a free-space floor above the disk is 503 naming `disk`; a floor that is not a number stops the start', async () => {
  const home = await tempHome();
  const huge = String(Number.MAX_SAFE_INTEGER);
  const serve = await startServe(home.root, { SDS_READY_MIN_FREE_BYTES: huge });
  try {
    const doc = (await (await fetch(`${serve.url}/api/openapi.json`)).json()) as OpenApiDoc;
    const r = await get(serve.url, '/readyz', doc);
    assert.equal(r.status, 503);
    assert.equal(r.body.status, 'not_ready');
    assert.deepEqual(r.body.failed, ['disk']);
    const disk = r.body.checks.find((c) => c.name === 'disk')!;
    assert.equal(disk.min_free_bytes, Number.MAX_SAFE_INTEGER);
    assert.match(disk.message!, /below the floor/);
    assert.doesNotMatch(
      JSON.stringify(r.body),
      new RegExp(home.root.replace(/[/\\^$*+?.()|[\]{}]/g, '\\$&')),
      'no server path on a public route',
    );
  } finally {
    await serve.stop();
  }
  try {
    const bad = await runCliAsync(home.root, ['serve', '--port', '0'], { env: { SDS_READY_MIN_FREE_BYTES: '1GB' } });
    assert.equal(bad.code, 2, show(bad));
    assert.match(bad.stderr, /CONFIG_INVALID/);
    assert.match(bad.stderr, /SDS_READY_MIN_FREE_BYTES must be a whole number of bytes/);
  } finally {
    await home.cleanup();
  }
});

test('config.json health.min_free_bytes sets the floor; sds config shows it and where it came from', async () => {
  const home = await tempHome();
  try {
    writeHomeConfig(home, { health: { min_free_bytes: 5000 } });
    const r = runCli(home.root, ['config', '--json'], { env: { SDS_READY_MIN_FREE_BYTES: '' } });
    assert.equal(r.code, 0, show(r));
    const settings = r.json<{ settings: { name: string; value: unknown; source: string }[] }>().settings;
    assert.deepEqual(
      settings.find((s) => s.name === 'health.min_free_bytes'),
      { name: 'health.min_free_bytes', value: 5000, source: 'config.json', from: 'health.min_free_bytes' },
    );
    assert.equal(settings.find((s) => s.name === 'metrics_token')?.value, 'not set');
    writeHomeConfig(home, { health: { min_free: 5000 } });
    const typo = runCli(home.root, ['config', '--json']);
    assert.equal(typo.code, 2, show(typo));
    // Named with the file it came from, as every section of config.json is.
    assert.match(typo.stdout, /health\.min_free in \S+\/config\.json is not a setting; known: min_free_bytes/);
  } finally {
    await home.cleanup();
  }
});

test('the disk check compares the free space with the floor exactly (an injected statfs)', async () => {
  const statfs = () => ({ bavail: 10, bsize: 4096 });
  for (const [floor, status] of [
    [40960, 200],
    [40961, 503],
  ] as const) {
    const ts = await startTestServer({ config: { health: { minFreeBytes: floor, statfs } } });
    try {
      const r = await get(ts.base, '/readyz');
      assert.equal(r.status, status, `floor ${floor}`);
      const disk = r.body.checks.find((c) => c.name === 'disk')!;
      assert.deepEqual([disk.free_bytes, disk.min_free_bytes, disk.ok], [40960, floor, status === 200]);
      if (status === 503) assert.deepEqual(r.body.failed, ['disk']);
    } finally {
      await ts.close();
    }
  }
});

test('a store whose schema is behind this build is 503 naming `migrations`, and says to run sds migrate', async () => {
  const home = tempDir();
  mkdirSync(home.root, { recursive: true });
  const db = new Database(home.db);
  db.pragma('journal_mode = WAL');
  const behind = migrate(db, loadMigrations().slice(0, -1));
  assert.equal(behind.to, PREVIOUS);
  const store = new SqliteStore(db, home, behind);
  const server = await startServer({ store, port: 0, webhookDispatcher: false, config: { env: JWT, log: () => {} } });
  try {
    const r = await get(server.url, '/readyz');
    assert.equal(r.status, 503);
    assert.deepEqual(r.body.failed, ['migrations']);
    const m = r.body.checks.find((c) => c.name === 'migrations')!;
    assert.deepEqual([m.applied, m.latest], [PREVIOUS, LATEST]);
    assert.match(m.message!, /run sds migrate/);
  } finally {
    await server.close();
    await store.close();
    home.cleanup();
  }
});

test('a store that cannot take a write is 503 naming `store`, while /healthz stays 200', async () => {
  const home = await tempHome();
  await (await openStore(home)).close();
  const store = await openStore(home, { readonly: true });
  const server = await startServer({ store, port: 0, webhookDispatcher: false, config: { env: JWT, log: () => {} } });
  try {
    const r = await get(server.url, '/readyz');
    assert.equal(r.status, 503);
    assert.deepEqual(r.body.failed, ['store']);
    const refusal =
      storeKindOf(store) === 'sqlite'
        ? 'attempt to write a readonly database'
        : // A session that takes no writes reads as a server that takes none (docs/decisions.md, "A store server that takes no writes").
          'the PostgreSQL server of the store takes no writes \\(25006';
    assert.match(r.body.checks[0]!.message!, new RegExp(`the store cannot take a write: ${refusal}`));
    assert.equal((await get(server.url, '/healthz')).status, 200);
  } finally {
    await server.close();
    await store.close();
    await home.cleanup();
  }
});

test('/healthz does not touch the store: with the store closed it is still 200, and /readyz is 503', async () => {
  const ts = await startTestServer();
  try {
    if (storeKindOf(ts.store) === 'sqlite') sqliteDb(ts.store).close();
    else await ts.store.close();
    assert.deepEqual(await get(ts.base, '/healthz'), { status: 200, body: { status: 'ok' } });
    const r = await get(ts.base, '/readyz');
    assert.equal(r.status, 503);
    assert.deepEqual(r.body.failed, ['store', 'migrations']);
  } finally {
    await ts.close();
  }
});

test('a /readyz answer is reused for health.ready_cache_ms of the server clock, then checked again', async () => {
  let free = 100;
  const statfs = () => ({ bavail: free, bsize: 1 });
  const ts = await startTestServer({ config: { health: { minFreeBytes: 50, readyCacheMs: 1000, statfs } } });
  try {
    assert.equal((await get(ts.base, '/readyz')).status, 200);
    free = 10;
    ts.advance(999);
    assert.equal((await get(ts.base, '/readyz')).status, 200, 'the answer of 999 ms ago is reused');
    ts.advance(1);
    const r = await get(ts.base, '/readyz');
    assert.equal(r.status, 503, 'after 1000 ms the checks run again');
    assert.deepEqual(r.body.failed, ['disk']);
    free = 100;
    assert.equal((await get(ts.base, '/readyz')).status, 503, 'a failure is reused too');
    ts.advance(1000);
    assert.equal((await get(ts.base, '/readyz')).status, 200);
  } finally {
    await ts.close();
  }
  const now = await startTestServer({ config: { health: { minFreeBytes: 50, readyCacheMs: 0, statfs } } });
  try {
    assert.equal((await get(now.base, '/readyz')).status, 200);
    free = 10;
    assert.equal((await get(now.base, '/readyz')).status, 503, '0 checks on every call');
  } finally {
    await now.close();
  }
});

test('SDS_READY_CACHE_MS above 60000 stops the start with CONFIG_INVALID naming it', async () => {
  const home = await tempHome();
  try {
    const r = await runCliAsync(home.root, ['serve', '--port', '0'], { env: { SDS_READY_CACHE_MS: '60001' } });
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /CONFIG_INVALID/, show(r));
    assert.match(r.stderr, /SDS_READY_CACHE_MS/, show(r));
  } finally {
    await home.cleanup();
  }
});

test('the write probe of /readyz does not grow the store', async () => {
  const ts = await startTestServer({ config: { health: { readyCacheMs: 0 } } });
  try {
    // SQLite: the file, its WAL copied back; PostgreSQL: the table the probe writes (an update of
    // its one row, in place on its page).
    const size = async () => {
      if (storeKindOf(ts.store) === 'postgresql')
        return Number((await storeSql(ts.store, "SELECT pg_relation_size('sds_schema') AS n"))[0]!.n);
      sqliteDb(ts.store).pragma('wal_checkpoint(TRUNCATE)');
      return statSync(ts.store.home.db).size;
    };
    const before = await size();
    for (let i = 0; i < 25; i++) assert.equal((await get(ts.base, '/readyz')).status, 200);
    assert.equal(await size(), before);
  } finally {
    await ts.close();
  }
});
