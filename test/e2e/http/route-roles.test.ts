/**
 * The route × role matrix, taken from the running server itself: every operation of
 * /api/openapi.json that names a permission is called without a token, and as each role, over the
 * real server on loopback. No token is 401; a role the permission table (docs/http-api.md) leaves
 * out is 403 `access_denied` naming the permission; a role it lets in is never 401 or 403. Path
 * parameters name things that do not exist, so an allowed call is a harmless 4xx (or a new file
 * under a throw-away name) and the matrix never depends on the order it runs in. A route added
 * later is in the matrix without a line changed here.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PERMISSIONS, type Permission } from '../../../src/core/auth/permissions.js';
import {
  seedEmptyDictionary,
  seedMedia,
  seedPopstan,
  startTestServer,
  USERS,
  type TestServer,
  type UserKey,
} from '../../helpers/http-server.js';

let t: TestServer;
before(async () => {
  t = await startTestServer({
    seed: async (store) => {
      await seedPopstan(store);
      await seedEmptyDictionary(store);
      await seedMedia(store);
    },
  });
});
after(() => t.close());

interface Operation {
  method: string;
  path: string;
  permission: Permission;
  params: { name: string; type?: string }[];
  body: boolean;
}

/** Operations with a permission, read off the server's own OpenAPI document. */
async function operations(): Promise<Operation[]> {
  const doc = (await (await fetch(`${t.base}/api/openapi.json`)).json()) as {
    paths: Record<
      string,
      Record<
        string,
        { description?: string; parameters?: { in: string; name: string; schema?: { type?: string } }[]; requestBody?: unknown }
      >
    >;
  };
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const m = /Permission `([a-z.]+)`/.exec(op.description ?? '');
      if (!m) continue;
      const params = (op.parameters ?? []).filter((p) => p.in === 'path').map((p) => ({ name: p.name, type: p.schema?.type }));
      ops.push({ method: method.toUpperCase(), path, permission: m[1] as Permission, params, body: op.requestBody !== undefined });
    }
  }
  return ops;
}

/**
 * A value for a path parameter that names nothing stored. A file path is one per caller: a file
 * an office account created may not be replaced by a field account (docs/sync.md), a rule of its
 * own tested in file-roles.test.ts.
 */
function absent(param: { name: string; type?: string }, caller: string): string {
  if (param.type === 'integer' || param.type === 'number' || /id$/i.test(param.name)) return '999999';
  if (param.name === 'path') return `matrix-probe/${caller}.txt`;
  return 'NO_SUCH_THING';
}

const ROLE_OF: Record<Exclude<UserKey, 'disabled'>, string> = {
  admin: USERS.admin.role,
  api: USERS.api.role,
  standard: USERS.standard.role,
};

test('every route with a permission: 401 without a token, 403 access_denied for a role the table leaves out, neither for a role it lets in', async () => {
  const ops = await operations();
  assert.ok(ops.length >= 40, `the document lists the API's routes (${ops.length})`);
  const wrong: string[] = [];
  let checked = 0;
  for (const op of ops) {
    const urlFor = (caller: string) =>
      op.params.reduce((url, p) => url.replace(`{${p.name}}`, encodeURIComponent(absent(p, caller))), op.path);
    const init = (): RequestInit =>
      op.body ? { method: op.method, headers: { 'content-type': 'application/json' }, body: '{}' } : { method: op.method };
    const anonymous = await t.call(null, urlFor('anonymous'), init());
    await anonymous.arrayBuffer();
    if (anonymous.status !== 401) wrong.push(`${op.method} ${op.path} without a token: ${anonymous.status}, not 401`);
    for (const user of Object.keys(ROLE_OF) as (keyof typeof ROLE_OF)[]) {
      const allowed = (PERMISSIONS[op.permission] as readonly string[]).includes(ROLE_OF[user]);
      const r = await t.call(user, urlFor(user), init());
      const text = await r.text();
      checked += 1;
      if (allowed && (r.status === 401 || r.status === 403)) {
        wrong.push(`${op.method} ${op.path} as ${ROLE_OF[user]} (allowed by ${op.permission}): ${r.status} ${text.slice(0, 200)}`);
      }
      if (!allowed) {
        const body = r.status === 403 ? (JSON.parse(text) as { error?: string; error_description?: string }) : {};
        if (r.status !== 403 || body.error !== 'access_denied' || !body.error_description?.includes(op.permission)) {
          wrong.push(`${op.method} ${op.path} as ${ROLE_OF[user]} (not in ${op.permission}): ${r.status} ${text.slice(0, 200)}`);
        }
      }
    }
  }
  assert.deepEqual(wrong, [], `${wrong.length} of ${checked} calls broke the role table`);
});

test('the permission table is what docs/http-api.md and the README say: Standard reads and syncs, API also writes and runs, Administrator also destroys and manages', () => {
  const holders = (role: string) =>
    (Object.keys(PERMISSIONS) as Permission[]).filter((p) => (PERMISSIONS[p] as readonly string[]).includes(role)).sort();
  assert.deepEqual(holders('Standard'), ['cases.read', 'cases.write', 'dictionaries.read', 'files.read', 'files.sync']);
  assert.deepEqual(holders('API'), [
    'breakout.read',
    'breakout.run',
    'cases.clear',
    'cases.delete',
    'cases.export',
    'cases.read',
    'cases.write',
    'dictionaries.read',
    'dictionaries.write',
    'files.read',
    'files.sync',
    'files.write',
    'messages.read',
    'reports.read',
    'reports.write',
  ]);
  assert.deepEqual(holders('Administrator'), (Object.keys(PERMISSIONS) as Permission[]).sort());
});

