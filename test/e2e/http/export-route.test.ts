/**
 * `GET /api/dictionaries/{name}/export` over a real `sds serve` (docs/export.md#over-http): one
 * table asked is that CSV file, byte for byte what `sds export` writes; none asked is a zip that
 * Python's zipfile reads, holding every table and the codebook; the roles and error codes.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { python } from '../../helpers/export-readback.js';

const PASSWORD = 'correct horse battery staple';
const home = await tempHome();
let s: ServeProcess;
const tokens: Record<string, string> = {};

before(async () => {
  for (const [user, role] of [
    ['api', 'API'],
    ['field', 'Standard User'],
  ]) {
    const add = runCli(home.root, ['users', 'add', user!, '--role', role!, '--password-stdin'], { stdin: PASSWORD + '\n' });
    assert.equal(add.code, 0, show(add));
  }
  for (const args of [
    ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan'],
    ['cases', 'import', 'CEN2000', fixture('popstan-census.dat'), '-q'],
    ['export', 'CEN2000', '--format', 'csv', '--out', join(home.root, 'cli-export')],
    ['export', 'CEN2000', '--format', 'csv', '--out', join(home.root, 'cli-export-both'), '--labels', 'both', '--record', 'PERSON'],
  ]) {
    const r = await sds(home.root, args);
    assert.equal(r.code, 0, show(r));
  }
  s = await startServe(home.root);
  for (const user of ['api', 'field']) {
    const r = await fetch(`${s.url}/api/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', username: user, password: PASSWORD }).toString(),
    });
    assert.equal(r.status, 200, await r.clone().text());
    tokens[user] = ((await r.json()) as { access_token: string }).access_token;
  }
});
after(async () => {
  await s?.stop();
  await home.cleanup();
});

const get = (path: string, user = 'api') => fetch(`${s.url}${path}`, { headers: { Authorization: `Bearer ${tokens[user]}` } });

test('one table asked: that CSV file, streamed as an attachment, the same bytes as sds export', async () => {
  const r = await get('/api/dictionaries/CEN2000/export?format=csv&record=PERSON');
  assert.equal(r.status, 200, await r.clone().text());
  assert.match(r.headers.get('content-type')!, /^text\/csv/);
  assert.match(r.headers.get('content-disposition')!, /attachment; filename="popstan_person\.csv"/);
  const body = Buffer.from(await r.arrayBuffer());
  assert.ok(body.equals(readFileSync(join(home.root, 'cli-export', 'popstan_person.csv'))), 'same bytes as the CLI export');
});

test('labels=both: the CSV table with a label column after each coded one, as sds export --labels both writes it', async () => {
  const r = await get('/api/dictionaries/CEN2000/export?format=csv&record=PERSON&labels=both');
  assert.equal(r.status, 200, await r.clone().text());
  const body = Buffer.from(await r.arrayBuffer());
  assert.ok(body.equals(readFileSync(join(home.root, 'cli-export-both', 'popstan_person.csv'))), 'same bytes as the CLI export');
  const file = join(home.root, 'person-both.csv');
  writeFileSync(file, body);
  const read = python<{ columns: string[]; sex: [string, string][] }>(
    `import json, sys
import pandas as pd
df = pd.read_csv(sys.argv[1], dtype=str, keep_default_na=False)
print(json.dumps({'columns': list(df.columns), 'sex': sorted(set(zip(df['p03_sex'], df['p03_sex_label'])))}))`,
    [file],
  );
  const at = read.columns.indexOf('p03_sex');
  assert.equal(read.columns[at + 1], 'p03_sex_label');
  assert.equal(read.columns[read.columns.indexOf('province') + 1], 'province_label', 'id items too');
  assert.deepEqual(read.sex, [
    ['1', 'Male'],
    ['2', 'Female'],
  ]);
  const doc = (await (await get('/api/openapi.json')).json()) as {
    paths: Record<string, { get: { parameters: { name: string; schema: { enum?: string[] } }[] } }>;
  };
  const labels = doc.paths['/api/dictionaries/{name}/export']!.get.parameters.find((p) => p.name === 'labels')!;
  assert.deepEqual(labels.schema.enum, ['codes', 'labels', 'both']);
});

test('no table named: a zip of every table and the codebook, read back with Python zipfile', async () => {
  const r = await get('/api/dictionaries/CEN2000/export?format=csv');
  assert.equal(r.status, 200, await r.clone().text());
  assert.equal(r.headers.get('content-type'), 'application/zip');
  assert.match(r.headers.get('content-disposition')!, /filename="popstan_csv\.zip"/);
  const zipFile = join(home.root, 'download.zip');
  writeFileSync(zipFile, Buffer.from(await r.arrayBuffer()));
  const entries = python<Record<string, string>>(
    `import zipfile, json, sys, hashlib
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
print(json.dumps({n: hashlib.sha256(z.read(n)).hexdigest() for n in z.namelist()}))`,
    [zipFile],
  );
  assert.deepEqual(Object.keys(entries).sort(), [
    'codebook.csv',
    'popstan_cases.csv',
    'popstan_housing.csv',
    'popstan_notes.csv',
    'popstan_person.csv',
  ]);
  const { createHash } = await import('node:crypto');
  const sha = (f: string) =>
    createHash('sha256')
      .update(readFileSync(join(home.root, 'cli-export', f)))
      .digest('hex');
  // The cases table carries the time of each export (breakout_time); every other file is the same.
  for (const f of ['codebook.csv', 'popstan_housing.csv', 'popstan_notes.csv', 'popstan_person.csv']) assert.equal(entries[f], sha(f), f);
});

test('two tables named with record: a zip of those two and the codebook', async () => {
  const r = await get('/api/dictionaries/CEN2000/export?format=csv&record=cases&record=HOUSING');
  assert.equal(r.status, 200, await r.clone().text());
  const zipFile = join(home.root, 'two.zip');
  writeFileSync(zipFile, Buffer.from(await r.arrayBuffer()));
  const names = python<string[]>(`import zipfile, json, sys\nprint(json.dumps(zipfile.ZipFile(sys.argv[1]).namelist()))`, [zipFile]);
  assert.deepEqual(names, ['popstan_cases.csv', 'popstan_housing.csv', 'codebook.csv']);
});

test('errors: unknown format, dictionary, record; a Standard account is refused', async () => {
  const fmt = await get('/api/dictionaries/CEN2000/export?format=sas');
  assert.equal(fmt.status, 400);
  assert.equal(((await fmt.json()) as { error: string }).error, 'EXPORT_FORMAT_UNKNOWN');
  const dict = await get('/api/dictionaries/NOPE/export?format=csv');
  assert.equal(dict.status, 404);
  assert.equal(((await dict.json()) as { error: string }).error, 'DICTIONARY_NOT_FOUND');
  const rec = await get('/api/dictionaries/CEN2000/export?format=csv&record=NOPE');
  assert.equal(rec.status, 404);
  assert.equal(((await rec.json()) as { error: string }).error, 'EXPORT_RECORD_UNKNOWN');
  const field = await get('/api/dictionaries/CEN2000/export?format=csv', 'field');
  assert.equal(field.status, 403);
});
