import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import yazl from 'yazl';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { fixture } from '../../helpers/temp-home.js';
import { startTestServer, type TestServer } from '../../helpers/http-server.js';
import { runCliAsync } from '../../helpers/run-cli.js';
import { levelFromLines, popstanCases, SyncDevice, type WireCase } from '../../helpers/sync-client.js';
import { putByHand, storedNames } from '../../helpers/stored-files.js';

const DICT = 'CEN2000';

async function popstanServer(): Promise<TestServer> {
  return startTestServer({
    seed: async (store) => {
      const file = fixture('popstan-census.json.dcf');
      await uploadDictionary(store, { source: readFileSync(file), label: 'popstan', file });
    },
  });
}

function clockOf(c: WireCase): Record<string, number> {
  return Object.fromEntries(c.clock.map((e) => [e.deviceId, e.revision]));
}

test('sync: 1,000 cases up in chunks (zlib, gzip, plain; level-1 and data lines), down in pages, changed on another device, synced again', async (t) => {
  const ts = await popstanServer();
  t.after(() => ts.close());
  const a = new SyncDevice(ts, 'tablet-a');
  const b = new SyncDevice(ts, 'tablet-b');
  const sent = popstanCases(1000, 'tablet-a');

  // Upload in four chunks, each compressed differently; every upload gets a new revision.
  const encodings = ['zlib', 'gzip', 'identity', 'zlib'] as const;
  for (let i = 0; i < 4; i++) {
    const r = await a.put(DICT, sent.slice(i * 250, (i + 1) * 250), encodings[i]);
    assert.equal(r.status, 200, await r.clone().text());
    assert.deepEqual(await r.json(), { code: 200, description: 'Success' });
    assert.equal(r.headers.get('etag'), r.headers.get('x-csw-current-revision'));
  }
  assert.equal(new Set(a.ownUploads).size, 4);
  assert.ok(a.ownUploads.every((r, i) => i === 0 || r > a.ownUploads[i - 1]!));

  // Device B downloads everything, 100 at a time: nine 206 then one 200.
  const down = await b.get(DICT, 100);
  assert.deepEqual(
    down.pages.map((p) => p.status),
    [...Array(9).fill(206), 200],
  );
  assert.equal(down.pages[0]!.range, '100/1000');
  assert.equal(down.pages[9]!.range, '100/100');
  assert.equal(down.cases.length, 1000);
  assert.deepEqual(new Set(down.cases.map((c) => c.id)), new Set(sent.map((c) => c.id)));
  for (const c of down.cases) {
    assert.equal(typeof c['level-1'], 'string', 'level-1 travels as a JSON string');
    assert.deepEqual(c.clock, [{ deviceId: 'tablet-a', revision: 1 }]);
  }
  // A case sent as data lines comes back with the same content as its level-1 twin of the same lines.
  const byId = new Map(down.cases.map((c) => [c.id, c]));
  assert.equal(byId.get(sent[1]!.id)!['level-1'], levelFromLines(sent[1]!.data!));
  assert.equal(byId.get(sent[0]!.id)!['level-1'], sent[0]!['level-1']);

  // Nothing new: B syncs again and gets nothing (200, 0/0).
  const again = await b.get(DICT, 100);
  assert.deepEqual(again.pages, [{ status: 200, range: '0/0', revision: again.pages[0]!.revision }]);

  // B modifies 10 cases (its clock entry ticks) and uploads them.
  const changed = down.cases
    .slice(0, 10)
    .map((c) => ({ ...c, label: `checked by B`, clock: [...c.clock, { deviceId: 'tablet-b', revision: 1 }] }));
  assert.equal((await b.put(DICT, changed)).status, 200);

  // A downloads, excluding its own uploads: exactly B's 10 changes, with both clock entries.
  const fromB = await a.get(DICT, 3);
  assert.equal(fromB.cases.length, 10);
  assert.deepEqual(new Set(fromB.cases.map((c) => c.id)), new Set(changed.map((c) => c.id)));
  for (const c of fromB.cases) {
    assert.equal(c.label, 'checked by B');
    assert.deepEqual(clockOf(c), { 'tablet-a': 1, 'tablet-b': 1 });
  }

  // Concurrent edit: A edits case 0 from its old version (clock A:2, no B) → clocks merge, A wins.
  const c0 = { ...sent.find((c) => c.id === changed[0]!.id)!, label: 'edited by A', clock: [{ deviceId: 'tablet-a', revision: 2 }] };
  // An old version of case 1 (A:1) is older than B's (A:1, B:1): ignored.
  const c1 = { ...down.cases.find((c) => c.id === changed[1]!.id)!, label: 'stale', clock: [{ deviceId: 'tablet-a', revision: 1 }] };
  assert.equal((await a.put(DICT, [c0, c1])).status, 200);
  const one = async (id: string) => (await (await ts.call('standard', `/api/dictionaries/${DICT}/cases/${id}`)).json()) as WireCase;
  const got0 = await one(c0.id);
  assert.equal(got0.label, 'edited by A');
  assert.deepEqual(clockOf(got0), { 'tablet-a': 2, 'tablet-b': 1 });
  assert.equal((await one(changed[1]!.id)).label, 'checked by B');

  // Totals: nothing duplicated or lost.
  const all = await new SyncDevice(ts, 'tablet-c').get(DICT, 1000);
  assert.equal(all.cases.length, 1000);
  assert.equal(new Set(all.cases.map((c) => c.id)).size, 1000);
  const list = (await (await ts.call('standard', `/api/dictionaries/${DICT}/cases?limit=5`)).json()) as { total: number; data: unknown[] };
  assert.equal(list.total, 1000, 'without x-csw headers the route keeps the list envelope');
  assert.equal(list.data.length, 5);

  // Delete: a Standard account may not; an API account may; devices receive the tombstone.
  const victim = sent[500]!.id;
  assert.equal((await ts.call('standard', `/api/dictionaries/${DICT}/cases/${victim}`, { method: 'DELETE' })).status, 403);
  const del = await ts.call('api', `/api/dictionaries/${DICT}/cases/${victim}`, {
    method: 'DELETE',
    headers: { 'x-csw-device': 'office' },
  });
  assert.equal(del.status, 200);
  assert.deepEqual(await del.json(), { code: 200, description: 'Success' });
  const afterDelete = await b.get(DICT, 100);
  const tomb = afterDelete.cases.find((c) => c.id === victim);
  assert.equal(tomb?.deleted, true);

  // The history per device, through the CLI.
  const cli = await runCliAsync(ts.store.home.root, ['cases', 'sync-history', DICT, '--json']);
  assert.equal(cli.code, 0, cli.stderr);
  const history = cli.json<{ history: { device: string; direction: string; revision: number }[] }>().history;
  const puts = history.filter((h) => h.device === 'tablet-a' && h.direction === 'put').map((h) => h.revision);
  assert.equal(puts.length, 5);
  assert.ok(history.some((h) => h.device === 'tablet-b' && h.direction === 'get'));
  assert.ok(history.some((h) => h.device === 'office' && h.direction === 'put'));
  const human = await runCliAsync(ts.store.home.root, ['cases', 'sync-history', DICT]);
  assert.match(human.stdout, /tablet-a/);
});