/**
 * Which permission each route needs: a decision, written down here so that a route that changes
 * its permission (or a new route) is a visible change of this table and of docs/http-api.md. The
 * public routes answer to their own credentials (the token grant, the webhook scripts' tokens).
 */
const ROUTE_PERMISSIONS: Record<string, Permission | 'public'> = {
  'POST /api/token': 'public',
  'GET /api/dictionaries': 'dictionaries.read',
  'POST /api/dictionaries': 'dictionaries.write',
  'GET /api/dictionnaires': 'dictionaries.read',
  'GET /api/dictionaries/{name}': 'dictionaries.read',
  'PUT /api/dictionaries/{name}': 'dictionaries.write',
  'DELETE /api/dictionaries/{name}': 'dictionaries.delete',
  'GET /api/dictionaries/{name}/cases': 'cases.read',
  'POST /api/dictionaries/{name}/cases': 'cases.write',
  'GET /api/files/media/{filename}/content': 'files.read',
  'GET /api/files/media/{filename}': 'files.read',
  'GET /api/server': 'cases.read',
  'GET /api/dictionaries/{name}/cases/{id}': 'cases.read',
  'DELETE /api/dictionaries/{name}/cases/{id}': 'cases.delete',
  'GET /api/dictionaries/{name}/metadata': 'cases.read',
  'GET /api/dictionaries/{name}/binary-data/{signature}': 'cases.read',
  'DELETE /api/dictionaries/{name}/data': 'cases.clear',
  'GET /api/dictionaries/{name}/export': 'cases.export',
  'GET /api/files/{path}/content': 'files.sync',
  'PUT /api/files/{path}/content': 'files.sync',
  'GET /api/folders': 'files.sync',
  'GET /api/folders/{path}': 'files.sync',
  'GET /api/apps': 'files.sync',
  'GET /api/apps/{name}': 'files.sync',
  'PUT /api/apps/{name}': 'files.write',
  'DELETE /api/apps/{name}': 'files.write',
  'POST /api/messages': 'cases.write',
  'GET /api/messages': 'messages.read',
  'GET /api/dictionaries/{name}/syncs': 'reports.read',
  'GET /api/sync-report': 'reports.read',
  'PUT /api/dictionaries/{name}/area-names': 'reports.write',
  'POST /api/breakout/start': 'breakout.run',
  'GET /api/breakout/status/{job_id}': 'breakout.read',
  'GET /api/breakout/jobs': 'breakout.read',
  'GET /api/breakout/tables/{dictionary}': 'breakout.read',
  'DELETE /api/breakout/tables/{dictionary}': 'breakout.drop',
  'POST /api/breakout/trigger': 'breakout.run',
  'GET /api/logs/breakout': 'breakout.read',
  'GET /api/metrics': 'breakout.read',
  'GET /scheduler/schedules': 'scheduler.manage',
  'POST /scheduler/add': 'scheduler.manage',
  'PUT /scheduler/update': 'scheduler.manage',
  'PUT /scheduler/toggle': 'scheduler.manage',
  'DELETE /scheduler/{id}': 'scheduler.manage',
  'POST /scheduler/{id}/run-now': 'scheduler.manage',
  'GET /scheduler/{id}/runs': 'scheduler.manage',
  'GET /api/webhooks': 'webhooks.manage',
  'POST /api/webhooks': 'webhooks.manage',
  'PUT /api/webhooks/{id}': 'webhooks.manage',
  'DELETE /api/webhooks/{id}': 'webhooks.manage',
  'POST /api/webhooks/{id}/test': 'webhooks.manage',
  'GET /api/webhooks/{id}/deliveries': 'webhooks.manage',
  'POST /api/webhooks/{id}/deliveries/{delivery_id}/redeliver': 'webhooks.manage',
  'POST /api/webhooks/{id}/redeliver-failed': 'webhooks.manage',
  'POST /api/users/import': 'users.manage',
  'POST /api/users': 'users.manage',

  'GET /api/audit': 'audit.read',
  'GET /breakout-status-webhook.php': 'public',
  'POST /breakout-webhook.php': 'public',
  'GET /log-reader-webhook.php': 'public',
  'GET /dictionary-schema-webhook.php': 'public',
  'POST /dictionary-schema-webhook.php': 'public',
  // Health and metrics: no OAuth token; /metrics checks SDS_METRICS_TOKEN itself (docs/metrics.md).
  'GET /healthz': 'public',
  'GET /readyz': 'public',
  'GET /metrics': 'public',
  'GET /api/openapi.json': 'public',
};

test('each route needs the permission the role table decides (a changed or new route changes this table)', async () => {
  const doc = (await (await fetch(`${t.base}/api/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { description?: string }>>;
  };
  const actual: Record<string, string> = {};
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods))
      actual[`${method.toUpperCase()} ${path}`] = /Permission `([a-z.]+)`/.exec(op.description ?? '')?.[1] ?? 'public';
  }
  assert.deepEqual(actual, ROUTE_PERMISSIONS);
});
