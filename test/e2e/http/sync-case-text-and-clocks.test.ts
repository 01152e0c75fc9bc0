/**
 * What a sync upload stores of a case's text and clock, through a real `sds serve` and the
 * clients of CSPro 8.0.1 (the older case JSON) and 8.1 (V3): a lone UTF-16 surrogate in a label,
 * key or case note is stored and sent back as one U+FFFD, while `level-1` and notes, kept as JSON
 * text, keep the escape (docs/sync.md#text-of-a-case); a clock revision that is not a safe whole
 * number is refused, naming the case and the field, and nothing of the upload is stored
 * (docs/sync.md#upload-post-cases).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { runCli, show } from '../../helpers/run-cli.js';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';
import { fixture, storeSql, tempHome, testStoreKind, withStore } from '../../helpers/temp-home.js';
import { ClientError, CsproClient } from '../../helpers/cspro-client.js';

const PASSWORD = 'correct horse battery staple';
const DICT = 'SIMPLECAPI_DICT';
const home = await tempHome();
let s: ServeProcess;

before(async () => {
  for (const [user, role] of [
    ['field', 'Standard User'],
    ['office', 'API'],
  ] as const) {
    const add = runCli(home.root, ['users', 'add', user, '--role', role, '--password-stdin'], { stdin: PASSWORD + '\n' });
    assert.equal(add.code, 0, show(add));
  }
  s = await startServe(home.root);
  const office = await client('8.1.0', 'office');
  await office.putDictionary(readFileSync(fixture('simple-capi.dcf'), 'utf8'));
});
after(async () => {
  await s?.stop();
  await home.cleanup();
});

async function client(version: '8.0.1' | '8.1.0', user = 'field', device = `${version}-${randomUUID().slice(0, 8)}`): Promise<CsproClient> {
  const c = new CsproClient(s.url, version, device);
  await c.connect(user, PASSWORD);
  return c;
}

/** A case in the older sync JSON (8.0.1), `level-1` as a JSON string. */
function v2Case(id: string, hh: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    caseids: `001${String(hh).padStart(3, '0')}`,
    clock: [{ deviceId: 'tablet-80', revision: 1 }],
    'level-1': JSON.stringify({ id: { CLUSTER: 1, HHNO: hh }, POPULATION_REC: [{ P1: `HEAD ${hh}`, P2: 1, P4: 40 }] }),
    ...extra,
  };
}

/** A case in CSPro 8.1's case JSON (V3). */
function v3Case(uuid: string, hh: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    key: `001${String(hh).padStart(3, '0')}`,
    uuid,
    SIMPLECAPI_QUEST: { CLUSTER: { code: 1 }, HHNO: { code: hh }, POPULATION_REC: [{ P1: { code: `HEAD ${hh}` }, P2: { code: 1 } }] },
    clock: [{ deviceId: 'tablet-81', revision: 1 }],
    ...extra,
  };
}

/** An upload whose JSON text is given as it is (a number JSON.stringify cannot write), compressed as the client does. */
async function putText(c: CsproClient, json: string): Promise<number> {
  const r = await c.request('POST', `dictionaries/${DICT}/cases`, {
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Encoding': c.v3 ? 'deflate' : 'gzip',
      'x-csw-device': c.deviceId,
    },
    body: deflateSync(Buffer.from(json)),
  });
  return Number(r.headers.get('x-csw-current-revision'));
}

/** How many cases the dictionary holds, as the API lists them. */
async function caseCount(): Promise<number> {
  const office = await client('8.1.0', 'office');
  const r = await office.request('GET', `dictionaries/${DICT}/cases?limit=1`);
  return ((await r.json()) as { total: number }).total;
}

