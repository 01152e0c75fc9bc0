/**
 * The route × role matrix, taken from the running server itself: every operation of
 * /api/openapi.json that names a permission is called without a token, and as each role, over the
 * real server on loopback. No token is 401; a role the permission table (docs/http-api.md) leaves
 * out is 403 `access_denied` naming the permission; a role it lets in is never 401 or 403. Path
 * parameters name things that do not exist, so an allowed call is a harmless 4xx (or a new file
 * under a throw-away name) and the matrix never depends on the order it runs in. A route added
 * later is in the matrix without a line changed here. The callers are the four built-in roles
 * and a custom one; per-dictionary rows are checked on their own below
 * (docs/supervision.md#roles-and-rights).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILTIN_ROLES, RIGHTS, type Right } from '../../../src/core/auth/index.js';
import { addRole, setRoleRights } from '../../../src/core/auth/rights/roles.js';
import { addUser } from '../../../src/core/auth/users.js';
import { seedEmptyDictionary, seedMedia, seedPopstan, startTestServer, USERS, type TestServer } from '../../helpers/http-server.js';

type Permission = Right;

/** A custom role of the matrix: what a field supervisor of an office might get. */
const SUPERVISOR_RIGHTS: readonly Right[] = [
  'dictionaries.read',
  'data.read',
  'data.write',
  'breakout.read',
  'messages.read',
  'roles.read',
  'users.read',
];
/** Accounts beside the helper's: a Developer and a custom role's. */
const MORE_USERS = {
  developer: { username: 'dev', password: 'developer-pass-1', role: 'Developer' },
  supervisor: { username: 'super', password: 'supervisor-pass1', role: 'Supervisor' },
  clerk: { username: 'clerk', password: 'clerk-password-1', role: 'Clerk' },
} as const;

let t: TestServer;
let popstan: string;
let simple: string;
before(async () => {
  t = await startTestServer({
    seed: async (store) => {
      popstan = await seedPopstan(store);
      simple = await seedEmptyDictionary(store);
      await seedMedia(store);
      await addRole(store, 'Supervisor', [...SUPERVISOR_RIGHTS]);
      // A row on a dictionary the matrix never names: nothing there, the defaults everywhere else.
      await setRoleRights(store, 'Supervisor', 'data.none', popstan);
      // A role with no data rights by default, given cases of one dictionary only.
      await addRole(store, 'Clerk', 'dictionaries.read');
      await setRoleRights(store, 'Clerk', 'data.read,breakout.run', simple);
      for (const u of Object.values(MORE_USERS)) await addUser(store, u.username, u.role, u.password);
    },
  });
});
after(() => t.close());

const tokens = new Map<string, string>();
/** `fetch` as one of the accounts of MORE_USERS, logged in once. */
async function callAs(user: keyof typeof MORE_USERS, path: string, init: RequestInit = {}): Promise<Response> {
  const u = MORE_USERS[user];
  if (!tokens.has(user)) {
    const r = await fetch(`${t.base}/api/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', username: u.username, password: u.password }),
    });
    assert.equal(r.status, 200, `login ${user}`);
    tokens.set(user, ((await r.json()) as { access_token: string }).access_token);
  }
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${tokens.get(user)}`);
  return fetch(`${t.base}${path}`, { ...init, headers });
}

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

/** Each caller of the matrix, with the rights its role holds on a dictionary without rows. */
const CALLERS: { name: string; role: string; rights: readonly Right[]; call: (path: string, init: RequestInit) => Promise<Response> }[] = [
  { name: 'admin', role: USERS.admin.role, rights: BUILTIN_ROLES.Administrator!, call: (p, i) => t.call('admin', p, i) },
  { name: 'api', role: USERS.api.role, rights: BUILTIN_ROLES.API!, call: (p, i) => t.call('api', p, i) },
  { name: 'standard', role: USERS.standard.role, rights: BUILTIN_ROLES['Standard User']!, call: (p, i) => t.call('standard', p, i) },
  { name: 'developer', role: 'Developer', rights: BUILTIN_ROLES.Developer!, call: (p, i) => callAs('developer', p, i) },
  { name: 'supervisor', role: 'Supervisor', rights: SUPERVISOR_RIGHTS, call: (p, i) => callAs('supervisor', p, i) },
];

test('every route with a right: 401 without a token, 403 access_denied for a role without it (built-in or custom), neither for a role with it', async () => {
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
    for (const caller of CALLERS) {
      const allowed = caller.rights.includes(op.permission);
      const r = await caller.call(urlFor(caller.name), init());
      const text = await r.text();
      checked += 1;
      if (allowed && (r.status === 401 || r.status === 403)) {
        wrong.push(`${op.method} ${op.path} as ${caller.role} (allowed by ${op.permission}): ${r.status} ${text.slice(0, 200)}`);
      }
      if (!allowed) {
        const body = r.status === 403 ? (JSON.parse(text) as { error?: string; error_description?: string }) : {};
        if (r.status !== 403 || body.error !== 'access_denied' || !body.error_description?.includes(op.permission)) {
          wrong.push(`${op.method} ${op.path} as ${caller.role} (not in ${op.permission}): ${r.status} ${text.slice(0, 200)}`);
        }
      }
    }
  }
  assert.deepEqual(wrong, [], `${wrong.length} of ${checked} calls broke the role table`);
});

