/**
 * The syncable name of a CSPro 8.1 dictionary (docs/sync.md#syncable-names) against a real
 * `sds serve` (the compiled dist/: build first), through the test suite's own CSPro 8.1 clients
 * (test/helpers/cspro-client.ts, data-source-client.ts): a JSON dictionary carrying
 * `"sync": {"name": …}` is uploaded as the client uploads it, listed with both names, synced by
 * tablets and used as a data source by its syncable name, reached by its own name too; clashes
 * and a change of the name of a dictionary with cases are refused; an Administrator's
 * `DELETE dictionaries/{name}` keeps the rule of the spec (docs/decisions.md#deleting-a-dictionary-from-a-cspro-client).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { runCli, show } from '../../helpers/run-cli.js';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { simpleCapiWithPhoto } from '../../helpers/csweb-fixture.js';
import { ClientError, CsproClient } from '../../helpers/cspro-client.js';
import { DataSourceClient, type V3Case } from '../../helpers/data-source-client.js';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';

const PASSWORD = 'correct horse battery staple';
const DICT = 'SIMPLECAPI_DICT';
const SYNC = 'HOUSEHOLDS_2025';
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const PHOTO = Buffer.from(Array.from({ length: 30_000 }, (_, i) => (i * 13 + 5) % 256));
const home = await tempHome();
let s: ServeProcess;
let doc: OpenApiDoc;
const clients: CsproClient[] = [];

/**
 * The simple CAPI dictionary as CSPro 8.1 writes it to JSON: `sync` right after the name and
 * labels when a syncable name is set (CDataDict::WriteJson).
 */
function dictionaryJson(opts: { name?: string; sync?: string } = {}): string {
  const d = JSON.parse(simpleCapiWithPhoto(fixture('simple-capi.dcf'))) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) {
    out[k] = k === 'name' && opts.name ? opts.name : v;
    if (k === 'labels' && opts.sync) out.sync = { name: opts.sync };
  }
  return JSON.stringify(out, null, 2);
}

const SYNCED = dictionaryJson({ sync: SYNC });

/** A household in CSPro 8.1's case JSON. */
function v3Case(hh: number, device: string, photo?: Buffer): V3Case {
  return {
    key: `001${String(hh).padStart(3, '0')}`,
    uuid: randomUUID(),
    SIMPLECAPI_QUEST: {
      CLUSTER: { code: 1 },
      HHNO: { code: hh },
      POPULATION_REC: [{ P1: { code: `HEAD ${hh}` }, P2: { code: 1 } }],
      HOUSING_REC: [
        { H3: { code: 1 }, ...(photo ? { PHOTO: { metadata: { filename: 'door.jpg' }, signature: md5(photo), size: photo.length } } : {}) },
      ],
    },
    clock: [{ deviceId: device, revision: 1 }],
  };
}

async function client(user: string, device = `tablet-${randomUUID().slice(0, 8)}`): Promise<CsproClient> {
  const c = new CsproClient(s.url, '8.1.0', device);
  await c.connect(user, PASSWORD);
  clients.push(c);
  return c;
}

async function refusal(p: Promise<unknown>): Promise<ClientError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  assert.ok(e instanceof ClientError, `expected a refusal, got ${String(e)}`);
  return e;
}

/** A route template of the paths these tests call, to check each JSON reply against the served document. */
function templateOf(path: string): string | undefined {
  const rules: [RegExp, string][] = [
    [/^\/api\/(token|server)\/?$/, '/api/$1'],
    [/^\/api\/dictionaries\/?$/, '/api/dictionaries'],
    [/^\/api\/dictionaries\/[^/]+\/?$/, '/api/dictionaries/{name}'],
    [/^\/api\/dictionaries\/[^/]+\/cases\/?$/, '/api/dictionaries/{name}/cases'],
  ];
  for (const [re, template] of rules) if (re.test(path)) return path.replace(re, template);
  return undefined;
}

