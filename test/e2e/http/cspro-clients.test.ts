/**
 * CSPro 8.1 and 8.0.1 clients against a real `sds serve` (docs/sync.md#client-versions), each
 * written in the test from the protocol the client speaks (test/helpers/cspro-client.ts), told
 * apart by nothing but the User-Agent: the 8.1 client gets version 3 (wrapped token, CSPro 8.1's
 * case JSON, uuid in cssync item headers, compressed dictionary and file uploads), the 8.0.1
 * client keeps version 2 and its sequence (flat token, the older case JSON, chunked download
 * with exclude-revisions, a 412 reset, an empty first upload, zlib labelled gzip).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { runCli, show } from '../../helpers/run-cli.js';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { simpleCapiWithPhoto } from '../../helpers/csweb-fixture.js';
import { ClientError, CsproClient } from '../../helpers/cspro-client.js';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';

const PASSWORD = 'correct horse battery staple';
const DICT = 'SIMPLECAPI_DICT';
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const PHOTO = Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 7 + 3) % 256));
const home = await tempHome();
/** Each account's UUID as `sds users list --json` shows it: the wrapped token reply's `user.id`. */
const ids = new Map<string, string>();
let s: ServeProcess;
let doc: OpenApiDoc;

/** The route template of a path these clients call; undefined for a path no route takes. */
function templateOf(path: string): string | undefined {
  const rules: [RegExp, string][] = [
    [/^\/api\/(token|server|apps|messages)\/?$/, '/api/$1'],
    [/^\/api\/dictionaries\/?$/, '/api/dictionaries'],
    [/^\/api\/dictionaries\/[^/]+\/cases\/?$/, '/api/dictionaries/{name}/cases'],
    [/^\/api\/files\/.+\/content$/, '/api/files/{path}/content'],
    [/^\/api\/folders\/.+$/, '/api/folders/{path}'],
    [/^\/api\/apps\/[^/]+$/, '/api/apps/{name}'],
  ];
  for (const [re, template] of rules) if (re.test(path)) return path.replace(re, template);
  return undefined;
}

/** Every JSON reply a client read is what the served OpenAPI document says for its route and status. */
function assertDocumented(...clients: CsproClient[]): void {
  const wrong: string[] = [];
  let checked = 0;
  for (const c of clients) {
    for (const r of c.replies) {
      const template = templateOf(r.path);
      if (template === undefined) continue;
      checked += 1;
      wrong.push(...checkReply(doc, r.method, template, r.status, r.body));
    }
  }
  assert.deepEqual(wrong, []);
  assert.ok(checked > 5, `${checked} replies checked`);
}