test("the built-in roles hold what sds's roles could do before roles: Standard User reads and syncs, API also writes and runs, Administrator everything", () => {
  const sorted = (role: string) => [...BUILTIN_ROLES[role]!].sort();
  assert.deepEqual(sorted('Standard User'), [
    'apps.read',
    'data.read',
    'data.write',
    'dictionaries.read',
    'files.read',
    'files.sync',
    'messages.write',
    'paradata.read',
    'paradata.write',
  ]);
  assert.deepEqual(sorted('API'), [
    'apps.read',
    'apps.write',
    'breakout.read',
    'breakout.run',
    'data.clear',
    'data.delete',
    'data.export',
    'data.read',
    'data.write',
    'dictionaries.read',
    'dictionaries.write',
    'files.read',
    'files.sync',
    'files.write',
    'messages.read',
    'messages.write',
    'paradata.read',
    'paradata.write',
    'reports.read',
    'reports.write',
  ]);
  assert.deepEqual(sorted('Administrator'), [...RIGHTS].sort());
  // Developer: CSWeb 8.1's, without roles.* and without sds's destroying rights.
  for (const r of [
    'roles.read',
    'roles.write',
    'data.clear',
    'data.delete',
    'dictionaries.delete',
    'breakout.drop',
    'webhooks.manage',
    'scheduler.manage',
  ] as const) {
    assert.ok(!BUILTIN_ROLES.Developer!.includes(r), `Developer lacks ${r}`);
  }
});

/**
 * Which right each route needs: a decision, written down here so that a route that changes
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
  'GET /api/dictionaries/{name}/cases': 'data.read',
  'POST /api/dictionaries/{name}/cases': 'data.write',
  'GET /api/files/media/{filename}/content': 'files.read',
  'GET /api/files/media/{filename}': 'files.read',
  'GET /api/server': 'data.read',
  'GET /api/dictionaries/{name}/cases/{id}': 'data.read',
  'DELETE /api/dictionaries/{name}/cases/{id}': 'data.delete',
  'GET /api/dictionaries/{name}/metadata': 'dictionaries.read',
  'GET /api/dictionaries/{name}/binary-data/{signature}': 'data.read',
  'DELETE /api/dictionaries/{name}/data': 'data.clear',
  'GET /api/dictionaries/{name}/export': 'data.export',
  'GET /api/dictionaries/{name}/gps': 'dictionaries.read',
  'PUT /api/dictionaries/{name}/gps': 'dictionaries.write',
  'DELETE /api/dictionaries/{name}/gps': 'dictionaries.write',
  'GET /api/files/{path}/content': 'files.sync',
  'PUT /api/files/{path}/content': 'files.sync',
  'GET /api/folders': 'files.sync',
  'GET /api/folders/{path}': 'files.sync',
  'GET /api/apps': 'apps.read',
  'GET /api/apps/{name}': 'apps.read',
  'PUT /api/apps/{name}': 'apps.write',
  'DELETE /api/apps/{name}': 'apps.write',
  'POST /api/messages': 'messages.write',
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
  'GET /api/roles': 'roles.read',
  'POST /api/roles': 'roles.write',
  'GET /api/roles/{name}': 'roles.read',
  'DELETE /api/roles/{name}': 'roles.write',
  'PUT /api/roles/{name}/rights': 'roles.write',
  'GET /api/users': 'users.read',
  'PUT /api/users/{username}/role': 'users.write',
  'POST /api/users/import': 'users.write',
  'POST /api/users': 'users.write',
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

/** The status of a call and, for a 403, the right and dictionary its message names. */
async function outcome(r: Response): Promise<string> {
  const text = await r.text();
  if (r.status !== 403) return String(r.status);
  const body = JSON.parse(text) as { error?: string; error_description?: string };
  assert.equal(body.error, 'access_denied', text);
  return `403 ${/needs ([a-z.]+)/.exec(body.error_description ?? '')?.[1]}${/on dictionary (\S+)/.test(body.error_description ?? '') ? ' on ' + /on dictionary (\S+)/.exec(body.error_description!)![1] : ''}`;
}

