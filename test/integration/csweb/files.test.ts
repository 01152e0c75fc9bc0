/**
 * Importing CSWeb's synced files and application packages (docs/migrating-from-csweb.md#files-and-app-packages):
 * a real MariaDB database with CSWeb's cspro_apps table and a real files folder laid out as CSWeb
 * lays it out, imported into a real home, then read back through the sync routes of the real
 * server as the data-collection client reads them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { importCswebFiles, type CswebFilesResult } from '../../../src/core/csweb/index.js';
import { storeSql, tempStore } from '../../helpers/temp-home.js';
import { startTestServer, type TestServer } from '../../helpers/http-server.js';
import { createCswebSource, md5, randomContent, zipOf, type CswebSource } from '../../helpers/csweb-files-fixture.js';
import { pendingUploads, putByHand, storedNames } from '../../helpers/stored-files.js';

const MARCH = new Date(Date.UTC(2024, 2, 1, 8, 15, 42));
const APRIL = new Date(Date.UTC(2024, 3, 2, 11, 0, 7));

const PACKAGE_JSON = JSON.stringify({ name: 'Census', buildTime: '2024-03-18T10:20:30Z', files: [{ path: 'census.pen' }] });
const ZIP = zipOf({ 'package.json': PACKAGE_JSON, 'census.pen': Buffer.from('pen bytes \u0001\u0002') });
const BIG = randomContent(3 * 1024 * 1024 + 17);

/** The synced files that sds can hold, by path, with their bytes. */
const SYNCED: Record<string, Buffer> = {
  'lookup/regions.csv': Buffer.from('code,name\n1,North\n2,South\n'),
  'paradata/2024/03/tablet-a.log': Buffer.from('log line\n'),
  'empty.txt': Buffer.alloc(0),
  'big/photos.bin': BIG,
  // Names in the offices' languages (docs/sync.md#files, "File names").
  'données/énumération_1.csv': Buffer.from('id,région\n1,Île-de-France\n'),
  'بيانات.txt': Buffer.from('بيانات الأسرة\n'),
  'enquête/résumé.txt': Buffer.from('non-ASCII name'),
};

/** A name written in decomposed form (as macOS writes it): sds stores and serves it in NFC. */
const NFD_PATH = 'cafe\u0301/notes.txt';
const NFC_PATH = 'café/notes.txt';

let source: CswebSource;

before(async () => {
  source = await createCswebSource();
  for (const [path, bytes] of Object.entries(SYNCED)) source.write(path, bytes, MARCH);
  source.write(NFD_PATH, 'decomposed', MARCH);
  // A right-to-left override could make a name read otherwise than it is: still refused.
  source.write('report\u202Etxt.exe', 'disguised', MARCH);
  source.write('.htaccess', 'deny from all', MARCH);
  symlinkSync('lookup/regions.csv', join(source.filesDir, 'regions-link.csv'));
  source.write('apps/Census.zip', ZIP, APRIL);
  source.write('apps/Old.zip', zipOf({ 'package.json': '{}' }), APRIL);
  source.write(`apps/updates/${md5(PACKAGE_JSON)}/${md5('older')}.zip`, 'partial', APRIL);
  source.write(`binary-items/census/${md5('photo 1')}`, 'photo 1', APRIL);
  source.write(`binary-items/census/${md5('photo 2')}`, 'photo 2', APRIL);
  source.write(`binary-items/listing/${md5('sketch')}`, 'sketch', APRIL);
  await source.addApp({
    name: 'Census',
    description: 'Census 2025 (main questionnaire)',
    buildTime: '2024-03-18 10:20:30',
    path: 'apps/Census.zip',
    version: '1.2',
    files: '[{"path":"census.pen"}]',
    signature: md5(PACKAGE_JSON),
  });
  await source.addApp({
    name: 'Gone',
    description: '',
    buildTime: '2024-01-01 00:00:00',
    path: 'apps/Gone.zip',
    version: '',
    files: '[]',
    signature: md5('x'),
  });
});

after(async () => {
  await source.close();
});

const codes = (r: CswebFilesResult): string[] => r.report.map((e) => `${e.level} ${e.code} ${e.file ?? ''}`).sort();

const EXPECTED_REPORT = [
  'error CSWEB_APP_MISSING apps/Gone.zip',
  'error CSWEB_FILE_REFUSED .htaccess',
  'error CSWEB_FILE_REFUSED regions-link.csv',
  'error CSWEB_FILE_REFUSED report\u202Etxt.exe',
  'warn CSWEB_APP_UNLISTED apps/Old.zip',
  'warn CSWEB_APP_UPDATES_SKIPPED apps/updates',
];