test('sync: a malformed case refuses the whole upload, naming the case; nothing is stored', async (t) => {
  const ts = await popstanServer();
  t.after(() => ts.close());
  const a = new SyncDevice(ts, 'tablet-a');
  const [good1, good2] = popstanCases(2, 'tablet-a');
  const bad = {
    id: '11111111-2222-4333-8444-555555555555',
    caseids: 'X',
    clock: [{ deviceId: 'tablet-a', revision: 'one' }],
    'level-1': '{}',
  };
  const r = await a.put(DICT, [good1, bad, good2]);
  assert.equal(r.status, 400);
  const body = (await r.json()) as { error: string; message: string };
  assert.equal(body.error, 'CASE_INVALID');
  assert.match(body.message, /case 1 \(id 11111111-2222-4333-8444-555555555555/);
  assert.match(body.message, /clock\[0\]\.revision/);
  const broken = await a.put(DICT, [], 'identity');
  assert.equal(broken.status, 200, 'an empty array is a valid upload');
  const notJson = await ts.call('standard', `/api/dictionaries/${DICT}/cases`, {
    method: 'POST',
    headers: { 'content-encoding': 'gzip' },
    body: deflateSync(Buffer.from(`[${JSON.stringify(good1)}, {"id": `)),
  });
  assert.equal(notJson.status, 400);
  assert.match(((await notJson.json()) as { message: string }).message, /readable past element 1/);
  const list = (await (await ts.call('standard', `/api/dictionaries/${DICT}/cases`)).json()) as { total: number };
  assert.equal(list.total, 0);
});

test('sync: no device header is recorded as unknown; unknown revisions are 412; bad headers 400', async (t) => {
  const ts = await popstanServer();
  t.after(() => ts.close());
  const anon = new SyncDevice(ts, null);
  const r = await anon.put(DICT, popstanCases(3, 'x'));
  assert.equal(r.status, 200);
  const history = (await runCliAsync(ts.store.home.root, ['cases', 'sync-history', DICT, '--json'])).json<{
    history: { device: string }[];
  }>().history;
  assert.deepEqual(
    history.map((h) => h.device),
    ['unknown'],
  );

  const ahead = await ts.call('standard', `/api/dictionaries/${DICT}/cases`, {
    headers: { 'x-csw-device': 'd', 'x-csw-if-revision-exists': '999999' },
  });
  assert.equal(ahead.status, 412);
  assert.deepEqual(await ahead.json(), {});
  // If-Match (the official swagger's name) is read the same way.
  assert.equal((await ts.call('standard', `/api/dictionaries/${DICT}/cases`, { headers: { 'if-match': '"999999"' } })).status, 412);
  const upAhead = await ts.call('standard', `/api/dictionaries/${DICT}/cases`, {
    method: 'POST',
    headers: { 'x-csw-device': 'unknown', 'x-csw-if-revision-exists': '999999' },
    body: '[]',
  });
  assert.equal(upAhead.status, 412);
  assert.deepEqual(Object.keys((await upAhead.json()) as object).sort(), [
    'dateTime',
    'device',
    'dictionary',
    'direction',
    'revisionNumber',
    'universe',
  ]);
  const badCount = await ts.call('standard', `/api/dictionaries/${DICT}/cases`, { headers: { 'x-csw-case-range-count': 'lots' } });
  assert.equal(badCount.status, 400);
  assert.equal(((await badCount.json()) as { error: string }).error, 'SYNC_HEADER_INVALID');
  const binary = await ts.call('standard', `/api/dictionaries/${DICT}/cases`, {
    method: 'POST',
    body: deflateSync(Buffer.from('cssync\x01\x00\x00\x00')),
  });
  // A container cut inside its first length: refused, naming the container.
  assert.equal(binary.status, 400);
  assert.equal(((await binary.json()) as { error: string }).error, 'SYNC_CONTAINER_INVALID');

  // Universe: a case-id prefix filter.
  const all = await new SyncDevice(ts, 'u').get(DICT, 100);
  const prefix = all.cases[0]!.caseids.slice(0, 6);
  const inUniverse = await ts.call('standard', `/api/dictionaries/${DICT}/cases`, { headers: { 'x-csw-universe': `"${prefix}"` } });
  const cases = (await inUniverse.json()) as WireCase[];
  assert.ok(cases.length >= 1 && cases.every((c) => c.caseids.startsWith(prefix)));
});

test('sync: server info, dictionaries with a trailing slash, raw dictionary upload', async (t) => {
  const ts = await popstanServer();
  t.after(() => ts.close());
  const info = await ts.call('standard', '/api/server');
  assert.match(await info.text(), /^\{"deviceId":"[0-9a-f]{32}","apiVersion":2\.0\}$/);
  for (const path of ['/api/dictionaries', '/api/dictionaries/']) {
    const list = (await (await ts.call('standard', path)).json()) as { name: string; caseCount: number }[];
    assert.deepEqual(
      list.map((d) => [d.name, d.caseCount]),
      [[DICT, 0]],
    );
  }
  const dcf = readFileSync(fixture('simple-capi.dcf'));
  const raw = await ts.call('api', '/api/dictionaries/', {
    method: 'POST',
    headers: { 'content-type': 'text/plain; charset=utf-8' },
    body: dcf,
  });
  assert.equal(raw.status, 200);
  assert.deepEqual(await raw.json(), { code: 200, description: 'Success' });
  assert.equal((await ts.call('standard', '/api/dictionaries/', { method: 'POST', body: dcf })).status, 403);
  const name = ((await (await ts.call('api', '/api/dictionaries')).json()) as { name: string }[]).find((d) => d.name !== DICT)!.name;
  assert.equal((await ts.call('api', `/api/dictionaries/${name}`, { method: 'PUT', body: dcf })).status, 200);
  const wrong = await ts.call('api', `/api/dictionaries/${DICT}`, { method: 'PUT', body: dcf });
  assert.equal(wrong.status, 400);
  assert.match(((await wrong.json()) as { message: string }).message, /not CEN2000/);
});

test('sync: files, folders and application packages as the client syncs them', async (t) => {
  const ts = await popstanServer();
  t.after(() => ts.close());
  const bytes = Buffer.from('paradata log\n');
  const md5 = createHash('md5').update(bytes).digest('hex');
  const put = await ts.call('standard', '/api/files/paradata/tablet-a.log/content', {
    method: 'PUT',
    headers: { 'content-md5': md5 },
    body: bytes,
  });
  assert.equal(put.status, 200, await put.clone().text());
  assert.deepEqual(await put.json(), {
    type: 'file',
    name: 'tablet-a.log',
    directory: 'paradata',
    md5,
    size: bytes.length,
    lastModified: ((await (await ts.call('standard', '/api/folders/paradata')).json()) as { lastModified: string }[])[0]!.lastModified,
  });
  const bad = await ts.call('standard', '/api/files/paradata/tablet-a.log/content', {
    method: 'PUT',
    headers: { 'content-md5': '0'.repeat(32) },
    body: 'other',
  });
  assert.equal(bad.status, 403);
  const get = await ts.call('standard', '/api/files/paradata/tablet-a.log/content');
  assert.equal(get.status, 200);
  assert.equal(get.headers.get('content-md5'), md5);
  assert.deepEqual(Buffer.from(await get.arrayBuffer()), bytes, 'the refused upload left the file as it was');
  assert.equal((await ts.call('standard', '/api/files/paradata/tablet-a.log/content', { headers: { 'if-none-match': md5 } })).status, 304);
  assert.equal((await ts.call('standard', '/api/files/paradata/missing.log/content')).status, 404);
  assert.equal((await ts.call('standard', '/api/files/../etc/passwd/content')).status === 200, false);
  const root = (await (await ts.call('standard', '/api/folders/')).json()) as { type: string; name: string }[];
  assert.deepEqual(root, [{ type: 'directory', name: 'paradata', directory: '' }]);
  // The same file through the spec's media route.
  assert.equal((await ts.call('standard', '/api/files/media/paradata/tablet-a.log')).status, 200);

  const zip = Buffer.from('PK\x05\x06' + '\x00'.repeat(18), 'latin1');
  await putByHand(ts.store, 'apps', 'Census.zip', zip);
  const apps = (await (await ts.call('standard', '/api/apps')).json()) as { name: string; FileType: string }[];
  assert.deepEqual(
    apps.map((a) => [a.name, a.FileType]),
    [['Census', 'Application Deployment Specification']],
  );
  const app = await ts.call('standard', '/api/apps/Census');
  assert.equal(app.status, 200);
  assert.deepEqual(Buffer.from(await app.arrayBuffer()), zip);
  assert.equal((await ts.call('standard', '/api/apps/Census', { headers: { 'if-none-match': app.headers.get('etag')! } })).status, 304);
  assert.equal((await ts.call('standard', '/api/apps/Nope')).status, 404);
});

/** A zip built as CSPro's deployment builds one: deflated entries, `package.json` among them. */
async function packageZip(entries: Record<string, Buffer | string>): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const [name, content] of Object.entries(entries)) zip.addBuffer(Buffer.from(content), name);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

