/**
 * Binary case items of a CSWeb import (docs/migrating-from-csweb.md#binary-case-items): a real
 * MariaDB holding `<DICT>_case_binary_data` rows and a real files folder with the contents, named
 * by md5 as CSWeb names them, imported into a real home; then the store's rows, the copied bytes,
 * re-import, verify, and what happens to the rows when a case is written again or purged.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importFromCsweb, openCsweb, verifyCsweb } from '../../../src/core/csweb/index.js';
import { purgeDictionary } from '../../../src/core/dictionary-purge/index.js';
import { uploadCases } from '../../../src/core/sync/index.js';
import type { Store } from '../../../src/store/open-store.js';
import { fixture, storeSql, tempStore } from '../../helpers/temp-home.js';
import { storedBytes } from '../../helpers/stored-files.js';
import {
  createCswebFixture,
  photoDescriptor,
  simpleCapiWithPhoto,
  writeCswebBinaryItem,
  type CswebFixture,
} from '../../helpers/csweb-fixture.js';

const DICT = 'SIMPLECAPI_DICT';
const DCF = simpleCapiWithPhoto(fixture('simple-capi.dcf'));
const G = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

const PHOTO_1 = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7 + 3) % 256));
const PHOTO_2 = Buffer.from('second photo, never copied to the files folder');
const PHOTO_3 = Buffer.from('third photo, whose file is corrupt');

const level1 = (hh: number, photo?: Record<string, unknown>) =>
  JSON.stringify({
    id: { CLUSTER: 1, HHNO: hh },
    HOUSING_REC: { H3: 1, H4: 2, DATE_OF_SURVEY: 20240315, CHECKBOX: 'AB', ...(photo ? { PHOTO: photo } : {}) },
  });

async function setUp(f: CswebFixture, filesDir: string): Promise<void> {
  await f.addDictionary(DICT, 'simpleCAPI', DCF);
  writeCswebBinaryItem(filesDir, DICT, PHOTO_1);
  // A file named by PHOTO_3's md5 holding other bytes: corrupt.
  const sig3 = writeCswebBinaryItem(filesDir, DICT, PHOTO_3);
  writeFileSync(join(filesDir, 'binary-items', DICT.toLowerCase(), sig3), 'not the photo');
  await f.upload(DICT, [
    {
      guid: G(1),
      caseids: '001001',
      level1: level1(1, photoDescriptor(G(1), PHOTO_1)),
      binaryItems: [{ signature: md5(PHOTO_1), modifiedTime: '2024-06-01 12:00:00' }],
    },
    { guid: G(2), caseids: '001002', level1: level1(2, photoDescriptor(G(2), PHOTO_2)), binaryItems: [{ signature: md5(PHOTO_2) }] },
    { guid: G(3), caseids: '001003', level1: level1(3, photoDescriptor(G(3), PHOTO_3)), binaryItems: [{ signature: md5(PHOTO_3) }] },
    { guid: G(4), caseids: '001004', level1: level1(4) },
  ]);
}

async function withFixture(
  fn: (f: CswebFixture, store: Store, filesDir: string, home: { binaryItems: string }) => Promise<void>,
): Promise<void> {
  const f = await createCswebFixture();
  const t = await tempStore();
  const filesDir = mkdtempSync(join(tmpdir(), 'sds-csweb-files-'));
  try {
    await setUp(f, filesDir);
    await fn(f, t.store, filesDir, t.home);
  } finally {
    await t.cleanup();
    rmSync(filesDir, { recursive: true, force: true });
    await f.drop();
  }
}

async function run(f: CswebFixture, store: Store, opts: Parameters<typeof importFromCsweb>[2] = {}) {
  const conn = await openCsweb(f.url, undefined);
  try {
    return await importFromCsweb(store, conn, { timeZone: 'Africa/Nairobi', users: false, ...opts });
  } finally {
    await conn.end();
  }
}

const lines = (r: Awaited<ReturnType<typeof run>>) => r.entries.map((e) => `${e.level} ${e.code} ${e.guid ?? ''}`).sort();

test('binary items come over with their cases: contents copied and checked, rows kept, the rest reported', async () => {
  await withFixture(async (f, store, filesDir) => {
    const r = await run(f, store, { filesDir });
    assert.equal(r.total.written, 4);
    assert.equal(r.total.failed, 0);
    assert.deepEqual(lines(r), [`error CSWEB_BINARY_CONTENT_CORRUPT ${G(3)}`, `error CSWEB_BINARY_CONTENT_MISSING ${G(2)}`]);
    assert.equal(r.errors, 2);
    const dict = (await store.dictionaries.find(DICT))!;
    // The content, byte for byte, where sds keeps it; nothing for the missing or corrupt ones.
    const item = (photo: Buffer) => storedBytes(store, 'binary-items', `simplecapi_dict/${md5(photo)}`);
    assert.deepEqual(await item(PHOTO_1), PHOTO_1);
    assert.equal(await item(PHOTO_2), undefined);
    assert.equal(await item(PHOTO_3), undefined);
    // The rows: CSWeb's wall time (Nairobi, UTC+3) in UTC, the size the descriptor gives.
    assert.deepEqual(await store.binaryItems.forCase(dict.id, G(1)), [
      { caseGuid: G(1), signature: md5(PHOTO_1), size: PHOTO_1.length, modifiedTime: '2024-06-01T09:00:00Z' },
    ]);
    assert.equal((await store.binaryItems.forCase(dict.id, G(2)))[0]!.signature, md5(PHOTO_2));
    assert.deepEqual(await store.binaryItems.forCase(dict.id, G(4)), []);
    // The case keeps its descriptor as CSWeb held it.
    const stored = JSON.parse((await store.cases.get(dict.id, G(1)))!.data) as { HOUSING_REC: { PHOTO: unknown } };
    assert.deepEqual(stored.HOUSING_REC.PHOTO, photoDescriptor(G(1), PHOTO_1));

    // Again: the cursor is past every case, so nothing is read or written and the rows stay single.
    const again = await run(f, store, { filesDir });
    assert.deepEqual([again.total.read, again.total.written], [0, 0]);
    assert.deepEqual(lines(again), []);
    assert.equal((await store.binaryItems.forCase(dict.id, G(1))).length, 1);

    // The missing file appears in CSWeb's folder: a run after a CSWeb change brings it.
    writeCswebBinaryItem(filesDir, DICT, PHOTO_2);
    await f.upload(DICT, [
      { guid: G(2), caseids: '001002', level1: level1(2, photoDescriptor(G(2), PHOTO_2)), binaryItems: [{ signature: md5(PHOTO_2) }] },
    ]);
    const third = await run(f, store, { filesDir });
    assert.deepEqual(lines(third), []);
    assert.deepEqual(await item(PHOTO_2), PHOTO_2);
  });
});

test('without the files folder every case is imported and each binary item is one error', async () => {
  await withFixture(async (f, store) => {
    const r = await run(f, store);
    assert.equal(r.total.written, 4);
    assert.deepEqual(
      lines(r),
      [1, 2, 3].map((n) => `error CSWEB_BINARY_CONTENT_MISSING ${G(n)}`),
    );
    assert.match(r.entries[0]!.message, /files folder was not given/);
  });
});

test('verify compares the binary items of each case', async () => {
  await withFixture(async (f, store, filesDir) => {
    await run(f, store, { filesDir });
    const verify = async () => {
      const conn = await openCsweb(f.url, undefined);
      try {
        return await verifyCsweb(store, conn, { timeZone: 'Africa/Nairobi' });
      } finally {
        await conn.end();
      }
    };
    const first = await verify();
    assert.equal(first.same, true, JSON.stringify(first));
    assert.equal(first.dictionaries[0]!.csweb.binaryItems, 3);
    assert.equal(first.dictionaries[0]!.sds!.binaryItems, 3);
    // A binary row CSWeb drops without a new revision (the case is not re-read): verify sees it.
    await f.conn.query(`DELETE FROM \`${DICT}_case_binary_data\` WHERE binary_data_signature = ?`, [md5(PHOTO_3)]);
    const second = await verify();
    assert.equal(second.same, false);
    assert.deepEqual(second.dictionaries[0]!.differences, [
      'binaryItems: 2 in CSWeb, 3 in sds',
      'the binary items (signatures per case) differ',
    ]);
  });
});

test('rows follow the case: replaced when it is written again, removed with a purge', async () => {
  await withFixture(async (f, store, filesDir) => {
    await run(f, store, { filesDir });
    const dict = (await store.dictionaries.find(DICT))!;
    // A sync upload of case 1 without its photo, then of case 4 with one: rows follow the data.
    const batch = async function* () {
      yield [
        { id: G(1), caseids: '001001', clock: [{ deviceId: 'tablet', revision: 9 }], 'level-1': level1(1) },
        { id: G(4), caseids: '001004', clock: [{ deviceId: 'tablet', revision: 9 }], 'level-1': level1(4, photoDescriptor(G(4), PHOTO_1)) },
      ];
    };
    await uploadCases(store, DICT, batch(), { device: 'tablet' }, 'tester');
    assert.deepEqual(await store.binaryItems.forCase(dict.id, G(1)), []);
    const four = await store.binaryItems.forCase(dict.id, G(4));
    assert.equal(four.length, 1);
    assert.equal(four[0]!.signature, md5(PHOTO_1));
    assert.equal(four[0]!.size, PHOTO_1.length);
    assert.equal(await store.binaryItems.casesHolding(dict.id, md5(PHOTO_1)), 1);
    await purgeDictionary(store, DICT);
    const [left] = await storeSql(store, 'SELECT count(*) AS n FROM case_binary_items');
    assert.equal(Number(left!.n), 0);
  });
});
