/**
 * The sync history and supervision report routes over the real server on loopback
 * (docs/supervision.md#sync-history-and-reports): two devices sync the Popstan census as the
 * CSPro client does, then `GET /api/dictionaries/{name}/syncs`, `GET /api/sync-report` (JSON and
 * CSV), `PUT /api/dictionaries/{name}/area-names`, who may call them (reports.read and
 * reports.write: API and Administrator), and the devices-seen gauge of `GET /metrics`; every JSON
 * reply checked against the served OpenAPI document.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedPopstan, startTestServer, type TestServer, type UserKey } from '../../helpers/http-server.js';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';
import { popstanCases, SyncDevice } from '../../helpers/sync-client.js';
import { storeSql } from '../../helpers/temp-home.js';

const TOKEN = 'metrics-token-0123456789abcdef';
let t: TestServer;
let doc: OpenApiDoc;
let dict = '';
/** Cases of the page that completed tablet-b's download: what its history row records (docs/supervision.md#sync-history-and-reports). */
let downloaded = 0;

/** GET `path` as `user`, checked against the document when JSON; the status, type and body. */
async function get(user: UserKey, path: string, template: string): Promise<{ status: number; type: string; body: any; text: string }> {
  const r = await t.call(user, path);
  const text = await r.text();
  const type = r.headers.get('content-type') ?? '';
  const body = type.startsWith('application/json') ? (JSON.parse(text) as unknown) : undefined;
  if (body !== undefined) assert.deepEqual(checkReply(doc, 'GET', template, r.status, body), [], `${path} ${r.status}: ${text}`);
  return { status: r.status, type, body, text };
}

before(async () => {
  t = await startTestServer({
    seed: async (store) => {
      dict = await seedPopstan(store);
    },
    config: { metricsToken: TOKEN },
  });
  doc = (await (await t.call(null, '/api/openapi.json')).json()) as OpenApiDoc;
  const a = new SyncDevice(t, 'tablet-a', 'standard');
  const b = new SyncDevice(t, 'tablet-b', 'api');
  assert.equal((await a.put(dict, popstanCases(3, 'tablet-a'))).status, 200);
  assert.equal((await b.put(dict, popstanCases(2, 'tablet-b'))).status, 200);
  const { cases, pages } = await b.get(dict, 500);
  assert.ok(pages.length > 1 && cases.length > 500, 'a download of several pages');
  // The history row of the download holds the cases of every page, not only of its last.
  downloaded = cases.length;
  assert.ok(Number(pages.at(-1)!.range.split('/')[0]) < downloaded);
});
after(() => t.close());

test('GET /api/dictionaries/{name}/syncs: every sync newest first, filters, CSV; Standard may not', async () => {
  const all = await get('api', `/api/dictionaries/${dict}/syncs`, '/api/dictionaries/{name}/syncs');
  assert.equal(all.status, 200);
  assert.deepEqual(
    all.body.data.map((h: any) => [h.device, h.username, h.direction, h.cases]),
    [
      ['tablet-b', 'integration', 'down', downloaded],
      ['tablet-b', 'integration', 'up', 2],
      ['tablet-a', 'interviewer', 'up', 3],
    ],
  );
  assert.deepEqual([all.body.total, all.body.next_cursor], [3, null]);

  const up = await get('admin', `/api/dictionaries/${dict}/syncs?direction=up&device=tablet-b`, '/api/dictionaries/{name}/syncs');
  assert.deepEqual(
    up.body.data.map((h: any) => h.cases),
    [2],
  );
  const paged = await get('admin', `/api/dictionaries/${dict}/syncs?limit=1`, '/api/dictionaries/{name}/syncs');
  const next = await get(
    'admin',
    `/api/dictionaries/${dict}/syncs?limit=1&cursor=${paged.body.next_cursor}`,
    '/api/dictionaries/{name}/syncs',
  );
  assert.deepEqual([paged.body.data[0].direction, next.body.data[0].direction, next.body.data[0].cases], ['down', 'up', 2]);

  const csv = await get('api', `/api/dictionaries/${dict}/syncs?format=csv&user=interviewer`, '/api/dictionaries/{name}/syncs');
  assert.equal(csv.type, 'text/csv; charset=utf-8');
  const lines = csv.text.trimEnd().split('\r\n');
  assert.equal(lines[0], 'id,created_at,dictionary,device,username,direction,revision,cases,universe');
  assert.deepEqual(
    lines.slice(1).map((l) => l.split(',').slice(2, 8)),
    [[dict, 'tablet-a', 'interviewer', 'up', lines[1]!.split(',')[6]!, '3']],
  );

  const denied = await get('standard', `/api/dictionaries/${dict}/syncs`, '/api/dictionaries/{name}/syncs');
  assert.equal(denied.status, 403);
  const bad = await get('api', `/api/dictionaries/${dict}/syncs?since=yesterday`, '/api/dictionaries/{name}/syncs');
  assert.deepEqual([bad.status, bad.body.error], [400, 'USAGE']);
  const missing = await get('api', '/api/dictionaries/NOPE/syncs', '/api/dictionaries/{name}/syncs');
  assert.deepEqual([missing.status, missing.body.error], [404, 'DICTIONARY_NOT_FOUND']);
});