test('sync: a deployed package is described by its package.json; a zip without one, or not a zip, is stored without metadata', async (t) => {
  const ts = await popstanServer();
  t.after(() => ts.close());
  const md5 = (b: Buffer | string) => createHash('md5').update(b).digest('hex');
  const deploy = (name: string, body: Buffer) =>
    ts.call('api', `/api/apps/${encodeURIComponent(name)}`, { method: 'PUT', headers: { 'content-md5': md5(body) }, body });
  const list = async () => (await (await ts.call('standard', '/api/apps')).json()) as Record<string, unknown>[];
  const spec = JSON.stringify({
    name: 'Census',
    description: 'Census 2025 (main questionnaire)',
    buildTime: '2024-03-18T10:20:30Z',
    version: '1.2',
    files: [
      { path: 'census.pen', signature: 'f00d' },
      { path: 'lookup.csdb', onlyOnFirstInstall: true },
    ],
  });
  const zip = await packageZip({ 'census.pen': 'pen bytes '.repeat(200), 'package.json': spec, 'lookup.csdb': 'lookup' });

  const put = await deploy('Census', zip);
  assert.equal(put.status, 200);
  const described = {
    name: 'Census',
    description: 'Census 2025 (main questionnaire)',
    buildTime: '2024-03-18T10:20:30Z',
    version: '1.2',
    FileType: 'Application Deployment Specification',
  };
  assert.deepEqual(await put.json(), described);
  assert.deepEqual(await list(), [described]);
  const kept = (await ts.store.appPackages.find('Census'))!;
  assert.equal(kept.files, '[{"path":"census.pen","signature":"f00d"},{"path":"lookup.csdb","onlyOnFirstInstall":true}]');
  assert.equal(kept.source, 'deploy');
  // The client sends the md5 of the package.json it installed: this one is current, another is not.
  assert.equal((await ts.call('standard', '/api/apps/Census', { headers: { 'if-none-match': md5(spec) } })).status, 304);
  const other = await ts.call('standard', '/api/apps/Census', { headers: { 'if-none-match': md5('{"name":"Census"}') } });
  assert.equal(other.status, 200);
  assert.ok(Buffer.from(await other.arrayBuffer()).equals(zip));
  // Its build time is the package's, so a client holding this build gets 304 and an older one the zip.
  assert.equal(
    (await ts.call('standard', '/api/apps/Census', { headers: { 'x-csw-package-build-time': '2024-03-18T10:20:30Z' } })).status,
    304,
  );
  const older = await ts.call('standard', '/api/apps/Census', { headers: { 'x-csw-package-build-time': '2024-03-18T10:20:29Z' } });
  assert.equal(older.status, 200);
  await older.arrayBuffer();
  assert.deepEqual(
    ts.logs.filter((l) => l.includes('warning')),
    [],
  );

  // A new build replaces the metadata with its own.
  const spec2 = JSON.stringify({ name: 'Census', description: 'Census 2025 (v2)', buildTime: '2024-05-01T00:00:00Z', version: '2.0' });
  assert.equal((await deploy('Census', await packageZip({ 'package.json': spec2, 'census.pen': 'v2' }))).status, 200);
  assert.deepEqual(
    (await list()).map((a) => [a.description, a.buildTime, a.version]),
    [['Census 2025 (v2)', '2024-05-01T00:00:00Z', '2.0']],
  );
  assert.equal((await ts.store.appPackages.find('Census'))!.signature, md5(spec2));
  assert.equal((await ts.call('standard', '/api/apps/Census', { headers: { 'if-none-match': md5(spec2) } })).status, 304);
  const stale = await ts.call('standard', '/api/apps/Census', { headers: { 'if-none-match': md5(spec) } });
  assert.equal(stale.status, 200);
  await stale.arrayBuffer();

  // A hand-made zip without package.json replacing it: stored, listed without metadata, the old row gone, a warning.
  const bare = await packageZip({ 'census.pen': 'hand made' });
  const handMade = await deploy('Census', bare);
  assert.equal(handMade.status, 200);
  assert.equal(((await handMade.json()) as { description: string }).description, '');
  assert.deepEqual(
    (await list()).map((a) => [a.name, a.description, a.version]),
    [['Census', '', '']],
  );
  assert.equal(await ts.store.appPackages.find('Census'), undefined);
  const fetched = await ts.call('standard', '/api/apps/Census', { headers: { 'if-none-match': md5(spec2) } });
  assert.equal(fetched.status, 200, 'the old signature no longer names the package');
  assert.ok(Buffer.from(await fetched.arrayBuffer()).equals(bare));
  assert.equal(ts.logs.filter((l) => /warning: application package Census .*no package\.json/.test(l)).length, 1, ts.logs.join('\n'));

  // Bytes that are not a zip: stored and served as they are, as before; no metadata, a warning naming the package.
  const garbage = Buffer.from('PK\u0003\u0004 not really a zip, the server keeps bytes');
  assert.equal((await deploy('Household Survey', garbage)).status, 200);
  const served = await ts.call('standard', '/api/apps/Household%20Survey');
  assert.ok(Buffer.from(await served.arrayBuffer()).equals(garbage));
  assert.equal(await ts.store.appPackages.find('Household Survey'), undefined);
  assert.ok(
    ts.logs.some((l) => /warning: application package Household Survey .*not a zip/.test(l)),
    ts.logs.join('\n'),
  );
  // A package.json that is not JSON: stored, no metadata.
  assert.equal((await deploy('Broken', await packageZip({ 'package.json': '{"description": "cut' }))).status, 200);
  assert.equal(await ts.store.appPackages.find('Broken'), undefined);
  assert.ok(ts.logs.some((l) => /warning: application package Broken .*package\.json cannot be used: it is not JSON/.test(l)));

  // DELETE removes the metadata with the zip.
  assert.equal((await deploy('Census', zip)).status, 200);
  assert.ok(await ts.store.appPackages.find('Census'));
  assert.equal((await ts.call('api', '/api/apps/Census', { method: 'DELETE' })).status, 200);
  assert.equal(await ts.store.appPackages.find('Census'), undefined);
});

