/**
 * A CSPro 8.1 application using sds as its "CSWeb data source" (docs/sync.md#the-81-data-source),
 * against a real `sds serve` (the compiled dist/: build first), driven by the test suite's own
 * client (test/helpers/data-source-client.ts) through the client's request sequence: token,
 * server, metadata, queries with each option and status, paging through 3,000 cases past the
 * server's cap, the cache's placeholders, writes, deletes by re-posting, binary content, clearing,
 * the refusals, and positions that survive a restart. The 3,000 cases are imported before the
 * server starts, as an office would bring them in.
 */
import { before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addUser } from '../../../src/core/auth/users.js';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { importCases } from '../../../src/core/cases/import/import-cases.js';
import { openStore } from '../../../src/store/open-store.js';
import { simpleCapiWithPhoto } from '../../helpers/csweb-fixture.js';
import { DataSourceClient, DataSourceError, type Identifier, type Summary, type V3Case } from '../../helpers/data-source-client.js';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';

const DICT = 'SIMPLECAPI_DICT';
const CASES = 3000;
/** The server's cap per reply (limits.data_source_cases), below the client's 1000 so its paging on `resultLimit` is exercised. */
const CAP = 700;
const USERS = {
  standard: { username: 'interviewer', password: 'standard-pass-1', role: 'Standard User' },
  api: { username: 'integration', password: 'api-password-12', role: 'API' },
  admin: { username: 'admin', password: 'admin-password-1', role: 'Administrator' },
} as const;
const PHOTO = Buffer.from(Array.from({ length: 40_000 }, (_, i) => (i * 11 + 7) % 256));
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const pad = (n: number) => String(n).padStart(3, '0');

const dictionaryJson = simpleCapiWithPhoto(fixture('simple-capi.dcf'));
const home = await tempHome();
const env = { SDS_LIMIT_DATA_SOURCE_CASES: String(CAP), SDS_JWT_SECRET: 'a-secret-of-the-data-source-test-0123456789' };
let serve: ServeProcess;

/** Household `hh` of cluster `cluster` as the 8.1 client writes it (V3 case JSON), with its options. */
function v3Case(cluster: number, hh: number, opts: { label?: string; partial?: boolean; photo?: Buffer; note?: string } = {}): V3Case {
  const housing: Record<string, unknown> = { H3: { code: 1 }, H4: { code: 2 } };
  if (opts.photo)
    housing.PHOTO = { metadata: { filename: 'house.jpg', mediaType: 'image/jpeg' }, signature: md5(opts.photo), size: opts.photo.length };
  return {
    key: `${pad(cluster)}${pad(hh)}`,
    uuid: randomUUID(),
    ...(opts.label ? { label: opts.label } : {}),
    ...(opts.partial ? { partialSave: { mode: 'add', name: 'H4' } } : {}),
    ...(opts.note ? { caseNote: opts.note } : {}),
    SIMPLECAPI_QUEST: {
      CLUSTER: { code: cluster },
      HHNO: { code: hh },
      POPULATION_REC: [{ P1: { code: 'HEAD' }, P2: { code: 1 } }],
      HOUSING_REC: [housing],
    },
    clock: [],
  };
}

const client = (user: keyof typeof USERS, dictionary = DICT, dcf = dictionaryJson) =>
  new DataSourceClient(serve.url, dictionary, USERS[user], dcf);
const positionOf = (cluster: number, hh: number) => (cluster - 1) * 500 + hh;

before(async () => {
  const store = await openStore(home);
  for (const u of Object.values(USERS)) await addUser(store, u.username, u.role, u.password);
  await uploadDictionary(store, { source: Buffer.from(dictionaryJson), label: 'simplecapi' });
  // Clusters 1–6, households 1–500: the import numbers them 1…3000 in file order.
  const lines: string[] = [];
  for (let cluster = 1; cluster <= 6; cluster++) {
    for (let hh = 1; hh <= 500; hh++) {
      const ids = `${pad(cluster)}${pad(hh)}`;
      lines.push(`1${ids}${'MEMBER'.padEnd(30)}1230 1`, `2${ids}1220250101A  `);
    }
  }
  const dat = join(home.root, 'households.dat');
  writeFileSync(dat, lines.join('\r\n') + '\r\n');
  const report = await importCases(store, DICT, [dat]);
  assert.equal(report.total.inserted, CASES, JSON.stringify(report.total));
  await store.close();
  serve = await startServe(home.root, env);
});

