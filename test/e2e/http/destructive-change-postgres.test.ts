/**
 * A dictionary replaced over HTTP while its tables live in a real PostgreSQL target: POST with a
 * new label and PUT with a new structure announce the drop and rebuild (`breakout_rebuild`, as the
 * served OpenAPI document describes it), `GET /api/breakout/tables` shows what PostgreSQL holds
 * (old tables stale), and the breakout log names each table dropped.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createPostgresDatabase, type TestDatabase } from '../../helpers/test-databases.js';
import { openQuery, setTargetConfig } from '../../helpers/breakout-helpers.js';
import { seedPopstan, startTestServer, type TestServer } from '../../helpers/http-server.js';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';
import { fixture } from '../../helpers/temp-home.js';
import { runBreakoutNow } from '../../../src/core/breakout/jobs/jobs.js';

let s: TestServer;
let db: TestDatabase;
let doc: OpenApiDoc;
let popstan: string;

before(async () => {
  db = await createPostgresDatabase();
  s = await startTestServer({
    seed: async (store) => {
      popstan = await seedPopstan(store);
      await setTargetConfig(store, popstan, db.config);
    },
  });
  doc = (await (await s.call(null, '/api/openapi.json')).json()) as OpenApiDoc;
});
after(async () => {
  await s?.close();
  await db?.drop();
});

const OLD = [
  'popstan_cases',
  'popstan_person',
  'popstan_housing',
  'popstan_notes',
  'popstan_cspro_jobs',
  'popstan_value_sets',
  'popstan_items',
];
const NEW = [
  'census2_cases',
  'census2_person',
  'census2_housing',
  'census2_notes',
  'census2_cspro_jobs',
  'census2_value_sets',
  'census2_items',
];
const sorted = (a: string[]) => [...a].sort();

async function json(r: Response, route: string, status: number): Promise<any> {
  const text = await r.text();
  assert.equal(r.status, status, `${route}: ${text}`);
  const body: unknown = JSON.parse(text);
  const [method, path] = route.split(' ') as [string, string];
  assert.deepEqual(checkReply(doc, method, path, status, body), [], `${route} ${status} against /api/openapi.json: ${text}`);
  return body;
}

async function pgTables(): Promise<string[]> {
  const q = await openQuery(db.config);
  try {
    return (await q.all("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name")).map(
      (r) => String(r.name),
    );
  } finally {
    await q.close();
  }
}

function form(source: Buffer | string, label: string): FormData {
  const f = new FormData();
  f.append('file', new Blob([source]), 'census.dcf');
  f.append('label', label);
  return f;
}

test(
  'PostgreSQL: a new label over POST, then a new structure over PUT, are announced; tables and log say what happened',
  { timeout: 120_000 },
  async () => {
    const dcf = readFileSync(fixture('popstan-census.json.dcf'));
    const first = await runBreakoutNow(s.store, { dictionary: popstan });
    assert.equal(first.status, 'completed', JSON.stringify(first));
    assert.deepEqual(await pgTables(), sorted(OLD));

    const up = await json(
      await s.call('api', '/api/dictionaries', { method: 'POST', body: form(dcf, 'census2') }),
      'post /api/dictionaries',
      200,
    );
    assert.equal(up.breakout_rebuild.reason, 'label');
    assert.deepEqual(up.breakout_rebuild.tables_dropped, OLD);
    assert.deepEqual(up.breakout_rebuild.tables_created, NEW);
    assert.match(up.breakout_rebuild.target, new RegExp(`^postgresql .*/${db.config.url!.split('/').pop()}$`));
    assert.match(up.message, /if the target still holds them/);
    assert.deepEqual(await pgTables(), sorted(OLD), 'the upload drops nothing');

    const held = await json(await s.call('api', `/api/breakout/tables/${popstan}`), 'get /api/breakout/tables/{dictionary}', 200);
    assert.equal(held.label, 'census2');
    assert.deepEqual(
      held.tables.map((t: { name: string }) => t.name),
      sorted(OLD),
    );
    assert.ok(held.tables.every((t: { stale: boolean }) => t.stale));
    assert.equal(held.tables.find((t: { name: string }) => t.name === 'popstan_cases').row_count, 4872);

    const rerun = await runBreakoutNow(s.store, { dictionary: popstan });
    assert.equal(rerun.status === 'completed' && rerun.result.total_cases, 4872);
    assert.deepEqual(await pgTables(), sorted(NEW));
    const logs = await json(await s.call('api', `/api/logs/breakout?dictionary=${popstan}&limit=1000`), 'get /api/logs/breakout', 200);
    const drops = (logs.logs as { level: string; message: string }[]).filter((l) => / dropped table /.test(l.message));
    assert.deepEqual(sorted(drops.map((l) => /dropped table (\S+) \(label: /.exec(l.message)![1]!)), sorted(OLD));
    assert.ok(drops.every((l) => l.level === 'warn'));
    const now = await json(await s.call('api', `/api/breakout/tables/${popstan}`), 'get /api/breakout/tables/{dictionary}', 200);
    assert.deepEqual(
      now.tables.map((t: { name: string }) => t.name),
      sorted(NEW),
    );
    assert.ok(now.tables.every((t: { stale: boolean }) => !t.stale));

    // PUT (the raw form) keeps the label; a new item in HOUSING is a structure change.
    const changed = JSON.parse(dcf.toString('utf8'));
    changed.levels[0].records
      .find((r: { name: string }) => r.name === 'HOUSING')
      .items.push({ name: 'H14_SOLAR', labels: [{ text: 'Solar' }], contentType: 'numeric', length: 1, zeroFill: true });
    const put = await json(
      await s.call('api', `/api/dictionaries/${popstan}`, {
        method: 'PUT',
        body: JSON.stringify(changed),
        headers: { 'content-type': 'text/plain' },
      }),
      'put /api/dictionaries/{name}',
      200,
    );
    assert.equal(put.code, 200);
    assert.equal(put.breakout_rebuild.reason, 'structure');
    assert.deepEqual(put.breakout_rebuild.tables_dropped, NEW);
    assert.deepEqual(put.breakout_rebuild.tables_created, NEW);
    const third = await runBreakoutNow(s.store, { dictionary: popstan });
    assert.equal(third.status, 'completed');
    const after = await json(await s.call('api', `/api/logs/breakout?dictionary=${popstan}&limit=1000`), 'get /api/logs/breakout', 200);
    const structureDrops = (after.logs as { message: string }[]).filter((l) => /dropped table \S+ \(structure: /.test(l.message));
    assert.deepEqual(sorted(structureDrops.map((l) => /dropped table (\S+)/.exec(l.message)![1]!)), sorted(NEW));

    // Same dictionary again: CSWeb's reply exactly, nothing announced.
    const idle = await json(
      await s.call('api', `/api/dictionaries/${popstan}`, {
        method: 'PUT',
        body: JSON.stringify(changed),
        headers: { 'content-type': 'text/plain' },
      }),
      'put /api/dictionaries/{name}',
      200,
    );
    assert.deepEqual(idle, { code: 200, description: 'Success' });
  },
);
