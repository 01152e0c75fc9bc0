/**
 * JSON read from a request header gets the nesting check of bodies (`json_depth`, docs/limits.md),
 * against the real server on loopback: `x-csw-cases-options` of about 5,000 and 4,000 nested
 * brackets (once a 500 from a stack overflow) is 400 JSON_TOO_DEEP, as is one level past the
 * limit; the limit is the configured one; and a cache header nested past it is ignored like any
 * other unreadable cache header (docs/sync.md#cached-cases).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { seedEmptyDictionary, startTestServer, type TestServer } from '../../helpers/http-server.js';
import { SyncDevice } from '../../helpers/sync-client.js';

const DICT = 'SIMPLECAPI_DICT';

/** `{"content": [[…]]}` with `n` nested arrays: the header's depth is n + 1. */
const deepOptions = (n: number) => `{"content":${'['.repeat(n)}${']'.repeat(n)}}`;

async function query(ts: TestServer, options: string, extra: Record<string, string> = {}) {
  const r = await ts.call('standard', `/api/dictionaries/${DICT}/cases`, { headers: { 'x-csw-cases-options': options, ...extra } });
  return { status: r.status, body: (await r.json()) as { error?: string; message?: string } & Record<string, unknown> };
}

test('x-csw-cases-options nested past json_depth: 400 JSON_TOO_DEEP, never a 500, with the limit configured', async (t) => {
  const ts = await startTestServer({ seed: (store) => void seedEmptyDictionary(store) });
  t.after(() => ts.close());
  for (const n of [5000, 4000, 64]) {
    const r = await query(ts, deepOptions(n));
    assert.equal(r.status, 400, `${n}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error, 'JSON_TOO_DEEP', `${n}`);
    assert.match(r.body.message!, /^header x-csw-cases-options nests arrays and objects deeper than the limit of 64 \(at character 74\)/);
  }
  // At the limit it is parsed, and refused for what it says.
  const at = await query(ts, deepOptions(63));
  assert.equal(at.status, 400);
  assert.equal(at.body.error, 'CASES_OPTIONS_INVALID');
  assert.match(at.body.message!, /content is \[\[\[/);
  assert.deepEqual(
    ts.logs.filter((l) => /internal error/.test(l)),
    [],
  );

  // A limit set high lets a deep header through to the checks of its keys: still a 400.
  const high = await startTestServer({ config: { limits: { jsonDepth: 10_000 } }, seed: (store) => void seedEmptyDictionary(store) });
  t.after(() => high.close());
  for (const n of [7000, 4000]) {
    const r = await query(high, deepOptions(n));
    assert.equal(r.status, 400, `${n}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error, 'CASES_OPTIONS_INVALID', `${n}`);
  }
  assert.deepEqual(
    high.logs.filter((l) => /internal error/.test(l)),
    [],
  );
});

test('x-csw-cases-cache nested past json_depth is ignored: the reply is whole', async (t) => {
  const ts = await startTestServer({ seed: (store) => void seedEmptyDictionary(store) });
  t.after(() => ts.close());
  const guid = randomUUID();
  const up = await new SyncDevice(ts, 'tablet-a').put(DICT, [
    {
      id: guid,
      caseids: '001001',
      clock: [{ deviceId: 'tablet-a', revision: 1 }],
      'level-1': JSON.stringify({ id: { CLUSTER: 1, HHNO: 1 } }),
    },
  ]);
  assert.equal(up.status, 200, await up.text());
  const cache = (extra: unknown) =>
    deflateSync(Buffer.from(JSON.stringify({ exclude: { serverRevision: 1_000_000, positions: [1] }, ...(extra as object) }))).toString(
      'base64',
    );
  const options = JSON.stringify({ content: 'cases', status: 'all' });

  // The client's own header: the cached case comes as `{}`.
  const cached = await query(ts, options, { 'x-csw-cases-cache': cache({}) });
  assert.equal(cached.status, 200, JSON.stringify(cached.body));
  assert.deepEqual(cached.body.cases, [{}]);
  // The same with a member nested 64 deep (65 with the object around it): not parsed, so the case comes whole.
  const deep = JSON.parse(`{"x":${'['.repeat(64)}${']'.repeat(64)}}`) as unknown;
  const whole = await query(ts, options, { 'x-csw-cases-cache': cache(deep) });
  assert.equal(whole.status, 200, JSON.stringify(whole.body));
  assert.equal((whole.body.cases as { uuid: string }[])[0]!.uuid, guid);
  // One level less is read as before.
  const shallow = JSON.parse(`{"x":${'['.repeat(63)}${']'.repeat(63)}}`) as unknown;
  assert.deepEqual((await query(ts, options, { 'x-csw-cases-cache': cache(shallow) })).body.cases, [{}]);
});