after(async () => {
  await serve?.stop();
  await home.cleanup();
});

test('data source: an 8.1 application opens, queries and pages 3,000 cases, caches, writes, deletes and reads binary content', async () => {
  const app = client('standard');
  await app.connect();
  assert.equal(app.user?.roleName, 'Standard User');
  await app.open('mustExist');
  assert.deepEqual(app.permissions, ['data.read', 'data.write']);

  // Counting and looking up, as the client's repository calls do.
  assert.equal(await app.count(), CASES);
  assert.equal(await app.count('all'), CASES);
  assert.equal(await app.containsKey('002005'), true);
  assert.equal(await app.containsKey('007001'), false);
  const byKey = await app.readCase({ key: '002005' });
  assert.ok(byKey);
  assert.equal(byKey.position, positionOf(2, 5));
  const level = byKey.case.SIMPLECAPI_QUEST as {
    CLUSTER: { code: number };
    HHNO: { code: number };
    HOUSING_REC: { H3: { code: number } }[];
  };
  assert.deepEqual([level.CLUSTER.code, level.HHNO.code, level.HOUSING_REC[0]!.H3.code], [2, 5, 1]);
  assert.equal((await app.readCase({ position: positionOf(2, 5) }))?.case.uuid, byKey.case.uuid);
  assert.equal((await app.readCase({ uuid: byKey.case.uuid.toUpperCase() }))?.position, positionOf(2, 5));
  assert.equal(await app.readCase({ key: '007001' }), undefined);

  // Every identifier in position order: the client asks 1000 at a time, the server sends 700 and says resultLimit.
  app.log.length = 0;
  const ids = await app.iterate<Identifier>('identifiers', 'notDeletedOnly');
  assert.deepEqual(
    ids.map((i) => i.position),
    Array.from({ length: CASES }, (_, i) => i + 1),
  );
  assert.deepEqual(
    app.log.map((l) => [l.options.limit, l.options.offset ?? 0, l.returned, l.resultLimit]),
    [
      [1000, 0, 700, true],
      [1000, 700, 700, true],
      [1000, 1400, 700, true],
      [1000, 2100, 700, true],
      [1000, 2800, 200, false],
      [1000, 3000, 0, false],
    ],
  );
  // A limit of its own: the last request asks for exactly what remains and ends the iteration.
  app.log.length = 0;
  assert.equal((await app.iterate<Identifier>('identifiers', 'all', { limit: 2500 })).length, 2500);
  assert.deepEqual(
    app.log.map((l) => [l.options.limit, l.returned, l.resultLimit]),
    [
      [1000, 700, true],
      [1000, 700, true],
      [1000, 700, true],
      [400, 400, false],
    ],
  );
  // Key order backwards from a start key; a key prefix; a position start; offset.
  const back = await app.iterate<Summary>('summaries', 'notDeletedOnly', {
    method: 'key',
    ascending: false,
    start: { operator: '<=', type: 'key', value: '001010' },
  });
  assert.deepEqual(
    back.map((s) => s.key),
    Array.from({ length: 10 }, (_, i) => `001${pad(10 - i)}`),
  );
  assert.equal(back[0]!.label ?? '', '');
  const third = await app.iterate<Identifier>('identifiers', 'notDeletedOnly', {
    method: 'key',
    start: { operator: 'startswith', type: 'key', value: '003' },
  });
  assert.equal(third.length, 500);
  assert.deepEqual([third[0]!.position, third.at(-1)!.position], [1001, 1500]);
  const tail = await app.iterate<Identifier>('identifiers', 'all', {
    method: 'position',
    start: { operator: '>', type: 'position', value: 2990 },
    offset: 5,
  });
  assert.deepEqual(
    tail.map((i) => i.position),
    [2996, 2997, 2998, 2999, 3000],
  );

  // Whole cases with the local cache: the first pass fills it (pages of 50, 100, 150 …, cut at the cap) …
  app.useCache = true;
  app.log.length = 0;
  const first = await app.iterate<V3Case>('cases', 'notDeletedOnly', { method: 'position' });
  assert.equal(first.length, CASES);
  assert.deepEqual(
    app.log.slice(0, 4).map((l) => [l.options.limit, l.returned]),
    [
      [50, 50],
      [100, 100],
      [150, 150],
      [200, 200],
    ],
  );
  // The pages grow by 50 up to 550 (2,750 cases), the 11th brings the last 250 and the 12th nothing.
  assert.deepEqual(
    app.log.map((l) => [l.options.limit, l.returned]),
    [...Array.from({ length: 10 }, (_, i) => [(i + 1) * 50, (i + 1) * 50]), [550, 250], [600, 0]],
  );
  assert.equal(app.cache.size, CASES);
  assert.equal(
    app.log.reduce((n, l) => n + l.placeholders, 0),
    0,
  );
  // … once it is current, a second pass gets an empty object for every case, with its metadata.
  await app.markCacheCurrent();
  app.log.length = 0;
  const second = await app.iterate<V3Case>('cases', 'notDeletedOnly', { method: 'position' });
  assert.equal(
    app.log.reduce((n, l) => n + l.placeholders, 0),
    CASES,
  );
  assert.deepEqual(
    second.map((c) => c.uuid),
    first.map((c) => c.uuid),
  );
  // A case changed since comes whole; its neighbours stay placeholders.
  const changed = { ...(await app.readCase({ position: 1500 }))!.case, label: 'revisited' };
  await app.writeCase(changed);
  app.log.length = 0;
  const around = await app.iterate<V3Case>('cases', 'notDeletedOnly', {
    method: 'position',
    start: { operator: '>=', type: 'position', value: 1498 },
    limit: 5,
  });
  assert.deepEqual(
    around.map((c) => c.label ?? ''),
    ['', '', 'revisited', '', ''],
  );
  assert.equal(app.log[0]!.placeholders, 4);
  app.useCache = false;

  // Writes: a new case with a photo (sent in the cssync container), a partial one, a second case of an existing key.
  const withPhoto = v3Case(9, 1, { photo: PHOTO, label: 'with photo', note: 'door painted blue' });
  await app.writeCase(withPhoto, [PHOTO]);
  await app.writeCase(v3Case(9, 2, { partial: true }));
  await app.writeCase(v3Case(1, 1, { label: 'second 001001' }));
  assert.equal(await app.count(), CASES + 3);
  const stored = (await app.readCase({ key: '009001' }))!;
  assert.equal(stored.position, CASES + 1);
  assert.equal(stored.case.caseNote, 'door painted blue');
  const photo = (stored.case.SIMPLECAPI_QUEST as { HOUSING_REC: { PHOTO: { signature: string; size: number } }[] }).HOUSING_REC[0]!.PHOTO;
  assert.deepEqual([photo.signature, photo.size], [md5(PHOTO), PHOTO.length]);
  // The content is fetched when the application touches the item.
  assert.ok((await app.binaryData(photo.signature)).equals(PHOTO));
  await assert.rejects(app.binaryData(md5(Buffer.from('never sent'))), (e: DataSourceError) => e.status === 404);
  assert.equal(await app.count('partialsOnly'), 1);
  assert.equal(await app.count('duplicatesOnly'), 2);
  const dups = await app.iterate<Summary>('summaries', 'duplicatesOnly', { method: 'key' });
  assert.deepEqual(
    dups.map((s) => [s.key, s.position]),
    [
      ['001001', 1],
      ['001001', CASES + 3],
    ],
  );
  const partial = (await app.iterate<Summary>('summaries', 'partialsOnly'))[0]!;
  assert.deepEqual([partial.key, partial.partialSaveMode], ['009002', 'add']);
  // The note is in the summary too.
  assert.equal(
    (await app.iterate<Summary>('summaries', 'all', { start: { operator: '=', type: 'position', value: CASES + 1 } }))[0]!.caseNote,
    'door painted blue',
  );

  // Deleting is re-posting the case with `deleted` flipped; undeleting the same way.
  await app.deleteCase(CASES + 2);
  assert.equal(await app.count(), CASES + 2);
  assert.equal(await app.count('partialsOnly'), 0);
  assert.equal((await app.readCase({ position: CASES + 2 }))?.case.deleted, true);
  assert.equal(await app.readCase({ key: '009002' }), undefined, 'a lookup by key sees live cases only');
  await app.deleteCase(CASES + 2, false);
  assert.equal(await app.count(), CASES + 3);
  assert.equal((await app.readCase({ key: '009002' }))?.position, CASES + 2, 'the position stays through delete and undelete');

  // An expired access token: the client refreshes (flat reply) and repeats the request.
  app.forgetAccessToken();
  assert.equal(await app.count(), CASES + 3);

  // A field account may not clear the data source: 403, the client's message.
  await assert.rejects(
    app.clear(),
    (e: DataSourceError) =>
      e.status === 403 && /cannot be deleted due to insufficient privileges using the role 'Standard User'/.test(e.message),
  );
  assert.equal(await app.count(), CASES + 3);
});

