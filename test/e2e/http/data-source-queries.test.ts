/**
 * The CSPro 8.1 data source's routes against the real server on loopback
 * (docs/sync.md#the-81-data-source): the metadata, every query option of `GET …/cases` with
 * `x-csw-cases-options` over cases with known positions, keys, duplicates, partial saves and
 * deletions, the server's cap (`resultLimit`), binary content and clearing a dictionary. The
 * cases are written with the 8.0 sync upload, so this file needs no V3 case JSON; the client's
 * whole sequence is in data-source-client.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { uploadDictionary } from '../../../src/core/dictionaries/index.js';
import { startTestServer, type TestServer, type UserKey } from '../../helpers/http-server.js';
import { SyncDevice } from '../../helpers/sync-client.js';
import { fixture } from '../../helpers/temp-home.js';
import { photoDescriptor, simpleCapiWithPhoto } from '../../helpers/csweb-fixture.js';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';

const DICT = 'SIMPLECAPI_DICT';
const CAP = 5;
const PHOTO = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7 + 3) % 256));
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const keyOf = (hh: number) => `001${String(hh).padStart(3, '0')}`;

interface Seeded {
  /** guid by position (1-based: index 0 unused). */
  byPosition: string[];
  keyByPosition: string[];
}

const wire = (guid: string, hh: number, extra: Record<string, unknown> = {}, photo?: Buffer) => ({
  id: guid,
  caseids: keyOf(hh),
  clock: [{ deviceId: 'tablet-a', revision: 1 }],
  'level-1': JSON.stringify({
    id: { CLUSTER: 1, HHNO: hh },
    HOUSING_REC: { H3: 1, ...(photo ? { PHOTO: photoDescriptor(guid, photo) } : {}) },
  }),
  ...extra,
});

/**
 * Households 1–12 uploaded out of key order (so positions differ from key order), then a second
 * case of household 3 and of household 5 (duplicates); households 2 and 9 partial; household 4
 * deleted, and the second household 5 deleted (so 5 is no longer a live duplicate). Household 1
 * holds a photo.
 */
async function seed(ts: TestServer): Promise<Seeded> {
  const a = new SyncDevice(ts, 'tablet-a');
  const order = [7, 3, 12, 1, 10, 5, 2, 11, 4, 9, 6, 8];
  const guids = new Map(order.map((hh) => [hh, randomUUID()]));
  const cases = order.map((hh) =>
    wire(
      guids.get(hh)!,
      hh,
      { ...(hh === 2 || hh === 9 ? { partialSave: { mode: 'add' } } : {}), ...(hh === 4 ? { deleted: true } : {}) },
      hh === 1 ? PHOTO : undefined,
    ),
  );
  const up = await a.putContainer(DICT, cases, [{ header: { caseid: guids.get(1), signature: md5(PHOTO) }, content: PHOTO }]);
  assert.equal(up.status, 200, await up.clone().text());
  const dup3 = randomUUID();
  const dup5 = randomUUID();
  assert.equal((await a.put(DICT, [wire(dup3, 3, { label: 'second 3' }), wire(dup5, 5, { deleted: true })])).status, 200);
  const byPosition = ['', ...order.map((hh) => guids.get(hh)!), dup3, dup5];
  const keyByPosition = ['', ...order.map(keyOf), keyOf(3), keyOf(5)];
  return { byPosition, keyByPosition };
}

let doc: OpenApiDoc | undefined;

/** Every reply is checked against the served OpenAPI document. */
async function checked(ts: TestServer, method: string, template: string, r: Response): Promise<Record<string, unknown>> {
  doc ??= (await (await fetch(`${ts.base}/api/openapi.json`)).json()) as OpenApiDoc;
  const body = (await r.json()) as Record<string, unknown>;
  assert.deepEqual(checkReply(doc, method, template, r.status, body), [], `${method} ${template} ${r.status}`);
  return body;
}

async function query(ts: TestServer, options: unknown, user: UserKey = 'standard', extra: Record<string, string> = {}) {
  const r = await ts.call(user, `/api/dictionaries/${DICT}/cases`, {
    headers: { 'x-csw-cases-options': typeof options === 'string' ? options : JSON.stringify(options), ...extra },
  });
  return { status: r.status, body: await checked(ts, 'get', '/api/dictionaries/{name}/cases', r) };
}