before(async () => {
  for (const [user, role] of [
    ['field', 'Standard User'],
    ['office', 'API'],
    ['boss', 'Administrator'],
  ] as const) {
    const add = runCli(home.root, ['users', 'add', user, '--role', role, '--password-stdin'], { stdin: PASSWORD + '\n' });
    assert.equal(add.code, 0, show(add));
  }
  s = await startServe(home.root);
  doc = (await (await fetch(`${s.url}/api/openapi.json`)).json()) as OpenApiDoc;
});
after(async () => {
  await s?.stop();
  await home.cleanup();
});

test('uploaded by CSPro 8.1, listed with both names, synced and used as a data source by its syncable name', async () => {
  const office = await client('office');
  await office.putDictionary(SYNCED);

  // Listed as CSWeb 8.1 lists it: `name` is the name in URLs, `dictionaryName` the dictionary's own; the spec's fields stay.
  const entry = (await office.listDictionaries()).find((d) => d.dictionaryName === DICT)!;
  assert.equal(entry.name, SYNC);
  assert.deepEqual(Object.keys(entry).sort(), ['caseCount', 'created_at', 'dictionaryName', 'label', 'modifiedTime', 'name', 'version']);
  // The dictionary goes back to a client as it came, its syncable name in it, by either name.
  for (const name of [SYNC, DICT]) assert.equal(await (await office.request('GET', `dictionaries/${name}`)).text(), SYNCED);

  // Tablets sync by the syncable name, as CSPro 8.1 builds every sync URL.
  const tablet = await client('field', 'tablet-a');
  tablet.lastRevision = await tablet.syncPut(SYNC, []);
  const house = v3Case(1, 'tablet-a', PHOTO);
  await tablet.syncPut(SYNC, [house], [{ header: { uuid: house.uuid, signature: md5(PHOTO) }, content: PHOTO }]);
  const other = await client('field', 'tablet-b');
  const down = await other.syncGet(SYNC, 100);
  assert.deepEqual(
    down.cases.map((c) => c.uuid),
    [house.uuid],
  );
  assert.ok(down.items[0]!.content.equals(PHOTO));
  // The dictionary's own name reaches the same cases (an 8.0 tablet, or a URL typed by hand).
  const byOwnName = await (await client('field')).syncGet(DICT, 100);
  assert.deepEqual(
    byOwnName.cases.map((c) => c.uuid),
    [house.uuid],
  );
  assert.equal((await office.listDictionaries()).find((d) => d.name === SYNC)!.caseCount, 1);

  // A CSPro 8.1 application opens it as a data source under the syncable name its dictionary carries.
  const app = new DataSourceClient(s.url, SYNC, { username: 'field', password: PASSWORD }, SYNCED);
  await app.connect();
  await app.open('mustExist');
  assert.deepEqual(app.requests.slice(-1), [`GET dictionaries/${SYNC}/metadata`]);
  assert.equal(await app.count(), 1);
  assert.equal((await app.readCase({ key: '001001' }))?.case.uuid, house.uuid);
  await app.writeCase(v3Case(2, app.deviceId));
  assert.equal(await app.count(), 2);
  // Binary content by either name: the 8.1 content reader builds its URL from the dictionary's own name.
  for (const name of [DICT, SYNC]) assert.ok((await app.binaryData(md5(PHOTO), name)).equals(PHOTO), name);
  // Every other call of the data source named the syncable name.
  assert.deepEqual(
    app.requests.filter((r) => r.includes('dictionaries/') && !r.includes(`dictionaries/${SYNC}/`)),
    [`GET dictionaries/${DICT}/binary-data/${md5(PHOTO)}`],
  );

  // sds's own routes take the syncable name too (one resolver): the case list of the spec.
  const list = await fetch(`${s.url}/api/dictionaries/${SYNC}/cases`, { headers: { Authorization: `Bearer ${office.accessToken}` } });
  assert.equal(list.status, 200);
  assert.equal(((await list.json()) as { total: number }).total, 2);
});