test('a lone surrogate in a label, key or case note is stored and sent back as one U+FFFD; level-1 and notes keep it', async () => {
  const old = await client('8.0.1');
  const tablet = await client('8.1.0');
  const a = randomUUID();
  const b = randomUUID();
  const note = {
    content: 'ask \ud800 again',
    field: { name: 'P1', levelKey: '', recordOccurrence: 1, itemOccurrence: 0, subitemOccurrence: 0 },
    operatorId: 'op1',
    modifiedTime: '2025-01-15T08:00:00Z',
  };
  // JSON.stringify writes a lone surrogate as the escape `\ud800`, as a client's JSON carries it.
  const v2Body = JSON.stringify([
    v2Case(a, 1, {
      caseids: '001\ud800',
      label: 'Berg \ud800 household',
      notes: [note],
      'level-1': JSON.stringify({ id: { CLUSTER: 1, HHNO: 1 }, POPULATION_REC: [{ P1: 'HEAD \ud800', P2: 1 }] }),
    }),
  ]);
  assert.match(v2Body, /Berg \\ud800 household/);
  await putText(old, v2Body);
  await tablet.syncPut(DICT, [v3Case(b, 2, { label: '\udc00 house two', caseNote: 'dog \ud800' })]);

  for (const reader of [await client('8.0.1'), await client('8.1.0')]) {
    const down = await reader.syncGet(DICT, 100);
    const byId = new Map(down.cases.map((c) => [String(reader.v3 ? c.uuid : c.id), c]));
    assert.equal(byId.get(a)!.label, 'Berg \ufffd household', `${reader.version}: one U+FFFD, not three`);
    assert.equal(byId.get(b)!.label, '\ufffd house two', reader.version);
    assert.equal(byId.get(a)![reader.v3 ? 'key' : 'caseids'], '001\ufffd', reader.version);
    const p1 = reader.v3
      ? (byId.get(a)!.SIMPLECAPI_QUEST as { POPULATION_REC: { P1: unknown }[] }).POPULATION_REC[0]!.P1
      : (JSON.parse(String(byId.get(a)!['level-1'])) as { POPULATION_REC: { P1: unknown }[] }).POPULATION_REC[0]!.P1;
    assert.deepEqual(p1, reader.v3 ? { code: 'HEAD \ud800' } : 'HEAD \ud800', `${reader.version}: level-1 keeps the escape`);
    if (reader.v3) {
      assert.equal(byId.get(b)!.caseNote, 'dog \ufffd');
      assert.equal((byId.get(a)!.notes as { text: string }[])[0]!.text, 'ask \ud800 again', 'a note keeps the escape');
    } else {
      assert.equal((byId.get(a)!.notes as { content: string }[])[0]!.content, 'ask \ud800 again', 'a note keeps the escape');
    }
  }
  // The case list shows it as well, and the store file holds UTF-8 (EF BF BD), not the bytes ED A0 80.
  const office = await client('8.1.0', 'office');
  const list = (await (await office.request('GET', `dictionaries/${DICT}/cases`)).json()) as {
    data: { guid: string; case_label: string }[];
  };
  assert.equal(list.data.find((c) => c.guid === a)!.case_label, 'Berg \ufffd household');
  const hex = (text: string) => Buffer.from(text).toString('hex').toUpperCase();
  const hexOf = (column: string) =>
    testStoreKind() === 'sqlite' ? `hex(${column})` : `upper(encode(convert_to(${column}, 'UTF8'), 'hex'))`;
  const row = async (guid: string) =>
    withStore(home, async (store) => {
      const query = `SELECT ${hexOf('case_key')} AS key, ${hexOf('label')} AS label, ${hexOf('case_note')} AS note FROM cases WHERE guid = ?`;
      const [r] = await storeSql(store, query, [guid]);
      // SQLite's hex(NULL) is '', PostgreSQL's encode of NULL is NULL.
      return { ...r, note: r!.note ?? '' };
    });
  assert.deepEqual(await row(a), { key: hex('001\ufffd'), label: hex('Berg \ufffd household'), note: '' });
  assert.deepEqual(await row(b), { key: hex('001002'), label: hex('\ufffd house two'), note: hex('dog \ufffd') });
});

test('a clock revision that is not a safe whole number is 400 CASE_INVALID naming the case and field; nothing is stored', async () => {
  const before = await caseCount();
  const REV = '"__REVISION__"';
  const tries: [CsproClient, string][] = [];
  const old = await client('8.0.1');
  const tablet = await client('8.1.0');
  for (const revision of ['1e308', '9007199254740993', '9007199254740992', '-1', '2.5']) {
    tries.push([old, revision], [tablet, revision]);
  }
  for (const [c, revision] of tries) {
    const id = randomUUID();
    const bad = c.v3
      ? v3Case(id, 7, {
          clock: [
            { deviceId: 'tablet-81', revision: 1 },
            { deviceId: 'other', revision: REV },
          ],
        })
      : v2Case(id, 7, {
          clock: [
            { deviceId: 'tablet-80', revision: 1 },
            { deviceId: 'other', revision: REV },
          ],
        });
    const good = c.v3 ? v3Case(randomUUID(), 8) : v2Case(randomUUID(), 8);
    const json = JSON.stringify([good, bad]).replace(REV, revision);
    const err = await putText(c, json).then(
      () => assert.fail(`${c.version} ${revision} was accepted`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ClientError, String(err));
    assert.equal(err.status, 400, `${c.version} ${revision}`);
    assert.equal(err.code, 'CASE_INVALID');
    assert.match(
      err.serverMessage,
      new RegExp(
        `^case 1 \\(id ${id}, caseids "001007"\\): clock\\[1\\]\\.revision must be a whole number from 0 to 9007199254740991, got `,
      ),
    );
    assert.match(err.serverMessage, /; nothing of this upload was stored$/);
  }
  assert.equal(await caseCount(), before, 'nothing of any refused upload was stored');
  // The largest safe whole number is a revision like any other.
  const max = randomUUID();
  await putText(old, JSON.stringify([v2Case(max, 9, { clock: [{ deviceId: 'tablet-80', revision: Number.MAX_SAFE_INTEGER }] })]));
  const down = await (await client('8.1.0')).syncGet(DICT, 100);
  assert.deepEqual(down.cases.find((c) => c.uuid === max)!.clock, [{ deviceId: 'tablet-80', revision: Number.MAX_SAFE_INTEGER }]);
});