test('data source: an Administrator is refused by the client; a missing dictionary is uploaded; create-new clears; positions survive a restart', async () => {
  await assert.rejects(client('admin').connect(), (e: Error) =>
    /cannot use the CSWeb data source while connecting with role 'Administrator'/.test(e.message),
  );

  // A dictionary the server does not have: the client is told 404 (JSON), uploads its dictionary, then reads the metadata.
  const otherJson = JSON.stringify({ ...(JSON.parse(dictionaryJson) as object), name: 'OTHER_DICT' });
  const integration = client('api', 'OTHER_DICT', otherJson);
  await integration.connect();
  await assert.rejects(integration.open('mustExist'), (e: Error) => e.message === "The data source 'OTHER_DICT' does not exist on CSWeb.");
  await integration.open('openOrCreate');
  assert.deepEqual(integration.permissions, ['data']);
  assert.equal(await integration.count(), 0);
  // A dictionary of another key structure is refused by the client.
  const wider = JSON.parse(dictionaryJson) as { levels: { ids: { items: { length: number }[] } }[] };
  wider.levels[0]!.ids.items[1]!.length = 4;
  const mismatched = client('api', DICT, JSON.stringify(wider));
  await mismatched.connect();
  await assert.rejects(
    mismatched.open(),
    (e: Error) => e.message === `The dictionary '${DICT}' on CSWeb is incompatible with this version.`,
  );

  // Positions before a restart …
  const reader = client('standard');
  await reader.connect();
  await reader.open('mustExist');
  const before = await reader.iterate<Identifier>('identifiers', 'all');
  assert.equal(before.length, CASES + 3);
  await serve.stop();
  serve = await startServe(home.root, env);
  const again = client('standard');
  await again.connect();
  await again.open('mustExist');
  assert.deepEqual(await again.iterate<Identifier>('identifiers', 'all'), before, 'the same positions, keys, uuids and revisions');

  // Batch output (create new): the client clears the cases first; an API account may.
  const batch = client('api');
  await batch.connect();
  await batch.open('createNew');
  assert.equal(await batch.count(), 0);
  assert.equal(await batch.count('all'), CASES + 3, 'the cleared cases stay as tombstones');
  await batch.writeCase(v3Case(8, 8));
  assert.equal((await batch.readCase({ key: '008008' }))?.position, CASES + 4, 'positions are never given twice');
});