before(async () => {
  for (const [user, role] of [
    ['field', 'Standard User'],
    ['office', 'API'],
    ['boss', 'Administrator'],
  ] as const) {
    const add = runCli(home.root, ['users', 'add', user, '--role', role, '--password-stdin', '--json'], { stdin: PASSWORD + '\n' });
    assert.equal(add.code, 0, show(add));
    assert.match(add.json<{ id: string }>().id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    ids.set(user, add.json<{ id: string }>().id);
  }
  s = await startServe(home.root);
  doc = (await (await fetch(`${s.url}/api/openapi.json`)).json()) as OpenApiDoc;
});
after(async () => {
  await s?.stop();
  await home.cleanup();
});

async function client(version: '8.0.1' | '8.1.0', user: string, device = `${version}-${randomUUID().slice(0, 8)}`): Promise<CsproClient> {
  const c = new CsproClient(s.url, version, device);
  await c.connect(user, PASSWORD);
  return c;
}

/** A case of the dictionary in CSPro 8.1's case JSON, as the 8.1 client writes it. */
function v3Case(uuid: string, hh: number, device: string, extra: Record<string, unknown> = {}, photo?: Buffer): Record<string, unknown> {
  return {
    key: `001${String(hh).padStart(3, '0')}`,
    uuid,
    ...extra,
    SIMPLECAPI_QUEST: {
      CLUSTER: { code: 1 },
      HHNO: { code: hh },
      POPULATION_REC: [
        { P1: { code: `HEAD ${hh}` }, P2: { code: 1 }, P4: { code: 40 } },
        { P1: { code: `CHILD ${hh}` }, P2: { code: 2 }, P4: { code: 9 } },
      ],
      HOUSING_REC: [
        { H3: { code: 1 }, ...(photo ? { PHOTO: { metadata: { filename: 'door.jpg' }, signature: md5(photo), size: photo.length } } : {}) },
      ],
    },
    clock: [{ deviceId: device, revision: 1 }],
  };
}

test('a CSPro 8.1 client: version 3, wrapped token, V3 cases up and down, cssync by uuid, compressed uploads', async () => {
  // The office deploys: its dictionary goes up as compressed JSON (deflate), as 8.1 sends it to a V3 server.
  const office = await client('8.1.0', 'office');
  assert.equal(office.apiVersion, 3);
  assert.deepEqual(office.user, { id: ids.get('office'), roleName: 'API' });
  await office.putDictionary(simpleCapiWithPhoto(fixture('simple-capi.dcf')));

  const tablet = await client('8.1.0', 'field', 'tablet-81-a');
  assert.deepEqual(tablet.user, { id: ids.get('field'), roleName: 'Standard User' });
  // A refresh is answered flat even to 8.1: the client reads it only in that form.
  const refreshed = await tablet.refresh();
  assert.equal(refreshed.credentials, undefined);
  assert.equal(typeof refreshed.access_token, 'string');

  const list = await tablet.listDictionaries();
  const entry = list.find((d) => d.name === DICT)!;
  assert.equal(entry.dictionaryName, DICT);
  assert.match(String(entry.modifiedTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  // The first upload goes even with nothing to send: it learns the server's revision.
  const first = await tablet.syncPut(DICT, []);
  tablet.lastRevision = first;
  const a = randomUUID();
  const b = randomUUID();
  const note = {
    text: 'ask again',
    modifiedTime: '2025-01-15T08:00:00Z',
    operatorId: 'op7',
    name: 'P4',
    occurrences: { record: 2, item: 0, subitem: 0 },
  };
  const cases = [
    v3Case(a, 1, 'tablet-81-a', { label: 'house one', verified: true, caseNote: 'dog in the yard', notes: [note] }, PHOTO),
    v3Case(b, 2, 'tablet-81-a', { partialSave: { mode: 'add', name: 'P4', occurrences: { record: 1, item: 0, subitem: 0 } } }),
  ];
  const revision = await tablet.syncPut(DICT, cases, [{ header: { uuid: a, signature: md5(PHOTO) }, content: PHOTO }]);
  assert.ok(revision > first);

  // Another 8.1 tablet downloads in chunks of one: the same V3 cases, the photo in the cssync container by uuid.
  const other = await client('8.1.0', 'field', 'tablet-81-b');
  const down = await other.syncGet(DICT, 1);
  assert.deepEqual(down.statuses, [206, 200]);
  const byUuid = new Map(down.cases.map((c) => [c.uuid, c]));
  assert.deepEqual(byUuid.get(a), cases[0]);
  assert.deepEqual(byUuid.get(b), cases[1]);
  assert.deepEqual(
    down.items.map((i) => i.header),
    [{ uuid: a, signature: md5(PHOTO) }],
  );
  assert.ok(down.items[0]!.content.equals(PHOTO));

  // The same cases to an 8.0.1 tablet: the older form, the photo's descriptor naming the case.
  const old = await client('8.0.1', 'field', 'tablet-80-x');
  const v2 = await old.syncGet(DICT, 100);
  const v2a = v2.cases.find((c) => c.id === a)!;
  assert.equal(v2a.caseids, '001001');
  assert.equal(v2a.caseNote, undefined);
  const level = JSON.parse(String(v2a['level-1'])) as { HOUSING_REC: { PHOTO: Record<string, unknown> }; POPULATION_REC: unknown[] };
  assert.deepEqual(level.HOUSING_REC.PHOTO, { metadata: { filename: 'door.jpg' }, caseid: a, signature: md5(PHOTO), length: PHOTO.length });
  assert.equal(level.POPULATION_REC.length, 2);
  assert.deepEqual(v2.items[0]!.header, { caseid: a, signature: md5(PHOTO), length: PHOTO.length });

  // Files: compressed with deflate, Content-MD5 of the bytes themselves; listings with and without md5.
  const paradata = Buffer.from('paradata log '.repeat(500));
  await tablet.putFile('paradata/pl-1.zip', paradata);
  assert.ok((await tablet.getFile('paradata/pl-1.zip'))!.equals(paradata));
  assert.equal(await tablet.getFile('paradata/pl-1.zip', md5(paradata)), undefined);
  const without = await tablet.listFolder('paradata/', false);
  assert.deepEqual(Object.keys(without[0]!).sort(), ['directory', 'lastModified', 'name', 'size', 'type']);
  assert.equal(without[0]!.size, paradata.length);
  assert.equal((await tablet.listFolder('paradata/', true))[0]!.md5, md5(paradata));

  // Application packages: deployed, listed, deleted (200), then gone (a JSON 404 the client reads).
  const zip = Buffer.from('PK\u0003\u0004 not really a zip, the server keeps bytes');
  await office.putApp('Household Survey', zip);
  const apps = (await (await office.request('GET', 'apps')).json()) as { name: string }[];
  assert.ok(apps.some((p) => p.name === 'Household Survey'));
  await office.deleteApp('Household Survey');
  const gone = await office.request('GET', 'apps/Household%20Survey').catch((e: unknown) => e);
  assert.ok(gone instanceof ClientError && gone.status === 404 && gone.code === 'app_not_found', String(gone));

  // syncmessage: 200 with CSWeb 8.1's reply, JSON null, which the client hands to logic.
  assert.equal(await tablet.syncMessage('status', { done: 2 }), null);

  // Errors come as {code, message}; a route the server lacks says so in CSWeb's words.
  const refused = await tablet.putDictionary('{}').catch((e: unknown) => e);
  assert.ok(refused instanceof ClientError && refused.status === 403 && refused.code === 'access_denied', String(refused));
  const missing = await tablet.request('GET', 'no-such-thing').catch((e: unknown) => e);
  assert.ok(missing instanceof ClientError && missing.status === 404, String(missing));
  assert.equal(missing.code, 'fatal_error');
  assert.equal(missing.serverMessage, 'No route found for "GET /api/no-such-thing"');
  const noCase = await tablet.request('GET', `dictionaries/NOPE_DICT/cases`, { headers: { 'x-csw-device': 'x' } }).catch((e: unknown) => e);
  assert.ok(noCase instanceof ClientError && noCase.status === 404 && noCase.code === 'DICTIONARY_NOT_FOUND', String(noCase));

  // Every success these clients read was 200, or 206 / 304 where the protocol has them.
  for (const c of [office, tablet, other, old])
    assert.deepEqual(
      [...new Set(c.statuses)].filter((x) => x !== 200 && x !== 206 && x !== 304),
      [],
    );
  assertDocumented(office, tablet, other, old);
});

test('a CSPro 8.0.1 client keeps version 2: flat token, older case JSON, chunked download, exclude-revisions, 412 reset', async () => {
  const office = await client('8.0.1', 'office');
  assert.equal(office.apiVersion, 2);
  assert.equal(office.user, undefined);
  const raw = await fetch(`${s.url}/api/server`, {
    headers: { 'User-Agent': 'CSPro sync client/8.0.1', Authorization: `Bearer ${office.accessToken}` },
  });
  assert.match(await raw.text(), /"apiVersion":2\.0\}$/);
  const DICT80 = 'CEN2000';
  await office.putDictionary(readFileSync(fixture('popstan-census.text.dcf'), 'utf8'));

  const tablet = await client('8.0.1', 'field', 'tablet-80-a');
  assert.equal(typeof (await tablet.refresh()).refresh_token, 'string');
  const first = await tablet.syncPut(DICT80, []);
  tablet.lastRevision = first;
  const level = (hu: number) =>
    JSON.stringify({
      id: { PROVINCE: 1, DISTRICT: 1, VILLAGE: 1, EA: 1, UR: 1, BUILDING: 1, HU: hu, HH: 1 },
      PERSON: [{ LINE: 1, P02_REL: 1, P03_SEX: 2, P04_AGE: 30 + hu }],
    });
  const ids = Array.from({ length: 5 }, () => randomUUID());
  const revision = await tablet.syncPut(
    DICT80,
    ids.map((id, k) => ({
      id,
      caseids: `010100100111${String(k + 1).padStart(3, '0')}1`,
      clock: [{ deviceId: 'tablet-80-a', revision: 1 }],
      'level-1': level(k + 1),
    })),
  );
  assert.ok(revision > first);

  // Its own uploads are excluded from its next download; another tablet gets all five in chunks of two.
  assert.deepEqual((await tablet.syncGet(DICT80, 2)).cases, []);
  const other = await client('8.0.1', 'field', 'tablet-80-b');
  const down = await other.syncGet(DICT80, 2);
  assert.deepEqual(down.statuses, [206, 206, 200]);
  assert.deepEqual(down.cases.map((c) => c.id).sort(), [...ids].sort());
  for (const c of down.cases) assert.equal(typeof c['level-1'], 'string');

  // A revision the server never issued: 412, the client forgets its state and downloads everything again.
  other.lastRevision = 999_999;
  const again = await other.syncGet(DICT80, 100);
  assert.equal(again.reset, true);
  assert.equal(again.cases.length, 5);

  // Errors are read as {code, message} by 8.0 too.
  const refused = await tablet.putDictionary('[Dictionary]').catch((e: unknown) => e);
  assert.ok(refused instanceof ClientError && refused.status === 403 && typeof refused.code === 'string', String(refused));
  for (const c of [office, tablet, other])
    assert.deepEqual(
      [...new Set(c.statuses)].filter((x) => x !== 200 && x !== 206 && x !== 304),
      [],
    );
  assertDocumented(office, tablet, other);
});

test('the version is the User-Agent’s: 8.1 and later get 3, 8.0 and anything else 2', async () => {
  const tablet = await client('8.0.1', 'field');
  for (const [agent, version] of [
    ['CSPro sync client/8.1.0', '3.0'],
    ['CSPro sync client/8.1.1 (64-bit)', '3.0'],
    ['CSPro sync client/8.2', '3.0'],
    ['CSPro sync client/10.0.1', '3.0'],
    ['CSPro sync client/8.0.1', '2.0'],
    ['CSPro sync client/7.7.3', '2.0'],
    ['curl/8.5.0', '2.0'],
  ] as const) {
    const r = await fetch(`${s.url}/api/server`, { headers: { 'User-Agent': agent, Authorization: `Bearer ${tablet.accessToken}` } });
    assert.match(await r.text(), new RegExp(`"apiVersion":${version.replace('.', '\\.')}\\}$`), agent);
  }
});
