import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { runCli, show } from '../../helpers/run-cli.js';
import { tempStore } from '../../helpers/temp-home.js';
import { seedEmptyDictionary, seedPopstan } from '../../helpers/http-server.js';
import { setTarget } from '../../../src/core/breakout/targets/targets.js';
import { runBreakoutNow } from '../../../src/core/breakout/jobs/jobs.js';

let home: Awaited<ReturnType<typeof tempStore>>;
let popstan: string;
let simple: string;
let targetFile: string;

before(async () => {
  delete process.env.BREAKOUT_DB_TYPE;
  delete process.env.BREAKOUT_DB_URL;
  home = await tempStore();
  popstan = await seedPopstan(home.store);
  simple = await seedEmptyDictionary(home.store);
  targetFile = join(home.home.root, 'target.sqlite');
  await setTarget(home.store, popstan, { type: 'sqlite', file: targetFile });
  await runBreakoutNow(home.store, { dictionary: popstan });
  const id = (await home.store.dictionaries.find(popstan))!.id;
  await home.store.schedules.insert(
    { dictionaryId: id, enabled: true, cronExpression: '15 3 * * *', nextRun: '2025-02-01T03:15:00.000Z' },
    '2025-01-31T00:00:00.000Z',
  );
  await home.store.close();
});
after(() => home.cleanup());

const cli = (...args: string[]) => runCli(home.home.root, ['status', ...args], { env: { BREAKOUT_DB_TYPE: '', BREAKOUT_DB_URL: '' } });

test('sds status --json prints the status webhook envelope with the real target count', () => {
  const r = cli('--json');
  assert.equal(r.code, 0, show(r));
  const body = r.json();
  const db = new Database(targetFile, { readonly: true });
  const rows = (db.prepare('SELECT count(*) AS n FROM popstan_cases').get() as { n: number }).n;
  db.close();
  assert.equal(body.success, true);
  assert.equal(body.error, null);
  assert.deepEqual(body.meta, { total: 2, page: 1, pages: 1, limit: 20 });
  const p = body.data.find((d: { dictionary: string }) => d.dictionary === popstan);
  assert.equal(p.processed_cases, rows);
  assert.equal(p.total_cases, rows);
  assert.equal(p.is_up_to_date, true);
  assert.equal(p.db_type, 'sqlite');
  assert.equal(p.cron_enabled, true);
  assert.equal(p.next_run, '2025-02-01 03:15:00');
  assert.match(p.last_processed_time, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  const s = body.data.find((d: { dictionary: string }) => d.dictionary === simple);
  assert.equal(s.breakout_configured, false);
  assert.equal(s.processed_cases, null);
});

test('sds status filters and paging match the webhook parameters', () => {
  const names = (...args: string[]) => {
    const r = cli('--json', ...args);
    assert.equal(r.code, 0, show(r));
    return r.json().data.map((d: { dictionary: string }) => d.dictionary);
  };
  assert.deepEqual(names('--dictionary', simple), [simple]);
  assert.deepEqual(names('--dictionaries', `${simple},${popstan}`), [popstan, simple].sort());
  assert.deepEqual(names('--cron-enabled'), [popstan]);
  assert.deepEqual(names('--cron-enabled', 'false'), [simple]);
  assert.deepEqual(names('--breakout-configured'), [popstan]);
  const page2 = cli('--json', '--limit', '1', '--page', '2').json();
  assert.deepEqual(page2.meta, { total: 2, page: 2, pages: 2, limit: 1 });
});

test('sds status: a human table, and bad values exit 2 with invalid_parameter', () => {
  const r = cli();
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout, new RegExp(popstan));
  assert.match(r.stdout, /page 1 of 1, 2 dictionaries/);
  const bad = cli('--json', '--limit', '101');
  assert.equal(bad.code, 2, show(bad));
  assert.deepEqual(bad.json(), {
    success: false,
    data: null,
    error: { code: 'invalid_parameter', message: 'limit must be a whole number from 1 to 100; got "101"' },
  });
  const human = cli('--cron-enabled', 'maybe');
  assert.equal(human.code, 2);
  assert.match(human.stderr, /invalid_parameter: cron_enabled/);
});