test('GET /api/sync-report by device and by user: totals, the CSPro version of each device', async () => {
  const r = await get('api', `/api/sync-report?dictionary=${dict}&by=device`, '/api/sync-report');
  assert.equal(r.status, 200);
  assert.deepEqual(
    r.body.rows.map((x: any) => [
      x.device,
      x.uploads,
      x.cases_uploaded,
      x.downloads,
      x.cases_downloaded,
      x.users,
      x.last_user,
      x.app_version,
    ]),
    [
      ['tablet-a', 1, 3, 0, 0, 1, 'interviewer', '8.0'],
      ['tablet-b', 1, 2, 1, downloaded, 1, 'integration', '8.0'],
    ],
  );
  const users = await get('admin', '/api/sync-report?format=csv', '/api/sync-report');
  assert.equal(users.type, 'text/csv; charset=utf-8');
  const lines = users.text.trimEnd().split('\r\n');
  assert.equal(lines[0], 'user,uploads,cases_uploaded,downloads,cases_downloaded,first_sync,last_sync,devices,last_device,app_version');
  assert.deepEqual(
    lines.slice(1).map((l) => l.split(',').slice(0, 5)),
    [
      ['integration', '1', '2', '1', String(downloaded)],
      ['interviewer', '1', '3', '0', '0'],
    ],
  );
  // Seen just now: nobody is "not seen" for a day.
  const quiet = await get('api', '/api/sync-report?by=device&not_seen=1', '/api/sync-report');
  assert.deepEqual([quiet.body.total, quiet.body.rows], [0, []]);
  const bad = await get('api', '/api/sync-report?by=week', '/api/sync-report');
  assert.deepEqual([bad.status, bad.body.error], [400, 'USAGE']);
  assert.equal((await get('standard', '/api/sync-report', '/api/sync-report')).status, 403);
});

test('PUT area names, then GET /api/sync-report by ids: live cases per province, with their names', async () => {
  const put = (user: UserKey, csv: string, query = '') =>
    t.call(user, `/api/dictionaries/${dict}/area-names${query}`, { method: 'PUT', headers: { 'content-type': 'text/csv' }, body: csv });
  const stored = await put('api', 'code,name\n1,Province One\n2,Province Two\n', '?header=true');
  const reply = await stored.json();
  assert.equal(stored.status, 200, JSON.stringify(reply));
  assert.deepEqual(checkReply(doc, 'PUT', '/api/dictionaries/{name}/area-names', 200, reply), []);
  assert.equal((reply as { areas: number }).areas, 2);

  const r = await get('admin', `/api/sync-report?dictionary=${dict}&by=ids&ids=PROVINCE&limit=10000`, '/api/sync-report');
  assert.equal(r.status, 200);
  const [live] = await storeSql(t.store, 'SELECT count(*) AS n FROM cases WHERE deleted = 0');
  const rows = r.body.rows as { ids: { PROVINCE: string }; names: { PROVINCE: string | null }; cases: number }[];
  assert.equal(
    rows.reduce((n, x) => n + x.cases, 0),
    Number(live!.n),
    'every live case in one group',
  );
  const named = Object.fromEntries(rows.map((x) => [x.ids.PROVINCE, x.names.PROVINCE]));
  assert.equal(named['01'], 'Province One');
  assert.equal(named['02'], 'Province Two');
  assert.deepEqual(r.body.id_items, ['PROVINCE']);

  const bad = await put('api', '1,One\n1,Again\n');
  const body = (await bad.json()) as { error: string; message: string };
  assert.deepEqual([bad.status, body.error], [400, 'AREA_NAMES_INVALID']);
  assert.match(body.message, /line 2: the same codes as line 1/);
  assert.equal((await put('standard', '1,One\n')).status, 403);
  const ids = await get('api', `/api/sync-report?dictionary=${dict}&by=ids&ids=NOPE`, '/api/sync-report');
  assert.deepEqual([ids.status, ids.body.error], [400, 'REPORT_IDS_INVALID']);
});

test('GET /metrics: the devices that synced each dictionary in the last 24 hours', async () => {
  const r = await fetch(`${t.base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await r.text();
  assert.equal(r.status, 200);
  assert.match(text, /# TYPE sds_sync_devices_seen_24h gauge/);
  assert.match(text, new RegExp(`^sds_sync_devices_seen_24h\\{dictionary="${dict}"\\} 2$`, 'm'));
  assert.doesNotMatch(text, /sds_sync_devices_seen_24h\{[^}]*device=/, 'no per-device labels');
});
