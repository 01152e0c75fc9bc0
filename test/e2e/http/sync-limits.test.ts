import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { deflateSync, gzipSync } from 'node:zlib';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { DEFAULT_LIMITS, type Limits } from '../../../src/core/home/limits.js';
import { fixture, writeHomeConfig } from '../../helpers/temp-home.js';
import { startTestServer, type TestServer } from '../../helpers/http-server.js';
import { popstanCases, SyncDevice, type WireCase } from '../../helpers/sync-client.js';

const DICT = 'CEN2000';

async function popstanServer(limits: Partial<Limits> = {}): Promise<TestServer> {
  return startTestServer({
    config: { limits },
    seed: async (store) => {
      const file = fixture('popstan-census.json.dcf');
      await uploadDictionary(store, { source: readFileSync(file), label: 'popstan', file });
    },
  });
}

interface LimitBody {
  error: string;
  message: string;
  details?: { case?: string; id?: string; index?: number; field?: string; limit?: number };
}

async function total(ts: TestServer): Promise<number> {
  return ((await (await ts.call('standard', `/api/dictionaries/${DICT}/cases`)).json()) as { total: number }).total;
}

const NOTE = {
  content: 'checked',
  field: { name: 'P03_SEX', levelKey: '', recordOccurrence: 1, itemOccurrence: 1, subitemOccurrence: 0 },
  operatorId: 'op1',
  modifiedTime: '2024-03-01T10:00:00Z',
};

test('sync limits: an oversize label, caseids, level-1, note count or note is 413 CASE_TOO_LARGE naming case, field and limit; nothing stored', async (t) => {
  // level-1 limit lowered so a real Popstan case (0.2-3 KB) passes it and a bigger one does not.
  const ts = await popstanServer({ dataChars: 2000 });
  t.after(() => ts.close());
  const a = new SyncDevice(ts, 'tablet-a');
  const cases = popstanCases(400, 'tablet-a').filter((c) => c['level-1'] !== undefined);
  const small = cases.find((c) => c['level-1']!.length > 1000 && c['level-1']!.length < 1500)!;
  const big = cases.find((c) => c['level-1']!.length > 2500)!;
  assert.ok(small && big, 'the fixture has cases on both sides of 2000 characters');
  const L = DEFAULT_LIMITS;
  const tries: [WireCase, string, number][] = [
    [{ ...small, id: randomUUID(), label: 'L'.repeat(L.labelChars + 1) }, 'label', L.labelChars],
    [{ ...small, id: randomUUID(), caseids: '1'.repeat(L.caseidsChars + 1) }, 'caseids', L.caseidsChars],
    [{ ...big, id: randomUUID() }, 'level-1', 2000],
    [{ ...small, id: randomUUID(), notes: Array(L.notes + 1).fill(NOTE) }, 'notes', L.notes],
    [{ ...small, id: randomUUID(), notes: [NOTE, { ...NOTE, content: 'n'.repeat(L.noteChars + 1) }] }, 'notes[1].content', L.noteChars],
    [{ ...small, id: randomUUID(), clock: [{ deviceId: 'd'.repeat(L.textChars + 1), revision: 1 }] }, 'clock[0].deviceId', L.textChars],
  ];
  for (const [bad, field, limit] of tries) {
    // A good case before and after: the refusal is all-or-nothing.
    const r = await a.put(DICT, [{ ...small, id: randomUUID() }, bad, { ...small, id: randomUUID() }]);
    assert.equal(r.status, 413, field);
    const body = (await r.json()) as LimitBody;
    assert.equal(body.error, 'CASE_TOO_LARGE', field);
    assert.equal(body.details?.field, field);
    assert.equal(body.details?.limit, limit);
    assert.equal(body.details?.index, 1);
    assert.equal(body.details?.id, bad.id);
    assert.equal(body.details?.case, bad.caseids.length > 80 ? `${bad.caseids.slice(0, 40)}…` : bad.caseids);
    assert.match(
      body.message,
      new RegExp(
        `case 1: case .*${field.replace(/[[\].]/g, '\\$&')} has \\d+ \\w+, more than the limit of ${limit}; nothing of this upload was stored`,
      ),
    );
    assert.ok(body.message.length < 500, 'the message never echoes the oversize value');
  }
  assert.equal(await total(ts), 0, 'nothing of any refused upload was stored');
  // At the limits the same case is stored.
  const ok = await a.put(DICT, [
    { ...small, id: randomUUID(), label: 'L'.repeat(L.labelChars), notes: [{ ...NOTE, content: 'n'.repeat(L.noteChars) }] },
  ]);
  assert.equal(ok.status, 200, await ok.clone().text());
  assert.equal(await total(ts), 1);
});

