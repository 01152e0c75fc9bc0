/**
 * `GET /api/dictionaries/{name}/export?format=xlsx` over a real `sds serve` (docs/export.md#over-http):
 * one workbook whatever the tables asked, with the media type the OpenAPI document declares; its
 * sheets as `sds export --format xlsx` writes them (the person sheet byte for byte); only the
 * tables asked with `record`; and, on a server whose sheets hold fewer rows than the census has,
 * 400 EXPORT_XLSX_TOO_MANY_ROWS before any byte of a workbook.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { python } from '../../helpers/export-readback.js';
import { xlsxSheetRows } from '../../helpers/read-xlsx.js';

const MEDIA = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const PASSWORD = 'correct horse battery staple';
const home = await tempHome();
let s: ServeProcess;
let small: ServeProcess;
let token = '';

async function login(server: ServeProcess): Promise<string> {
  const r = await fetch(`${server.url}/api/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username: 'api', password: PASSWORD }).toString(),
  });
  assert.equal(r.status, 200, await r.clone().text());
  return ((await r.json()) as { access_token: string }).access_token;
}

before(async () => {
  const add = runCli(home.root, ['users', 'add', 'api', '--role', 'API', '--password-stdin'], { stdin: PASSWORD + '\n' });
  assert.equal(add.code, 0, show(add));
  for (const args of [
    ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan'],
    ['cases', 'import', 'CEN2000', fixture('popstan-census.dat'), '-q'],
    ['export', 'CEN2000', '--format', 'xlsx', '--out', join(home.root, 'cli-export')],
  ]) {
    const r = await sds(home.root, args);
    assert.equal(r.code, 0, show(r));
  }
  s = await startServe(home.root);
  token = await login(s);
  // A second server on the same home whose sheets hold 1,000 rows, header included.
  small = await startServe(home.root, { SDS_LIMIT_EXPORT_XLSX_ROWS: '1000' });
});
after(async () => {
  await s?.stop();
  await small?.stop();
  await home.cleanup();
});

const get = (server: ServeProcess, path: string) => fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });

let cached: [string, number][] | undefined;
/** The sheets of the CLI's workbook and their rows (read once). */
const cliRows = () => (cached ??= xlsxSheetRows(join(home.root, 'cli-export', 'popstan.xlsx')));

/** The SHA-256 of each entry of a zip (an xlsx is one), read by Python's zipfile. */
const entries = (file: string) =>
  python<Record<string, string>>(
    `import zipfile, json, sys, hashlib
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
print(json.dumps({n: hashlib.sha256(z.read(n)).hexdigest() for n in z.namelist()}))`,
    [file],
  );

test('format=xlsx: one workbook as an attachment, its media type in the OpenAPI document', async () => {
  const r = await get(s, '/api/dictionaries/CEN2000/export?format=xlsx');
  assert.equal(r.status, 200, await r.clone().text());
  assert.equal(r.headers.get('content-type'), MEDIA);
  assert.match(r.headers.get('content-disposition')!, /attachment; filename="popstan\.xlsx"/);
  const file = join(home.root, 'download.xlsx');
  writeFileSync(file, Buffer.from(await r.arrayBuffer()));
  const cli = join(home.root, 'cli-export', 'popstan.xlsx');
  const got = xlsxSheetRows(file);
  assert.deepEqual(got, cliRows());
  assert.deepEqual(
    got.map(([n]) => n),
    ['popstan_cases', 'popstan_person', 'popstan_housing', 'popstan_notes', 'codebook'],
  );
  // Sheet 2 (persons) holds no time of the export: the same bytes as the CLI's.
  const a = entries(file);
  const b = entries(cli);
  assert.equal(a['xl/worksheets/sheet2.xml'], b['xl/worksheets/sheet2.xml']);

  const doc = (await (await fetch(`${s.url}/api/openapi.json`)).json()) as {
    paths: Record<string, { get: { responses: Record<string, { content: Record<string, unknown> }> } }>;
  };
  assert.ok(MEDIA in doc.paths['/api/dictionaries/{name}/export']!.get.responses['200']!.content);
});

test('record=PERSON: a workbook of that sheet and the codebook', async () => {
  const r = await get(s, '/api/dictionaries/CEN2000/export?format=xlsx&record=PERSON&labels=labels');
  assert.equal(r.status, 200, await r.clone().text());
  assert.equal(r.headers.get('content-type'), MEDIA);
  const file = join(home.root, 'person.xlsx');
  writeFileSync(file, Buffer.from(await r.arrayBuffer()));
  const sheets = xlsxSheetRows(file);
  assert.deepEqual(
    sheets.map(([n]) => n),
    ['popstan_person', 'codebook'],
  );
  assert.equal(sheets[0]![1], new Map(cliRows()).get('popstan_person'));
});

test('a table past the rows of a sheet: 400 EXPORT_XLSX_TOO_MANY_ROWS, no workbook', async () => {
  const r = await get(small, '/api/dictionaries/CEN2000/export?format=xlsx');
  assert.equal(r.status, 400);
  assert.match(r.headers.get('content-type')!, /^application\/json/);
  const body = (await r.json()) as { error: string; message: string };
  assert.equal(body.error, 'EXPORT_XLSX_TOO_MANY_ROWS');
  assert.match(body.message, /CSV, Parquet, Stata or SPSS/);
  assert.doesNotMatch(body.message, /--format/, 'no CLI flag over HTTP');
  const one = await get(small, '/api/dictionaries/CEN2000/export?format=csv&record=PERSON');
  assert.equal(one.status, 200, 'CSV holds it');
  await one.arrayBuffer();
});
