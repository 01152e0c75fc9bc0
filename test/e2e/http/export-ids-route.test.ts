/**
 * `GET /api/dictionaries/{name}/export` with and without `ids` (docs/export.md#id-items) over a
 * real `sds serve`: a record table holds the id items of its case and household after `case_id`,
 * rows in case-key order; `ids=false` gives the breakout's columns; another value is a 400.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runCli, runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { writeDat } from '../../helpers/breakout-helpers.js';
import { readCsvFiles } from '../../helpers/export-readback.js';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';

const PASSWORD = 'correct horse battery staple';
const home = await tempHome();
let s: ServeProcess;
let token = '';

// Two buildings (cases), listed out of key order; one household each, persons 1 and 2.
const DAT = ['020101001002', '010203004005'].flatMap((ids) => [
  `1${ids}   21002`,
  `2${ids}003121`,
  `3${ids}003011030 `,
  `3${ids}003022031 `,
]);

before(async () => {
  const add = runCli(home.root, ['users', 'add', 'api', '--role', 'API', '--password-stdin'], { stdin: PASSWORD + '\n' });
  assert.equal(add.code, 0, show(add));
  for (const args of [
    ['dict', 'upload', fixture('two-level.text.dcf'), '--label', 'tl'],
    ['cases', 'import', 'TWO_LEVEL_DICT', writeDat(home.root, 'two.dat', DAT), '-q'],
  ]) {
    const r = await sds(home.root, args);
    assert.equal(r.code, 0, show(r));
  }
  s = await startServe(home.root);
  const r = await fetch(`${s.url}/api/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username: 'api', password: PASSWORD }).toString(),
  });
  assert.equal(r.status, 200, await r.clone().text());
  token = ((await r.json()) as { access_token: string }).access_token;
});
after(async () => {
  await s?.stop();
  await home.cleanup();
});

const get = (path: string) => fetch(`${s.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });

/** The CSV body, read by Python's csv module. */
async function csvOf(r: Response): Promise<string[][]> {
  const file = join(home.root, `body-${Math.random().toString(36).slice(2)}.csv`);
  writeFileSync(file, Buffer.from(await r.arrayBuffer()));
  return readCsvFiles([file])[file]!;
}

test('a record table carries the ids of its case and level node, in case-key order', async () => {
  const r = await get('/api/dictionaries/TWO_LEVEL_DICT/export?format=csv&record=POP_RECC');
  assert.equal(r.status, 200, await r.clone().text());
  const [header, ...rows] = await csvOf(r);
  assert.deepEqual(header!.slice(0, 10), [
    'case_id',
    'prov',
    'dist',
    'village',
    'ea',
    'build',
    'house_number',
    'level_2_occ',
    'occ',
    'line',
  ]);
  assert.deepEqual(
    rows.map((x) => x.slice(1, 10)),
    [
      ['1', '2', '3', '4', '5', '3', '1', '1', '1'],
      ['1', '2', '3', '4', '5', '3', '1', '2', '2'],
      ['2', '1', '1', '1', '2', '3', '1', '1', '1'],
      ['2', '1', '1', '1', '2', '3', '1', '2', '2'],
    ],
  );
});

test('ids=false: the breakout columns only; ids=maybe is a 400 USAGE', async () => {
  const r = await get('/api/dictionaries/TWO_LEVEL_DICT/export?format=csv&record=POP_RECC&ids=false');
  assert.equal(r.status, 200, await r.clone().text());
  const [header] = await csvOf(r);
  assert.deepEqual(header!.slice(0, 4), ['case_id', 'level_2_occ', 'occ', 'line']);
  const bad = await get('/api/dictionaries/TWO_LEVEL_DICT/export?format=csv&record=POP_RECC&ids=maybe');
  assert.equal(bad.status, 400);
  assert.equal(((await bad.json()) as { error: string }).error, 'USAGE');
});