test('sync limits: a gzip bomb is 413 as soon as the inflated bytes pass the limit; deep nesting is 400 JSON_TOO_DEEP before parsing', async (t) => {
  const ts = await popstanServer();
  t.after(() => ts.close());
  const post = (body: Buffer) =>
    ts.call('standard', `/api/dictionaries/${DICT}/cases`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-csw-device': 'tablet-a' },
      body,
    });

  // 96 MiB of one string's characters in about 100 KB of gzip: over the 64 MiB default.
  const bomb = gzipSync(Buffer.concat([Buffer.from('[{"id":"'), Buffer.alloc(96 * 1024 * 1024, 0x61), Buffer.from('"}]')]), { level: 9 });
  assert.ok(bomb.length < 200 * 1024);
  const r = await post(bomb);
  assert.equal(r.status, 413);
  const body = (await r.json()) as LimitBody;
  assert.equal(body.error, 'PAYLOAD_TOO_LARGE');
  assert.equal(body.details?.limit, DEFAULT_LIMITS.requestBytes);
  // How soon it stops is a speed (npm run bench); here: it names the limit it crossed.
  assert.match(body.message, new RegExp(`limit of ${DEFAULT_LIMITS.requestBytes} bytes`));

  // 5 million nested brackets in about 10 KB of zlib: refused at the 65th.
  const rssBefore = process.memoryUsage().rss;
  const deep = deflateSync(Buffer.alloc(5_000_000, 0x5b), { level: 9 });
  assert.ok(deep.length < 20 * 1024);
  const d = await post(deep);
  assert.equal(d.status, 400);
  const deepBody = (await d.json()) as LimitBody;
  assert.equal(deepBody.error, 'JSON_TOO_DEEP');
  assert.equal(deepBody.details?.limit, DEFAULT_LIMITS.jsonDepth);
  // Refused at the bracket that opens level 65 (byte 64), not after reading the rest.
  assert.match(deepBody.message, /at byte 64\)/);
  // Loose: JSON.parse of that body would build about 500 MB of arrays.
  assert.ok(process.memoryUsage().rss - rssBefore < 150 * 1024 * 1024, 'the server did not parse the nesting');

  // Nesting inside a level-1 JSON text (parsed on its own) is refused the same way, naming the case.
  const [c] = popstanCases(1, 'tablet-a');
  const nested = { ...c!, 'level-1': '['.repeat(1_000_000) };
  const a = new SyncDevice(ts, 'tablet-a');
  const n = await a.put(DICT, [nested]);
  assert.equal(n.status, 400);
  const nestedBody = (await n.json()) as LimitBody;
  assert.equal(nestedBody.error, 'JSON_TOO_DEEP');
  assert.equal(nestedBody.details?.field, 'level-1');
  assert.equal(nestedBody.details?.id, nested.id);
  assert.equal(nestedBody.details?.case, nested.caseids);
  assert.match(nestedBody.message, /^case 0 \(id .*level-1 nests arrays and objects deeper than the limit of 64/);
  assert.equal(await total(ts), 0);
  // The server goes on.
  assert.equal((await a.put(DICT, popstanCases(3, 'tablet-a'))).status, 200);
  assert.equal(await total(ts), 3);
});