test('per-dictionary rows: data.none refuses one dictionary, rows grant one dictionary, and the metadata reports the effective rights', async () => {
  const cases = (d: string) => `/api/dictionaries/${encodeURIComponent(d)}/cases`;
  const metadata = async (call: (p: string) => Promise<Response>, d: string) => {
    const r = await call(`/api/dictionaries/${encodeURIComponent(d)}/metadata`);
    return r.status === 200 ? ((await r.json()) as { permissions: string[] }).permissions : await outcome(r);
  };
  // Supervisor: data.none on Popstan, its defaults elsewhere.
  assert.equal(await outcome(await callAs('supervisor', cases(popstan))), `403 data.read on ${popstan}`);
  assert.equal(await outcome(await callAs('supervisor', cases(simple))), '200');
  assert.deepEqual(await metadata((p) => callAs('supervisor', p), simple), ['data.read', 'data.write']);
  assert.deepEqual(await metadata((p) => callAs('supervisor', p), popstan), ['data.none'], 'told it may do nothing there');
  // Its rights that are not a dictionary's stay: it still lists the dictionaries (not Popstan,
  // where it may do nothing) and reads messages.
  const listed = await callAs('supervisor', '/api/dictionaries');
  assert.equal(listed.status, 200);
  const names = ((await listed.json()) as { dictionaryName: string }[]).map((d) => d.dictionaryName);
  assert.ok(names.includes(simple) && !names.includes(popstan), JSON.stringify(names));
  const all = ((await (await callAs('developer', '/api/dictionaries')).json()) as { dictionaryName: string }[]).map(
    (d) => d.dictionaryName,
  );
  assert.ok(all.includes(popstan) && all.includes(simple), 'a role without rows lists every dictionary');
  assert.equal(await outcome(await callAs('supervisor', '/api/messages')), '200');

  // Clerk: no data rights by default; data.read and breakout.run on Simple only.
  assert.equal(await outcome(await callAs('clerk', cases(simple))), '200');
  assert.equal(await outcome(await callAs('clerk', cases(popstan))), `403 data.read on ${popstan}`);
  assert.deepEqual(await metadata((p) => callAs('clerk', p), simple), ['data.read']);
  assert.deepEqual(await metadata((p) => callAs('clerk', p), popstan), ['data.none']);
  // A route that names no dictionary: held because the role holds it on one.
  assert.equal(await outcome(await callAs('clerk', '/api/server')), '200');
  // The breakout names its dictionaries in the body: each is checked.
  const start = (dictionaries: string[]) =>
    callAs('clerk', '/api/breakout/start', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dictionaries, threads: 1 }),
    });
  assert.equal(await outcome(await start([simple, popstan])), `403 breakout.run on ${popstan}`);
  assert.equal(
    await outcome(
      await callAs('clerk', '/api/breakout/trigger', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ dictionary: popstan }),
      }),
    ),
    `403 breakout.run on ${popstan}`,
  );

  // A built-in role limited on one dictionary, from the next request on, with the same token.
  assert.deepEqual(await metadata((p) => t.call('standard', p), simple), ['data.read', 'data.write']);
  await setRoleRights(t.store, 'Standard User', 'data.read', simple);
  assert.deepEqual(await metadata((p) => t.call('standard', p), simple), ['data.read']);
  const upload = await t.call('standard', cases(simple), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[]' });
  assert.equal(await outcome(upload), `403 data.write on ${simple}`);
  assert.deepEqual(
    await metadata((p) => t.call('standard', p), popstan),
    ['data.read', 'data.write'],
    'other dictionaries keep the defaults',
  );
  await setRoleRights(t.store, 'Standard User', 'data.none', simple);
  assert.deepEqual(await metadata((p) => t.call('standard', p), simple), ['data.none']);
  assert.equal(await outcome(await t.call('standard', cases(simple))), `403 data.read on ${simple}`);
  await setRoleRights(t.store, 'Standard User', 'default', simple);
  assert.deepEqual(await metadata((p) => t.call('standard', p), simple), ['data.read', 'data.write'], 'default removes the rows');
});