test('sync: file names in any script go up and come down; NFD and NFC name the same file; unsafe names are refused', async (t) => {
  const ts = await popstanServer();
  t.after(() => ts.close());
  const url = (name: string) => `/api/files/${name.split('/').map(encodeURIComponent).join('/')}/content`;
  const names = ['données/énumération_1.csv', 'بيانات.txt', 'анкеты/опрос 2.json', '調査/票_１.txt'];
  for (const name of names) {
    const bytes = Buffer.from(`content of ${name}\n`);
    const md5 = createHash('md5').update(bytes).digest('hex');
    const up = await ts.call('standard', url(name), { method: 'PUT', headers: { 'content-md5': md5 }, body: bytes });
    assert.equal(up.status, 200, `${name}: ${await up.clone().text()}`);
    const info = (await up.json()) as { name: string; directory: string; md5: string };
    assert.equal([info.directory, info.name].filter(Boolean).join('/'), name);
    assert.equal(info.md5, md5);
    const down = await ts.call('standard', url(name));
    assert.equal(down.status, 200, name);
    assert.deepEqual(Buffer.from(await down.arrayBuffer()), bytes, name);
    assert.equal(down.headers.get('content-md5'), md5);
    assert.match(down.headers.get('content-disposition') ?? '', new RegExp(encodeURIComponent(name.split('/').pop()!)));
    // The spec's media route (its own file API) reaches the same file.
    const media = await ts.call('standard', `/api/files/media/${name.split('/').map(encodeURIComponent).join('/')}`);
    assert.equal(media.status, 200, name);
    await media.arrayBuffer();
  }
  const folder = (await (await ts.call('standard', `/api/folders/${encodeURIComponent('données')}`)).json()) as { name: string }[];
  assert.deepEqual(
    folder.map((e) => e.name),
    ['énumération_1.csv'],
  );
  // macOS sends é as e + combining accent: the same file, stored once under the composed name.
  const nfd = 'donne\u0301es/e\u0301nume\u0301ration_1.csv';
  const replaced = await ts.call('standard', url(nfd), { method: 'PUT', body: 'from a Mac\n' });
  assert.equal(replaced.status, 200, await replaced.clone().text());
  assert.equal(await (await ts.call('standard', url('données/énumération_1.csv'))).text(), 'from a Mac\n');
  assert.deepEqual(await storedNames(ts.store, 'media', 'données'), ['énumération_1.csv']);
  assert.equal(await ts.store.files.find(nfd), undefined);
  // Still refused: a right-to-left override, a zero-width space, a control character, a hidden name.
  for (const bad of ['report\u202Etxt.exe', 'zero\u200Bwidth.txt', 'bell\u0007.txt', '.hidden']) {
    const r = await ts.call('standard', url(bad), { method: 'PUT', body: 'x' });
    assert.equal(r.status, 400, bad);
    assert.equal(((await r.json()) as { error: string }).error, 'PATH_INVALID', bad);
  }
});
