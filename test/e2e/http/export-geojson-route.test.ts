/**
 * `GET /api/dictionaries/{name}/export?format=geojson` over a real `sds serve`
 * (docs/export.md#geojson): the GeoJSON file streamed as `application/geo+json`, read back by
 * GDAL's `ogrinfo`, the same bytes as `sds export` but for nothing (the file holds no time);
 * the GPS items set for the dictionary used when none are asked; the refusals, each described by
 * the served OpenAPI document.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';
import { tempHome } from '../../helpers/temp-home.js';
import { GPS_CASES, GPS_DICTIONARY, writeGpsFixture } from '../../helpers/gps-fixture.js';
import { readGeoJsonWithOgr } from '../../helpers/read-geojson.js';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';

const PASSWORD = 'correct horse battery staple';
const home = await tempHome();
let s: ServeProcess;
const tokens: Record<string, string> = {};
let doc: OpenApiDoc;

before(async () => {
  for (const [user, role] of [
    ['api', 'API'],
    ['field', 'Standard User'],
  ]) {
    const add = runCli(home.root, ['users', 'add', user!, '--role', role!, '--password-stdin'], { stdin: PASSWORD + '\n' });
    assert.equal(add.code, 0, show(add));
  }
  const { dcf, dat } = writeGpsFixture(home.root);
  for (const args of [
    ['dict', 'upload', dcf, '--label', 'gps'],
    ['cases', 'import', GPS_DICTIONARY, dat, '-q'],
    ['export', GPS_DICTIONARY, '--format', 'geojson', '--out', join(home.root, 'cli'), '--lat', 'LAT', '--lon', 'LON', '--item', 'TENURE'],
  ]) {
    const r = await sds(home.root, args);
    assert.equal(r.code, 0, show(r));
  }
  s = await startServe(home.root);
  for (const user of ['api', 'field']) {
    const r = await fetch(`${s.url}/api/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', username: user, password: PASSWORD }).toString(),
    });
    assert.equal(r.status, 200, await r.clone().text());
    tokens[user] = ((await r.json()) as { access_token: string }).access_token;
  }
  doc = (await (await fetch(`${s.url}/api/openapi.json`)).json()) as OpenApiDoc;
});
after(async () => {
  await s?.stop();
  await home.cleanup();
});

const get = (path: string, user = 'api') => fetch(`${s.url}${path}`, { headers: { Authorization: `Bearer ${tokens[user]}` } });
const send = (method: string, path: string, body?: unknown, user = 'api') =>
  fetch(`${s.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${tokens[user]}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** The body saved to a file, as GDAL reads it. */
async function layerOf(r: Response) {
  const file = join(home.root, `body-${Math.random().toString(36).slice(2)}.geojson`);
  writeFileSync(file, Buffer.from(await r.arrayBuffer()));
  return { layer: readGeoJsonWithOgr(file), bytes: readFileSync(file) };
}

test('format=geojson: the points as application/geo+json, the same file sds export writes', async () => {
  const r = await get(`/api/dictionaries/${GPS_DICTIONARY}/export?format=geojson&lat=LAT&lon=LON&item=TENURE`);
  assert.equal(r.status, 200, await r.clone().text());
  assert.equal(r.headers.get('content-type'), 'application/geo+json');
  assert.match(r.headers.get('content-disposition')!, /attachment; filename="gps\.geojson"/);
  const { layer, bytes } = await layerOf(r);
  assert.ok(bytes.equals(readFileSync(join(home.root, 'cli', 'gps.geojson'))), 'same bytes as the CLI export');
  assert.equal(layer.geometry, 'Point');
  const withPoints = GPS_CASES.filter((c) => c.household && ['0001', '0002', '0007'].includes(c.id));
  assert.equal(layer.featureCount, withPoints.length);
  assert.deepEqual(
    layer.features.map((f) => [f.point, f.values.tenure]),
    withPoints.map((c) => [[Number(c.household!.lon), Number(c.household!.lat)], c.household!.tenure]),
  );
  const summary = layer.native.sds as Record<string, number>;
  assert.equal(summary.without_coordinates, GPS_CASES.length - withPoints.length, 'the count is in the file (no trailer after a stream)');
  const described = doc.paths['/api/dictionaries/{name}/export']!.get! as unknown as {
    responses: Record<string, { content: Record<string, unknown> }>;
    parameters?: { name: string }[];
  };
  assert.ok(Object.keys(described.responses['200']!.content).includes('application/geo+json'));
  assert.deepEqual(
    (described.parameters ?? []).map((p) => p.name).filter((n) => ['lat', 'lon', 'item'].includes(n)),
    ['lat', 'lon', 'item'],
  );
});

test('the GPS items set for the dictionary, when the request names none; repeated item= parameters', async () => {
  const set = await sds(home.root, ['dict', 'set-gps', GPS_DICTIONARY, '--lat', 'PLOT_LAT', '--lon', 'PLOT_LON']);
  assert.equal(set.code, 0, show(set));
  const r = await get(`/api/dictionaries/${GPS_DICTIONARY}/export?format=geojson&item=CROP&item=name`);
  assert.equal(r.status, 200, await r.clone().text());
  const { layer } = await layerOf(r);
  const plots = GPS_CASES.flatMap((c) => c.plots).filter((p) => p.lat !== '' && Math.abs(Number(p.lat)) <= 90);
  assert.equal(layer.featureCount, plots.length);
  assert.deepEqual(Object.keys(layer.features[0]!.values), ['case_id', 'hhid', 'occ', 'crop', 'name']);
  assert.deepEqual((layer.native.sds as Record<string, string>).latitude, 'PLOT_LAT');
});