const syncedBytes = Object.values(SYNCED).reduce((n, b) => n + b.length, 0) + 'decomposed'.length;
const SYNCED_COUNT = Object.keys(SYNCED).length + 1;

test('a dry run reports what would be copied and writes nothing', async () => {
  const t = await tempStore();
  try {
    const progress: { files: number; apps: number; bytes: number }[] = [];
    const r = await importCswebFiles(t.store, source.conn, source.filesDir, { dryRun: true, onProgress: (p) => progress.push(p) });
    assert.deepEqual(progress.at(-1), { files: SYNCED_COUNT, apps: 1, bytes: syncedBytes + ZIP.length });
    assert.equal(r.dryRun, true);
    assert.deepEqual(r.files, { copied: SYNCED_COUNT, unchanged: 0, refused: 3, bytes: syncedBytes });
    assert.deepEqual(r.apps, { copied: 1, unchanged: 0, refused: 1, bytes: ZIP.length });
    assert.equal(r.binaryItems, 3);
    assert.equal(r.appUpdates, 1);
    assert.deepEqual(codes(r), EXPECTED_REPORT);
    assert.deepEqual(await t.store.files.list(), []);
    assert.deepEqual(await storedNames(t.store, 'media'), []);
    assert.deepEqual(await storedNames(t.store, 'apps'), []);
    assert.deepEqual(await t.store.appPackages.list(), []);
  } finally {
    await t.cleanup();
  }
});

test('a missing files folder is refused with CSWEB_FILES_FOLDER_MISSING', async () => {
  const t = await tempStore();
  try {
    await assert.rejects(importCswebFiles(t.store, source.conn, join(source.filesDir, 'nope')), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'CSWEB_FILES_FOLDER_MISSING');
      assert.match(err.message, /nope/);
      return true;
    });
  } finally {
    await t.cleanup();
  }
});

