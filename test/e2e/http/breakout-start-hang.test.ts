/**
 * POST /api/breakout/start against a target that accepts connections and never answers, over a
 * real loopback server: the start's target check is bounded by SDS_BREAKOUT_CHECK_CONNECT_TIMEOUT_MS
 * (docs/breakout.md), so the 202 comes promptly and the job ends failed with DB_CONNECTION_ERROR.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BreakoutStartReply, JobStatus } from '../../../src/http/schemas/breakout.js';
import { ErrorBody } from '../../../src/http/schemas/common.js';
import { setTarget } from '../../../src/core/breakout/targets/targets.js';
import { seedEmptyDictionary, startTestServer, type TestServer } from '../../helpers/http-server.js';
import { silentServer } from '../../integration/dialects/fake-servers.js';

let s: TestServer;
let hang: Awaited<ReturnType<typeof silentServer>>;
let dict: string;
/** The injected check timeout; the dialects' own connect timeout is 15 s. */
const CHECK_MS = 400;

before(async () => {
  delete process.env.BREAKOUT_DB_TYPE;
  delete process.env.BREAKOUT_DB_URL;
  hang = await silentServer();
  s = await startTestServer({
    config: { env: { SDS_BREAKOUT_CHECK_CONNECT_TIMEOUT_MS: String(CHECK_MS) } },
    seed: async (store) => {
      dict = await seedEmptyDictionary(store);
      await setTarget(store, dict, { type: 'postgresql', url: `postgresql://postgres@127.0.0.1:${hang.port}/hangs` });
    },
  });
});
after(async () => {
  await s.close();
  await hang.close();
});

const start = (b: unknown) =>
  s.call('admin', '/api/breakout/start', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });

test('a start against a target that never answers gets its 202 within the check timeout; the job fails with DB_CONNECTION_ERROR', async () => {
  const t0 = performance.now();
  const r = await start({ dictionaries: [dict] });
  const elapsed = performance.now() - t0;
  const text = await r.text();
  assert.equal(r.status, 202, text);
  const started = BreakoutStartReply.parse(JSON.parse(text));
  // Bounded by the injected 400 ms check, not by the dialect's 15 s connect timeout.
  assert.ok(elapsed >= CHECK_MS * 0.9 && elapsed < 5000, `202 after ${Math.round(elapsed)} ms`);
  const st = JobStatus.parse(await (await s.call('admin', `/api/breakout/status/${started.job_id}`)).json());
  assert.equal(st.status, 'failed');
  if (st.status !== 'failed') return;
  assert.equal(st.error.code, 'DB_CONNECTION_ERROR');
  const details = JSON.parse(st.error.details);
  assert.equal(details.target, `127.0.0.1:${hang.port}/hangs`);
  assert.match(st.error.message, /timeout|timed out/i, st.error.message);
});

test('a check timeout that is not a whole number of milliseconds is refused (CONFIG_INVALID), never replaced by the default', async () => {
  const bad = await startTestServer({
    config: { env: { SDS_BREAKOUT_CHECK_CONNECT_TIMEOUT_MS: '3s' } },
    seed: async (store) => void (await seedEmptyDictionary(store)),
  });
  try {
    const name = (await bad.store.dictionaries.list())[0]!.name;
    const r = await bad.call('admin', '/api/breakout/start', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ dictionaries: [name] }),
    });
    const e = ErrorBody.parse(await r.json());
    assert.equal(r.status, 500);
    assert.equal(e.error, 'CONFIG_INVALID');
    assert.match(e.message, /SDS_BREAKOUT_CHECK_CONNECT_TIMEOUT_MS must be a whole number/);
  } finally {
    await bad.close();
  }
});