test('refusals before any byte: no GPS items, bad items, options of other formats, rights', async () => {
  const clear = await sds(home.root, ['dict', 'set-gps', GPS_DICTIONARY, '--clear']);
  assert.equal(clear.code, 0, show(clear));
  const path = `/api/dictionaries/${GPS_DICTIONARY}/export`;
  for (const [query, status, code] of [
    ['format=geojson', 400, 'EXPORT_GPS_UNSET'],
    ['format=geojson&lat=LAT&lon=PLOT_LON', 400, 'GPS_ITEM_INVALID'],
    ['format=geojson&lat=LAT&lon=LON&item=CROP', 400, 'GEOJSON_ITEM_INVALID'],
    ['format=geojson&lat=LAT', 400, 'USAGE'],
    ['format=csv&lat=LAT&lon=LON', 400, 'USAGE'],
    ['format=geojson&lat=LAT&lon=LON&record=PLOT', 400, 'USAGE'],
  ] as const) {
    const r = await get(`${path}?${query}`);
    const body = (await r.json()) as { error: string; message: string };
    assert.equal(r.status, status, `${query}: ${JSON.stringify(body)}`);
    assert.equal(body.error, code, query);
    assert.doesNotMatch(body.message, /--|sds /, `${query}: no CLI words over HTTP`);
    assert.deepEqual(checkReply(doc, 'GET', '/api/dictionaries/{name}/export', status, body), [], query);
  }
  const field = await get(`${path}?format=geojson&lat=LAT&lon=LON`, 'field');
  assert.equal(field.status, 403);
});

test('GET, PUT and DELETE /api/dictionaries/{name}/gps: read, checked, set, used, cleared, audited', async () => {
  const path = `/api/dictionaries/${GPS_DICTIONARY}/gps`;
  const reply = async (r: Response, status: number, method: string) => {
    const body = (await r.json()) as Record<string, unknown>;
    assert.equal(r.status, status, JSON.stringify(body));
    assert.deepEqual(checkReply(doc, method, '/api/dictionaries/{name}/gps', status, body), [], `${method}: ${JSON.stringify(body)}`);
    return body;
  };
  const before = await reply(await get(path), 200, 'GET');
  assert.deepEqual([before.latitude, before.longitude, before.record], [null, null, null]);
  const bad = await reply(await send('PUT', path, { latitude: 'LAT', longitude: 'PLOT_LON' }), 400, 'PUT');
  assert.equal(bad.error, 'GPS_ITEM_INVALID');
  assert.equal((await reply(await send('PUT', path, { latitude: 'LAT' }), 400, 'PUT')).error, 'USAGE');
  assert.equal(
    (await reply(await send('PUT', '/api/dictionaries/NOPE/gps', { latitude: 'A', longitude: 'B' }), 404, 'PUT')).error,
    'DICTIONARY_NOT_FOUND',
  );
  assert.equal((await send('PUT', path, { latitude: 'LAT', longitude: 'LON' }, 'field')).status, 403);

  const set = await reply(await send('PUT', path, { latitude: 'lat', longitude: 'lon' }), 200, 'PUT');
  assert.deepEqual([set.dictionary, set.latitude, set.longitude, set.record], [GPS_DICTIONARY, 'LAT', 'LON', 'HOUSEHOLD']);
  assert.deepEqual((await reply(await get(path), 200, 'GET')).latitude, 'LAT');
  const shown = await sds(home.root, ['dict', 'show', GPS_DICTIONARY, '--json']);
  assert.deepEqual(shown.json<{ gps: unknown }>().gps, { latitude: 'LAT', longitude: 'LON' }, 'the CLI reads what HTTP set');
  const exported = await get(`/api/dictionaries/${GPS_DICTIONARY}/export?format=geojson`);
  assert.equal(exported.status, 200);
  assert.equal(((await layerOf(exported)).layer.native.sds as Record<string, string>).latitude, 'LAT');

  const cleared = await reply(await send('DELETE', path), 200, 'DELETE');
  assert.equal(cleared.cleared, true);
  assert.equal((await reply(await send('DELETE', path), 200, 'DELETE')).cleared, false);
  assert.equal((await get(`/api/dictionaries/${GPS_DICTIONARY}/export?format=geojson`)).status, 400);

  const audit = await sds(home.root, ['audit', 'list', '--json']);
  const http = audit
    .json<{ action: string; target: string; outcome: string; channel: string }[]>()
    .filter((a) => a.action.endsWith('-gps') && a.channel === 'http')
    .reverse()
    .map((a) => [a.action, a.target, a.outcome]);
  assert.deepEqual(http, [
    ['dictionaries.set-gps', `dictionary:${GPS_DICTIONARY}`, 'failure'],
    ['dictionaries.set-gps', `dictionary:${GPS_DICTIONARY}`, 'failure'],
    ['dictionaries.set-gps', 'dictionary:NOPE', 'failure'],
    ['dictionaries.set-gps', `dictionary:${GPS_DICTIONARY}`, 'success'],
    ['dictionaries.clear-gps', `dictionary:${GPS_DICTIONARY}`, 'success'],
    ['dictionaries.clear-gps', `dictionary:${GPS_DICTIONARY}`, 'success'],
  ]);
});