test('files and packages come over with their paths, bytes, md5 and times; re-runs copy only changes', async () => {
  let first: CswebFilesResult | undefined;
  let ts: TestServer | undefined;
  try {
    ts = await startTestServer({
      seed: async (store) => {
        first = await importCswebFiles(store, source.conn, source.filesDir);
      },
    });
    assert.ok(first);
    assert.equal(first.dryRun, false);
    assert.deepEqual(first.files, { copied: SYNCED_COUNT, unchanged: 0, refused: 3, bytes: syncedBytes });
    assert.deepEqual(first.apps, { copied: 1, unchanged: 0, refused: 1, bytes: ZIP.length });
    assert.deepEqual(codes(first), EXPECTED_REPORT);
    // Binary items are copied with the cases that hold them (binary-items.test.ts), not by this walk.
    assert.equal(first.binaryItems, 3);
    assert.equal(
      first.report.some((e) => e.file?.startsWith('binary-items')),
      false,
    );
    const refused = first.report.find((e) => e.file === 'report\u202Etxt.exe')!;
    assert.match(refused.message, /not allowed/);

    // Every synced file, as the client downloads it: the same bytes, its md5 in ETag and Content-MD5.
    for (const [path, bytes] of Object.entries(SYNCED)) {
      const r = await ts.call('standard', `/api/files/${path.split('/').map(encodeURIComponent).join('/')}/content`);
      assert.equal(r.status, 200, path);
      const got = Buffer.from(await r.arrayBuffer());
      assert.ok(got.equals(bytes), `${path}: ${got.length} bytes, expected ${bytes.length}`);
      assert.equal(r.headers.get('etag'), md5(bytes), path);
      assert.equal(r.headers.get('content-md5'), md5(bytes), path);
    }
    // The decomposed name is stored composed; either form of the name reaches it.
    assert.ok(await ts.store.files.find(NFC_PATH));
    assert.equal(await ts.store.files.find(NFD_PATH), undefined);
    assert.deepEqual(await storedNames(ts.store, 'media', 'café'), ['notes.txt']);
    for (const name of [NFC_PATH, NFD_PATH]) {
      const r = await ts.call('standard', `/api/files/${name.split('/').map(encodeURIComponent).join('/')}/content`);
      assert.equal(r.status, 200, name);
      assert.equal(await r.text(), 'decomposed');
    }
    const arabic = (await (await ts.call('standard', '/api/folders')).json()) as { name: string; md5?: string }[];
    assert.equal(arabic.find((e) => e.name === 'بيانات.txt')?.md5, md5(SYNCED['بيانات.txt']!));
    const french = (await (await ts.call('standard', `/api/folders/${encodeURIComponent('données')}`)).json()) as Record<string, unknown>[];
    assert.deepEqual(
      french.map((e) => [e.name, e.directory]),
      [['énumération_1.csv', 'données']],
    );
    // The folder listing shows CSWeb's modification time, so the client sees the files as they were.
    const folder = (await (await ts.call('standard', '/api/folders/paradata/2024/03')).json()) as Record<string, unknown>[];
    assert.deepEqual(folder, [
      {
        type: 'file',
        name: 'tablet-a.log',
        directory: 'paradata/2024/03',
        md5: md5(SYNCED['paradata/2024/03/tablet-a.log']!),
        size: 9,
        lastModified: '2024-03-01T08:15:42Z',
      },
    ]);
    const root = (await (await ts.call('standard', '/api/folders')).json()) as { name: string }[];
    assert.deepEqual(
      root.map((e) => e.name).sort(),
      ['big', 'café', 'données', 'empty.txt', 'enquête', 'lookup', 'paradata', 'بيانات.txt'].sort(),
    );
    // Recorded as a field account's write: a Standard account may replace them, as on CSWeb (docs/sync.md).
    const row = (await ts.store.files.find('lookup/regions.csv'))!;
    assert.equal(row.writtenBy, 'csweb-import');
    assert.equal(row.office, false);
    assert.equal(row.contentType, 'text/csv');

    // The package, as CSEntry lists and downloads it: the description, version and build time of cspro_apps, the zip's bytes.
    const apps = (await (await ts.call('standard', '/api/apps')).json()) as Record<string, unknown>[];
    assert.deepEqual(apps, [
      {
        name: 'Census',
        description: 'Census 2025 (main questionnaire)',
        buildTime: '2024-03-18T10:20:30Z',
        version: '1.2',
        FileType: 'Application Deployment Specification',
      },
    ]);
    const kept = (await ts.store.appPackages.find('Census'))!;
    assert.equal(kept.files, '[{"path":"census.pen"}]');
    assert.equal(kept.signature, md5(PACKAGE_JSON));
    assert.equal(kept.zipMd5, md5(ZIP));
    // A tablet that synced with CSWeb sends CSWeb's signature: it has this package.
    const signed = await ts.call('standard', '/api/apps/Census', { headers: { 'if-none-match': md5(PACKAGE_JSON) } });
    assert.equal(signed.status, 304);
    const otherSigned = await ts.call('standard', '/api/apps/Census', { headers: { 'if-none-match': md5('another package.json') } });
    assert.equal(otherSigned.status, 200);
    await otherSigned.arrayBuffer();
    const app = await ts.call('standard', '/api/apps/Census');
    assert.equal(app.status, 200);
    assert.ok(Buffer.from(await app.arrayBuffer()).equals(ZIP));
    assert.equal(app.headers.get('etag'), md5(ZIP));
    const current = await ts.call('standard', '/api/apps/Census', { headers: { 'x-csw-package-build-time': '2024-03-18T10:20:30Z' } });
    assert.equal(current.status, 304);
    const older = await ts.call('standard', '/api/apps/Census', { headers: { 'x-csw-package-build-time': '2024-03-18T10:20:29Z' } });
    assert.equal(older.status, 200);
    await older.arrayBuffer();

    // A re-run copies nothing and changes nothing.
    const again = await importCswebFiles(ts.store, source.conn, source.filesDir);
    assert.deepEqual(again.files, { copied: 0, unchanged: SYNCED_COUNT, refused: 3, bytes: 0 });
    assert.deepEqual(again.apps, { copied: 0, unchanged: 1, refused: 1, bytes: 0 });
    assert.deepEqual(codes(again), EXPECTED_REPORT);
    assert.deepEqual(await ts.store.appPackages.find('Census'), kept, 'a re-run keeps the metadata as it was');
    // A home that imported before the metadata was kept (the zip there, no row) gets it at the next run, copying nothing.
    await storeSql(ts.store, 'DELETE FROM app_packages');
    assert.equal(((await (await ts.call('standard', '/api/apps')).json()) as { description: string }[])[0]!.description, '');
    const fill = await importCswebFiles(ts.store, source.conn, source.filesDir);
    assert.deepEqual(fill.apps, { copied: 0, unchanged: 1, refused: 1, bytes: 0 });
    assert.equal((await ts.store.appPackages.find('Census'))!.signature, md5(PACKAGE_JSON));

    // A package dropped in by hand: listed without metadata, as before the import kept any.
    const manual = zipOf({ 'package.json': '{"name":"Listing"}' });
    await putByHand(ts.store, 'apps', 'Listing.zip', manual);
    const withManual = (await (await ts.call('standard', '/api/apps')).json()) as { name: string; description: string; version: string }[];
    assert.deepEqual(
      withManual.map((a) => [a.name, a.description, a.version]),
      [
        ['Census', 'Census 2025 (main questionnaire)', '1.2'],
        ['Listing', '', ''],
      ],
    );
    assert.equal((await ts.call('standard', '/api/apps/Listing', { headers: { 'if-none-match': md5(manual) } })).status, 304);

    // The imported zip replaced by hand: the metadata describes another zip, so it is not shown.
    const byHand = zipOf({ 'package.json': '{"name":"Census","by":"hand"}' });
    await putByHand(ts.store, 'apps', 'Census.zip', byHand, APRIL.getTime());
    const replaced = (await (await ts.call('standard', '/api/apps')).json()) as { name: string; description: string }[];
    assert.equal(replaced[0]!.description, '');
    const notSigned = await ts.call('standard', '/api/apps/Census', { headers: { 'if-none-match': md5(PACKAGE_JSON) } });
    assert.equal(notSigned.status, 200, "CSWeb's signature names the imported zip, not this one");
    assert.ok(Buffer.from(await notSigned.arrayBuffer()).equals(byHand));
    // The next import puts CSWeb's package and its metadata back.
    const back = await importCswebFiles(ts.store, source.conn, source.filesDir);
    assert.deepEqual(back.apps, { copied: 1, unchanged: 0, refused: 1, bytes: ZIP.length });
    assert.equal(
      ((await (await ts.call('standard', '/api/apps')).json()) as { description: string }[])[0]!.description,
      'Census 2025 (main questionnaire)',
    );

    // A tablet replaces a file in sds (a Standard account may); the next run puts CSWeb's version back.
    const put = await ts.call('standard', '/api/files/paradata/2024/03/tablet-a.log/content', { method: 'PUT', body: 'from a tablet' });
    assert.equal(put.status, 200);

    // CSWeb changes a file, adds one and gets a new build of the package: only those are copied.
    const changed = Buffer.from('code,name\n1,North\n2,South\n3,East\n');
    source.write('lookup/regions.csv', changed, APRIL);
    source.write('lookup/districts.csv', 'code\n', APRIL);
    const zip2 = zipOf({ 'package.json': PACKAGE_JSON.replace('2024-03-18T10:20:30Z', '2024-05-01T00:00:00Z'), 'census.pen': 'v2' });
    source.write('apps/Census.zip', zip2, APRIL);
    await source.conn.query(
      "UPDATE cspro_apps SET build_time = '2024-05-01 00:00:00', description = 'Census 2025 (v2)', version = '2.0' WHERE name = 'Census'",
    );
    const third = await importCswebFiles(ts.store, source.conn, source.filesDir);
    assert.deepEqual(third.files, { copied: 3, unchanged: SYNCED_COUNT - 2, refused: 3, bytes: changed.length + 5 + 9 });
    const log = await ts.call('standard', '/api/files/paradata/2024/03/tablet-a.log/content');
    assert.ok(Buffer.from(await log.arrayBuffer()).equals(SYNCED['paradata/2024/03/tablet-a.log']!));
    assert.deepEqual(third.apps, { copied: 1, unchanged: 0, refused: 1, bytes: zip2.length });
    const regions = await ts.call('standard', '/api/files/lookup/regions.csv/content');
    assert.ok(Buffer.from(await regions.arrayBuffer()).equals(changed));
    assert.equal(regions.headers.get('etag'), md5(changed));
    const app2 = await ts.call('standard', '/api/apps/Census', { headers: { 'x-csw-package-build-time': '2024-03-18T10:20:30Z' } });
    assert.equal(app2.status, 200);
    assert.ok(Buffer.from(await app2.arrayBuffer()).equals(zip2));
    const listed = (await (await ts.call('standard', '/api/apps')).json()) as { buildTime: string; description: string; version: string }[];
    assert.deepEqual(
      [listed[0]!.buildTime, listed[0]!.description, listed[0]!.version],
      ['2024-05-01T00:00:00Z', 'Census 2025 (v2)', '2.0'],
    );
    // No temporary files are left beside what was written.
    assert.deepEqual(await storedNames(ts.store, 'apps'), ['Census.zip', 'Listing.zip']);
    assert.deepEqual(await storedNames(ts.store, 'media', 'lookup'), ['districts.csv', 'regions.csv']);
    assert.equal(await pendingUploads(ts.store), 0);
  } finally {
    await ts?.close();
  }
});