async function ok(ts: TestServer, options: unknown): Promise<Record<string, unknown>> {
  const r = await query(ts, options);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

type Ident = { key: string; uuid: string; position: number; revision: number };
const positions = (body: Record<string, unknown>, content = 'identifiers') => (body[content] as Ident[]).map((i) => i.position);

/** Every item of a query, asked again from the next offset while the server says it cut the reply (as the client pages). */
async function everything<T>(ts: TestServer, options: Record<string, unknown>): Promise<T[]> {
  const content = String(options.content);
  const out: T[] = [];
  for (let guard = 0; guard < 100; guard++) {
    const body = await ok(ts, { ...options, offset: out.length });
    out.push(...(body[content] as T[]));
    if (!('resultLimit' in body)) return out;
  }
  throw new Error('no end');
}

test('data source: metadata, every status, filter, order, offset and limit, the cap, binary content, clearing', async (t) => {
  const ts = await startTestServer({
    config: { limits: { dataSourceCases: CAP } },
    seed: async (store) => {
      await uploadDictionary(store, { source: Buffer.from(simpleCapiWithPhoto(fixture('simple-capi.dcf'))), label: 'simplecapi' });
    },
  });
  t.after(() => ts.close());
  const s = await seed(ts);
  const pos = (hh: number, nth = 0) => s.keyByPosition.map((k, i) => (k === keyOf(hh) ? i : -1)).filter((i) => i > 0)[nth]!;

  // Metadata: permissions by role, the key structure of CLUSTER and HHNO (numeric, 3, zero-filled), the newest revision.
  const meta = async (user: UserKey) => {
    const r = await ts.call(user, `/api/dictionaries/${DICT}/metadata`);
    assert.equal(r.status, 200);
    return (await checked(ts, 'get', '/api/dictionaries/{name}/metadata', r)) as {
      permissions: string[];
      dictionaryKeyStructure: string;
      maxRevision: number;
    };
  };
  const m = await meta('standard');
  assert.deepEqual(m.permissions, ['data.read', 'data.write']);
  assert.equal(m.dictionaryKeyStructure, '3numeric13numeric1');
  assert.deepEqual((await meta('api')).permissions, ['data']);
  const all = await ok(ts, { content: 'identifiers', status: 'all' });
  const revisions = (await everything<Ident>(ts, { content: 'identifiers', status: 'all' })).map((i) => i.revision);
  assert.equal(revisions.length, 14);
  assert.equal(m.maxRevision, Math.max(...revisions));
  // A missing dictionary is a JSON 404 (the client then uploads it).
  const missing = await ts.call('standard', '/api/dictionaries/NOPE_DICT/metadata');
  assert.equal(missing.status, 404);
  assert.equal((await checked(ts, 'get', '/api/dictionaries/{name}/metadata', missing)).error, 'DICTIONARY_NOT_FOUND');

  // Counts by status: 14 cases, 12 live (4 and the second 5 deleted), partials 2 and 9, live duplicates the two 3s.
  const count = async (status: string, filter?: unknown) =>
    (await ok(ts, { content: 'count', status, ...(filter ? { filter } : {}), limit: 1 })).count;
  assert.equal(await count('all'), 14);
  assert.equal(await count('notDeletedOnly'), 12);
  assert.equal(await count('partialsOnly'), 2);
  assert.equal(await count('duplicatesOnly'), 2);
  assert.equal((await ok(ts, { content: 'count' })).count, 12, 'without a status: live cases');
  // Key exists, as the client asks it.
  assert.equal(await count('notDeletedOnly', { operator: '=', type: 'key', value: keyOf(4) }), 0);
  assert.equal(await count('all', { operator: '=', type: 'key', value: keyOf(4) }), 1);

  // Positions are 1… in upload order; identifiers carry key, uuid and revision.
  const byPos = all.identifiers as Ident[];
  assert.deepEqual(
    byPos.map((i) => i.position),
    [1, 2, 3, 4, 5],
    'the cap cuts the list',
  );
  assert.equal(all.resultLimit, CAP);
  for (const i of byPos) {
    assert.equal(i.uuid, s.byPosition[i.position]);
    assert.equal(i.key, s.keyByPosition[i.position]);
  }

  // Orders: by key (ties by position), by position, either way.
  const ids = async (options: Record<string, unknown>) => positions(await ok(ts, { content: 'identifiers', limit: CAP, ...options }));
  const liveByKey = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
    .filter((hh) => hh !== 4)
    .flatMap((hh) => (hh === 3 ? [pos(3), pos(3, 1)] : [pos(hh)]));
  assert.deepEqual(await ids({ status: 'notDeletedOnly', sort: { order: 'key', ascending: true } }), liveByKey.slice(0, 5));
  assert.deepEqual(await ids({ status: 'notDeletedOnly', sort: { order: 'key', ascending: false } }), [...liveByKey].reverse().slice(0, 5));
  assert.deepEqual(await ids({ status: 'all', sort: { order: 'position', ascending: false } }), [14, 13, 12, 11, 10]);
  assert.deepEqual(await ids({ status: 'all', sort: { ascending: false } }), [14, 13, 12, 11, 10], 'position order by default');
  // Paging: offset and limit walk the same order without gaps.
  const paged: number[] = [];
  for (let offset = 0; offset < 12; offset += 3)
    paged.push(...(await ids({ status: 'notDeletedOnly', sort: { order: 'key' }, offset, limit: 3 })));
  assert.deepEqual(paged, liveByKey);

  // Filters: key operators, a key prefix, positions, a uuid.
  const keyed = async (operator: string, value: string, status = 'notDeletedOnly') =>
    (await ok(ts, { content: 'identifiers', status, sort: { order: 'key' }, filter: { operator, type: 'key', value }, limit: 20 }))
      .identifiers as Ident[];
  assert.deepEqual(
    (await keyed('=', keyOf(3))).map((i) => i.position),
    [pos(3), pos(3, 1)],
  );
  assert.deepEqual(
    (await keyed('<', keyOf(3))).map((i) => i.key),
    [keyOf(1), keyOf(2)],
  );
  assert.deepEqual(
    (await keyed('<=', keyOf(3))).map((i) => i.key),
    [keyOf(1), keyOf(2), keyOf(3), keyOf(3)],
  );
  assert.deepEqual(
    (await keyed('>', keyOf(10))).map((i) => i.key),
    [keyOf(11), keyOf(12)],
  );
  assert.deepEqual(
    (await keyed('>=', keyOf(10))).map((i) => i.key),
    [keyOf(10), keyOf(11), keyOf(12)],
  );
  assert.deepEqual(
    (await keyed('startswith', '00101')).map((i) => i.key),
    [keyOf(10), keyOf(11), keyOf(12)],
  );
  assert.equal((await keyed('startswith', '002')).length, 0);
  assert.equal(await count('all', { operator: 'startswith', type: 'key', value: '001' }), 14);
  const byPosFilter = async (operator: string, value: number) =>
    positions(await ok(ts, { content: 'identifiers', status: 'all', filter: { operator, type: 'position', value }, limit: 20 }));
  assert.deepEqual(await byPosFilter('=', 7), [7]);
  assert.deepEqual(await byPosFilter('>', 12), [13, 14]);
  assert.deepEqual(await byPosFilter('>=', 12), [12, 13, 14]);
  assert.deepEqual(await byPosFilter('<', 3), [1, 2]);
  assert.deepEqual(await byPosFilter('<=', 3), [1, 2, 3]);
  // A single lookup as the client sends it: by uuid (any case), by position, by key with the top-level order.
  const one = async (type: string, value: unknown, status = 'all') =>
    (await ok(ts, { content: 'identifiers', status, filter: { operator: '=', type, value }, order: 'position', limit: 1 }))
      .identifiers as Ident[];
  assert.deepEqual(
    (await one('uuid', s.byPosition[9]!.toUpperCase())).map((i) => i.position),
    [9],
  );
  assert.deepEqual(
    (await one('position', 14)).map((i) => i.uuid),
    [s.byPosition[14]],
  );
  assert.deepEqual(
    (await one('key', keyOf(3), 'notDeletedOnly')).map((i) => i.position),
    [pos(3)],
  );
  assert.deepEqual(await one('key', keyOf(4), 'notDeletedOnly'), []);

  // Statuses in lists: partials and duplicates are live cases only.
  assert.deepEqual(
    await ids({ status: 'partialsOnly' }),
    [pos(2), pos(9)].sort((x, y) => x - y),
  );
  assert.deepEqual(await ids({ status: 'duplicatesOnly', sort: { order: 'key' } }), [pos(3), pos(3, 1)]);

  // Summaries: label, flags, partial save mode.
  const sums = await everything<Ident & { label: string; deleted: boolean; verified: boolean; partialSaveMode?: string }>(ts, {
    content: 'summaries',
    status: 'all',
    filter: { operator: '<=', type: 'position', value: 14 },
    sort: { order: 'key' },
  });
  assert.equal(sums.length, 14);
  assert.equal(sums.find((x) => x.position === pos(2))!.partialSaveMode, 'add');
  assert.equal(sums.find((x) => x.position === pos(1))!.partialSaveMode, undefined);
  assert.equal(sums.find((x) => x.position === pos(4))!.deleted, true);
  assert.equal(sums.find((x) => x.position === pos(3, 1))!.label, 'second 3');

  // The cap: a result longer than it says resultLimit; one that fits, or a limit within it, does not.
  const capped = await ok(ts, { content: 'identifiers', status: 'all', limit: 100 });
  assert.equal(positions(capped).length, CAP);
  assert.equal(capped.resultLimit, CAP);
  const last = await ok(ts, { content: 'identifiers', status: 'all', offset: 10, limit: 100 });
  assert.deepEqual(positions(last), [11, 12, 13, 14]);
  assert.equal('resultLimit' in last, false);
  const exact = await ok(ts, { content: 'identifiers', status: 'all', limit: CAP });
  assert.equal('resultLimit' in exact, false, 'the client got what it asked for');
  const empty = await ok(ts, { content: 'summaries', status: 'all', offset: 14 });
  assert.deepEqual(empty, { summaries: [] });

  // A malformed options header: 400 naming the key.
  const bad = await query(ts, { content: 'identifiers', filter: { operator: 'like', type: 'key', value: '0' } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error, 'CASES_OPTIONS_INVALID');
  assert.match(String(bad.body.message), /filter\.operator is "like"/);
  assert.equal((await query(ts, '{"content":')).body.error, 'CASES_OPTIONS_INVALID');

  // Without the header the route is what it was: the list, and with x-csw-* headers the sync download.
  const list = (await (await ts.call('standard', `/api/dictionaries/${DICT}/cases?limit=3`)).json()) as { total: number };
  assert.equal(list.total, 14);
  assert.equal((await new SyncDevice(ts, 'tablet-b').get(DICT, 100)).cases.length, 14);

  // Binary content by signature: the bytes, Content-MD5 in hex; 404 for a content not held, 400 for no md5.
  const bin = await ts.call('standard', `/api/dictionaries/${DICT}/binary-data/${md5(PHOTO)}`, {
    headers: { accept: 'application/octet-stream' },
  });
  assert.equal(bin.status, 200);
  assert.equal(bin.headers.get('content-md5'), md5(PHOTO));
  assert.ok(Buffer.from(await bin.arrayBuffer()).equals(PHOTO));
  const none = await ts.call('standard', `/api/dictionaries/${DICT}/binary-data/${md5(Buffer.from('x'))}`);
  assert.equal(none.status, 404);
  assert.equal((await checked(ts, 'get', '/api/dictionaries/{name}/binary-data/{signature}', none)).error, 'NOT_FOUND');
  assert.equal((await ts.call('standard', `/api/dictionaries/${DICT}/binary-data/not-an-md5`)).status, 400);

  // Clearing: a Standard account may not; an API account may; the cases become tombstones at one revision.
  const denied = await ts.call('standard', `/api/dictionaries/${DICT}/data`, { method: 'DELETE' });
  assert.equal(denied.status, 403);
  await denied.arrayBuffer();
  assert.equal(await count('notDeletedOnly'), 12);
  const cleared = await ts.call('api', `/api/dictionaries/${DICT}/data`, { method: 'DELETE', headers: { 'x-csw-device': 'office' } });
  assert.equal(cleared.status, 200);
  assert.deepEqual(await checked(ts, 'delete', '/api/dictionaries/{name}/data', cleared), { code: 200, description: 'Success' });
  const revision = Number(cleared.headers.get('x-csw-current-revision'));
  assert.equal(await count('notDeletedOnly'), 0);
  assert.equal(await count('all'), 14);
  const after = await everything<Ident>(ts, {
    content: 'identifiers',
    status: 'all',
    filter: { operator: '>', type: 'position', value: 0 },
  });
  assert.deepEqual(
    after.map((i) => [i.position, i.uuid]),
    s.byPosition.slice(1).map((g, i) => [i + 1, g]),
    'positions stay',
  );
  // The live cases took the clear's revision; the two tombstones kept theirs.
  assert.equal(after.filter((i) => i.revision === revision).length, 12);
  assert.equal((await meta('standard')).maxRevision, revision);
  // Clearing again changes nothing; a case written afterwards takes the next position.
  assert.equal((await ts.call('api', `/api/dictionaries/${DICT}/data`, { method: 'DELETE' })).status, 200);
  assert.equal((await meta('standard')).maxRevision, revision);
  const fresh = randomUUID();
  assert.equal((await new SyncDevice(ts, 'tablet-a').put(DICT, [wire(fresh, 1)])).status, 200);
  assert.deepEqual(
    (await one('uuid', fresh)).map((i) => i.position),
    [15],
  );
});