test('a data source that finds no dictionary uploads its own and finds it by its syncable name', async () => {
  const json = dictionaryJson({ name: 'LISTING_DICT', sync: 'LISTING_2025' });
  const app = new DataSourceClient(s.url, 'LISTING_2025', { username: 'office', password: PASSWORD }, json);
  await app.connect();
  await app.open('openOrCreate');
  assert.deepEqual(app.requests, [
    'GET server',
    'GET dictionaries/LISTING_2025/metadata',
    'POST dictionaries/',
    'GET dictionaries/LISTING_2025/metadata',
  ]);
  assert.equal(await app.count(), 0);
  const listed = (await (await client('office')).listDictionaries()).map((d) => [d.name, d.dictionaryName]);
  assert.deepEqual(
    listed.filter(([, d]) => d !== DICT),
    [['LISTING_2025', 'LISTING_DICT']],
  );
});

test('a syncable name that clashes, whatever the case, is refused; a dictionary with cases keeps its syncable name', async () => {
  const office = await client('office');
  const before = await office.listDictionaries();
  for (const [json, words] of [
    [
      dictionaryJson({ name: 'OTHER_DICT', sync: 'simplecapi_dict' }),
      `the syncable name simplecapi_dict of dictionary OTHER_DICT is the name of dictionary ${DICT}`,
    ],
    [
      dictionaryJson({ name: 'OTHER_DICT', sync: 'households_2025' }),
      `the syncable name households_2025 of dictionary OTHER_DICT is the syncable name of dictionary ${DICT}`,
    ],
    [dictionaryJson({ name: SYNC }), `the name of dictionary ${SYNC} is the syncable name of dictionary ${DICT}`],
  ] as const) {
    const e = await refusal(office.putDictionary(json));
    assert.equal(e.status, 409, e.body);
    assert.equal(e.code, 'SYNC_NAME_TAKEN');
    assert.match(e.serverMessage, new RegExp(`^${words}; a URL would name both$`));
  }

  // The file of a dictionary that holds cases may not move it to another syncable name: its tablets would lose it.
  const moved = await refusal(office.putDictionary(dictionaryJson({ sync: 'HOUSEHOLDS_2026' })));
  assert.equal(moved.status, 409);
  assert.equal(moved.code, 'SYNC_NAME_LOCKED');
  assert.match(moved.serverMessage, /dictionary SIMPLECAPI_DICT has the syncable name HOUSEHOLDS_2025 and holds 2 cases; this file sets/);
  assert.deepEqual(await office.listDictionaries(), before);

  // A file without one (CSPro writes none when the names agree; the text form has none) keeps the stored one.
  await office.putDictionary(dictionaryJson());
  assert.equal((await office.listDictionaries()).find((d) => d.dictionaryName === DICT)!.name, SYNC);
  // PUT to the URL of the syncable name takes the file of that dictionary.
  const put = await office.request('PUT', `dictionaries/${SYNC}`, { headers: { 'Content-Type': 'text/plain' }, body: SYNCED });
  assert.deepEqual(await put.json(), { code: 200, description: 'Success' });
});

test('DELETE dictionaries/{name} from an Administrator keeps the spec’s rule: refused while it has cases, purged only when asked', async () => {
  const boss = await client('boss');
  const kept = await refusal(boss.request('DELETE', `dictionaries/${SYNC}`));
  assert.equal(kept.status, 409, kept.body);
  assert.equal(kept.code, 'DICT_IN_USE');
  assert.match(kept.serverMessage, /^dictionary SIMPLECAPI_DICT has 2 cases/);
  assert.equal((await boss.listDictionaries()).find((d) => d.name === SYNC)!.caseCount, 2);

  const purged = (await (await boss.request('DELETE', `dictionaries/${SYNC}?with_cases=true`)).json()) as {
    name: string;
    removed: { cases: number };
  };
  assert.equal(purged.name, DICT);
  assert.equal(purged.removed.cases, 2);
  assert.deepEqual(
    (await boss.listDictionaries()).map((d) => d.dictionaryName),
    ['LISTING_DICT'],
  );
  const gone = await refusal((await client('field')).syncGet(SYNC, 10));
  assert.equal(gone.status, 404);
  assert.equal(gone.code, 'DICTIONARY_NOT_FOUND');

  const wrong: string[] = [];
  for (const c of clients) {
    for (const r of c.replies) {
      const template = templateOf(r.path);
      if (template !== undefined) wrong.push(...checkReply(doc, r.method, template, r.status, r.body));
    }
  }
  assert.deepEqual(wrong, []);
});
