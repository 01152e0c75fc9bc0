/**
 * Core speaks in domain words (docs/decisions.md, "Core speaks in domain words"): the replies an
 * HTTP client gets name no CLI flag (`--url`) and no `sds …` command, while the CLI, given the
 * same failure, still says which command or flag fixes it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setTarget } from '../../../src/core/breakout/index.js';
import { seedEmptyDictionary, seedPopstan, startTestServer, type TestServer } from '../../helpers/http-server.js';
import { runCliAsync, show } from '../../helpers/run-cli.js';

const TOKEN = 'survey-token-0123456789abcdef0123456789abcdef';
let s: TestServer;
let popstan: string;
let simple: string;

before(async () => {
  delete process.env.BREAKOUT_DB_TYPE;
  delete process.env.BREAKOUT_DB_URL;
  s = await startTestServer({
    config: { env: { SURVEY_WEBHOOK_TOKEN: TOKEN } },
    seed: async (store) => {
      popstan = await seedPopstan(store);
      simple = await seedEmptyDictionary(store);
      await setTarget(store, simple, { type: 'sqlite', file: join(store.home.targets, 'simple.sqlite') });
    },
  });
});
after(() => s.close());

const CLI_WORDING = /(^|[\s(:])--[a-z]|\bsds [a-z]/;
const post = (b: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });

/** Every string of a reply body, flattened (message, suggestion, …). */
const strings = (v: unknown): string[] =>
  typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap(strings) : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : [];

async function httpError(r: Response, status: number, code: string): Promise<Record<string, unknown>> {
  const body = (await r.json()) as Record<string, unknown>;
  assert.equal(r.status, status, JSON.stringify(body));
  assert.equal(body.error, code, JSON.stringify(body));
  for (const text of strings(body)) assert.doesNotMatch(text, CLI_WORDING, `${code}: ${JSON.stringify(body)}`);
  return body;
}

test('HTTP error replies name no CLI flag or command; the CLI adds them to the same failures', async () => {
  // No target: the reply says so; the CLI says how to set one.
  const noTarget = await httpError(await s.call('admin', '/scheduler/add', post({ dictionary: popstan })), 409, 'TARGET_NOT_CONFIGURED');
  assert.match(String(noTarget.message), /has no breakout target; set one first$/);
  const cliNoTarget = await runCliAsync(s.store.home.root, ['schedule', 'add', popstan]);
  assert.equal(cliNoTarget.code, 4, show(cliNoTarget));
  assert.match(cliNoTarget.stderr, new RegExp(`set one first: sds target set ${popstan} --type \\.\\.\\.`));

  // A second schedule: the reply says there is one; the CLI says which command changes it.
  await s.call('admin', '/scheduler/add', post({ dictionary: simple }));
  await httpError(await s.call('admin', '/scheduler/add', post({ dictionary: simple })), 409, 'SCHEDULE_EXISTS');
  const cliExists = await runCliAsync(s.store.home.root, ['--json', 'schedule', 'add', simple]);
  assert.equal(cliExists.code, 4, show(cliExists));
  assert.match((cliExists.json() as { message: string }).message, new RegExp(`change it with: sds schedule update ${simple}$`));

  // No schedule for a dictionary: only the CLI looks one up by name, and says how to add one.
  const cliNoSchedule = await runCliAsync(s.store.home.root, ['schedule', 'runs', popstan]);
  assert.equal(cliNoSchedule.code, 3, show(cliNoSchedule));
  assert.match(cliNoSchedule.stderr, new RegExp(`has no schedule; add one with: sds schedule add ${popstan}`));

  // No breakout tables: the API suggests its route, the CLI its command.
  const none = await httpError(await s.call('admin', `/api/breakout/tables/${simple}`), 404, 'NOT_FOUND');
  assert.match(String(none.suggestion), /POST \/api\/breakout\/start/);
  const cliNone = await runCliAsync(s.store.home.root, ['breakout', 'tables', simple]);
  assert.equal(cliNone.code, 3, show(cliNone));
  assert.match(cliNone.stderr, new RegExp(`sds breakout start ${simple}`));
});

test('the incoming-event reply for a dictionary without a target names no CLI command', async () => {
  const r = await fetch(`${s.base}/breakout-webhook.php`, {
    ...post({ event: 'case_uploaded', dictionary: popstan }),
    headers: { 'content-type': 'application/json', 'x-webhook-token': TOKEN },
  });
  const body = (await r.json()) as { status: string; message: string };
  assert.equal(r.status, 200, JSON.stringify(body));
  assert.equal(body.status, 'accepted');
  assert.match(body.message, /not configured/);
  assert.doesNotMatch(body.message, CLI_WORDING, body.message);
});