test('sync limits: pages of GET …/cases and of the sync download are cut by the byte budget and the next page continues', async (t) => {
  const PAGE = 64 * 1024;
  const ts = await popstanServer({ pageBytes: PAGE });
  t.after(() => ts.close());
  const a = new SyncDevice(ts, 'tablet-a');
  assert.equal((await a.put(DICT, popstanCases(30, 'tablet-a'))).status, 200);
  // Rows written straight through the store, as a server before the limits stored them: labels
  // of 40 KB (two per page), one of 200 KB (over the budget alone) and one over the label limit.
  const dict = (await ts.store.dictionaries.list()).find((d) => d.name === DICT)!;
  const stored = (await ts.store.cases.page(dict.id, 1, 0))[0]!;
  const template = (await ts.store.cases.get(dict.id, stored.guid))!;
  const bigLabels = [40_000, 40_000, 40_000, 200_000, 40_000, DEFAULT_LIMITS.labelChars * 10];
  const big = bigLabels.map((n, i) => ({
    ...template,
    guid: randomUUID(),
    caseKey: `9${String(i).padStart(17, '0')}`,
    label: 'B'.repeat(n),
  }));
  await ts.store.transaction(async (tx) => {
    const r = await tx.cases.nextRevision(dict.id, 'test');
    for (const c of big) await tx.cases.upsert(dict.id, c, r);
  });
  const all = 30 + big.length;

  // The case list: pages shorter than the limit, each within the budget or one row, together everything once.
  const seen: string[] = [];
  let offset = 0;
  let pages = 0;
  while (offset < all) {
    const r = await ts.call('standard', `/api/dictionaries/${DICT}/cases?limit=1000&offset=${offset}`);
    assert.equal(r.status, 200);
    const text = await r.text();
    const page = JSON.parse(text) as { total: number; limit: number; data: { guid: string; case_label: string }[] };
    assert.equal(page.total, all);
    assert.equal(page.limit, 1000);
    assert.ok(page.data.length >= 1, 'every page moves on');
    assert.ok(page.data.length === 1 || text.length <= PAGE + 2048, `a page of ${page.data.length} rows is ${text.length} bytes`);
    seen.push(...page.data.map((d) => d.guid));
    offset += page.data.length;
    pages += 1;
  }
  assert.equal(seen.length, all);
  assert.equal(new Set(seen).size, all);
  assert.ok(pages >= 5, `${pages} pages`);

  // The sync download: 206 while cut, 200 at the end, every case once, the count header right.
  const b = new SyncDevice(ts, 'tablet-b');
  const down = await b.get(DICT, 1000);
  assert.equal(down.cases.length, all);
  assert.equal(new Set(down.cases.map((c) => c.id)).size, all);
  assert.ok(down.pages.length >= 5, `${down.pages.length} pages`);
  assert.deepEqual(
    down.pages.map((p) => p.status),
    [...Array(down.pages.length - 1).fill(206), 200],
  );
  let remaining = all;
  for (const p of down.pages) {
    const [sent, rest] = p.range.split('/').map(Number);
    assert.equal(rest, remaining, p.range);
    remaining -= sent!;
  }
  assert.equal(remaining, 0);
  assert.equal(b.lastRevision, Math.max(...down.pages.map((p) => p.revision)));
  // Nothing new: the next download is one empty 200.
  const again = await b.get(DICT, 1000);
  assert.deepEqual(
    again.pages.map((p) => p.status),
    [200],
  );
  assert.equal(again.cases.length, 0);

  // Deleting the case whose label is over the limit leaves a tombstone without that label.
  const over = big.at(-1)!;
  const del = await ts.call('api', `/api/dictionaries/${DICT}/cases/${over.guid}`, { method: 'DELETE' });
  assert.equal(del.status, 200);
  const tomb = (await ts.store.cases.get(dict.id, over.guid))!;
  assert.equal(tomb.deleted, true);
  assert.equal(tomb.label, '');
  assert.equal(tomb.data, over.data, 'a level-1 within its limit is kept');
  const gone = await b.get(DICT, 1000);
  assert.deepEqual(
    gone.cases.map((c) => [c.id, c.deleted, c.label]),
    [[over.guid, true, '']],
  );

  // A tombstone stored before the limits, with its oversize label, sheds it when deleted again.
  const old = { ...template, guid: randomUUID(), caseKey: '8', label: 'T'.repeat(DEFAULT_LIMITS.labelChars + 1), deleted: true };
  await ts.store.transaction(async (tx) => tx.cases.upsert(dict.id, old, await tx.cases.nextRevision(dict.id, 'test')));
  const again2 = await ts.call('api', `/api/dictionaries/${DICT}/cases/${old.guid}`, { method: 'DELETE' });
  assert.equal(again2.status, 200);
  assert.equal((await ts.store.cases.get(dict.id, old.guid))!.label, '');
  const before = (await ts.store.cases.get(dict.id, old.guid))!.revision;
  assert.equal((await ts.call('api', `/api/dictionaries/${DICT}/cases/${old.guid}`, { method: 'DELETE' })).status, 200);
  assert.equal((await ts.store.cases.get(dict.id, old.guid))!.revision, before, 'deleting a clean tombstone again changes nothing');
});

test('sync limits: config.json limits apply to the server; a bad value stops the start with CONFIG_INVALID', async (t) => {
  const ts = await startTestServer({
    seed: async (store) => {
      writeHomeConfig(store.home, { limits: { label_chars: 10 } });
      const file = fixture('popstan-census.json.dcf');
      await uploadDictionary(store, { source: readFileSync(file), label: 'popstan', file });
    },
  });
  t.after(() => ts.close());
  const [c] = popstanCases(1, 'tablet-a');
  const r = await new SyncDevice(ts, 'tablet-a').put(DICT, [{ ...c!, label: 'eleven char' }]);
  assert.equal(r.status, 413);
  assert.deepEqual(((await r.json()) as LimitBody).details, { case: c!.caseids, id: c!.id, index: 0, field: 'label', limit: 10 });

  await assert.rejects(
    startTestServer({
      seed: (store) => writeHomeConfig(store.home, { limits: { page_bytes: 'big' } }),
    }),
    (e: unknown) => e instanceof Error && 'code' in e && e.code === 'CONFIG_INVALID' && /limits\.page_bytes/.test(e.message),
  );
});
