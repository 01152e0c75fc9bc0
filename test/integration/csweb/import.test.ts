/**
 * `importFromCsweb` against a real MariaDB holding a CSWeb-shaped database (test/helpers/csweb-fixture.ts):
 * every field of every case, both questionnaire forms, deletions, re-uploads with clocks, notes in
 * a non-UTC zone, partial saves, a case that cannot be decoded, a database that is not CSWeb's,
 * a second run bringing exactly the changes, and an interrupted run resumed without duplicates.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { addWebhook } from '../../../src/core/webhooks/index.js';
import { uploadDictionary } from '../../../src/core/dictionaries/index.js';
import { importCases } from '../../../src/core/cases/index.js';
import { importFromCsweb, openCsweb, verifyCsweb } from '../../../src/core/csweb/index.js';
import { AppError } from '../../../src/shared/errors.js';
import type { Store } from '../../../src/store/open-store.js';
import { fixture, tempStore } from '../../helpers/temp-home.js';
import { createCswebFixture, type CswebFixture, type FixtureCase } from '../../helpers/csweb-fixture.js';

const SIMPLE = readFileSync(fixture('simple-capi.dcf'), 'utf8');
const G = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const json = (cluster: number, hh: number, name: string, h3 = 1) =>
  JSON.stringify({
    id: { CLUSTER: cluster, HHNO: hh },
    POPULATION_REC: [{ P1: name, P2: 1, P3: 2, P4: 34, P5: 1 }],
    HOUSING_REC: { H3: h3, H4: 2, DATE_OF_SURVEY: 20240315, CHECKBOX: 'AB' },
  });

/** Pre-7.5 record lines: type, CLUSTER(3), HHNO(3), then the items. */
const lines = (cluster: number, hh: number, name: string) => {
  const ids = `${String(cluster).padStart(3, '0')}${String(hh).padStart(3, '0')}`;
  return [`1${ids}${name.padEnd(30)}1234 1`.replace('34 1', '3401'), `2${ids}1220240315AB `];
};

async function withFixture(fn: (f: CswebFixture, store: Store) => Promise<void>): Promise<void> {
  const f = await createCswebFixture();
  const t = await tempStore();
  const conn = await openCsweb(f.url, undefined);
  try {
    await fn(f, t.store);
  } finally {
    await conn.end();
    await t.cleanup();
    await f.drop();
  }
}

async function run(f: CswebFixture, store: Store, opts: Parameters<typeof importFromCsweb>[2] = {}) {
  const conn = await openCsweb(f.url, undefined);
  try {
    return await importFromCsweb(store, conn, { timeZone: 'Africa/Nairobi', ...opts });
  } finally {
    await conn.end();
  }
}

test('every field of every case comes over with its CSWeb revision, and the counter continues above CSWeb', async () => {
  await withFixture(async (f, store) => {
    await f.addDictionary('SIMPLECAPI_DICT', 'simpleCAPI', SIMPLE);
    const r1 = await f.upload('SIMPLECAPI_DICT', [
      {
        guid: G(1),
        caseids: '001001',
        label: 'Berg household',
        level1: json(1, 1, 'Ahmed Berg'),
        verified: true,
        notes: [{ operatorId: 'op1', field: 'P1', levelKey: '', content: 'check the name', modifiedTime: '2024-06-01 11:15:00' }],
      },
      { guid: G(2), caseids: '001002', lines: lines(1, 2, 'Amina Okafor'), partialSave: { mode: 'add', field: 'P4', record: 1, item: 1 } },
      { guid: G(3), caseids: '001003', level1: json(1, 3, 'Gone'), partialSave: { mode: 'modify' } },
    ]);
    // A re-upload with a concurrent clock, as CSWeb stores it after reconciliation, and a deletion.
    const merged = [
      { deviceId: 'a1b2c3d4e5f6', revision: 1 },
      { deviceId: 'd3adbeef0042', revision: 1 },
    ];
    const r2 = await f.upload(
      'SIMPLECAPI_DICT',
      [{ guid: G(1), caseids: '001001', label: 'Berg household', level1: json(1, 1, 'Ahmed Berg', 2), verified: true, clock: merged }],
      'd3adbeef0042',
    );
    const r3 = await f.upload('SIMPLECAPI_DICT', [
      { guid: G(3), caseids: '001003', level1: json(1, 3, 'Gone'), deleted: true, partialSave: { mode: 'modify' } },
    ]);
    const empty = await f.emptyRevision('SIMPLECAPI_DICT');

    const report = await run(f, store);
    assert.equal(report.total.failed, 0);
    assert.equal(report.total.written, 3);
    assert.equal(report.source.highestRevision, empty);
    const dict = (await store.dictionaries.find('SIMPLECAPI_DICT'))!;
    assert.equal(dict.label, 'simpleCAPI');
    assert.equal(
      (await store.dictionaries.source('SIMPLECAPI_DICT'))!.toString('utf8'),
      SIMPLE,
      'the dictionary is kept as CSWeb stored it',
    );
    assert.equal(await store.settings.get('server_device_id'), f.serverDeviceId);

    const c1 = (await store.cases.get(dict.id, G(1)))!;
    assert.equal(c1.revision, r2);
    assert.equal(c1.caseKey, '001001');
    assert.equal(c1.label, 'Berg household');
    assert.equal(c1.verified, true);
    assert.equal(c1.deleted, false);
    assert.deepEqual(c1.clock, merged);
    assert.equal(JSON.parse(c1.data).HOUSING_REC.H3, 2);
    // CSWeb's notes are re-sent by each upload: the fixture's second upload sent none.
    assert.deepEqual(c1.notes, []);

    const c2 = (await store.cases.get(dict.id, G(2)))!;
    assert.equal(c2.revision, r1);
    assert.deepEqual(JSON.parse(c2.data), {
      id: { CLUSTER: 1, HHNO: 2 },
      POPULATION_REC: [{ P1: 'Amina Okafor', P2: 1, P3: 2, P4: 34, P5: 1 }],
      HOUSING_REC: { H3: 1, H4: 2, DATE_OF_SURVEY: 20240315, CHECKBOX: 'AB' },
    });
    assert.deepEqual(c2.partialSave, {
      mode: 'add',
      field: { name: 'P4', levelKey: '', recordOccurrence: 1, itemOccurrence: 1, subitemOccurrence: 0 },
    });
    assert.ok(report.entries.some((e) => e.code === 'CSWEB_TEXT_FORM' && e.guid === G(2)));

    const c3 = (await store.cases.get(dict.id, G(3)))!;
    assert.equal(c3.deleted, true);
    assert.equal(c3.revision, r3);
    assert.deepEqual(c3.partialSave, { mode: 'modify' });

    // The next revision sds gives continues above CSWeb's highest, even the one without cases.
    const next = await store.transaction((tx) => tx.cases.nextRevision(dict.id, 'test'));
    assert.equal(next, empty + 1);
  });
});

test('note times are read in the CSWeb zone, converted to UTC, with a repeated hour reported', async () => {
  await withFixture(async (f, store) => {
    await f.addDictionary('SIMPLECAPI_DICT', 'simpleCAPI', SIMPLE);
    await f.upload('SIMPLECAPI_DICT', [
      {
        guid: G(1),
        caseids: '001001',
        level1: json(1, 1, 'A'),
        notes: [
          { operatorId: 'op1', field: 'P1', content: 'summer', modifiedTime: '2024-06-01 10:15:00' },
          { operatorId: 'op1', field: 'P2', content: 'twice', modifiedTime: '2024-10-27 02:30:00' },
        ],
      },
    ]);
    const report = await run(f, store, { timeZone: 'Europe/Berlin' });
    const c = (await store.cases.get((await store.dictionaries.find('SIMPLECAPI_DICT'))!.id, G(1)))!;
    assert.deepEqual(
      c.notes.map((n) => [n.content, n.modifiedTime, n.operatorId, n.field.name]),
      [
        ['summer', '2024-06-01T08:15:00Z', 'op1', 'P1'],
        ['twice', '2024-10-27T00:30:00Z', 'op1', 'P2'],
      ],
    );
    assert.deepEqual(
      report.entries.filter((e) => e.code === 'CSWEB_NOTE_TIME_SHIFTED').map((e) => e.guid),
      [G(1)],
    );
  });
});

test('a case that cannot be decoded is reported by dictionary and guid; the others are stored', async () => {
  await withFixture(async (f, store) => {
    await f.addDictionary('SIMPLECAPI_DICT', 'simpleCAPI', SIMPLE);
    await f.upload('SIMPLECAPI_DICT', [
      { guid: G(1), caseids: '001001', level1: json(1, 1, 'A') },
      { guid: G(2), caseids: '001002', questionnaire: Buffer.from([0x1f, 0x8b, 0x08, 0x00, 1, 2, 3, 4]) },
      { guid: G(3), caseids: '001003', level1: '{"id": not json' },
    ]);
    const report = await run(f, store);
    assert.equal(report.total.failed, 2);
    assert.equal(report.total.written, 1);
    const errors = report.entries.filter((e) => e.level === 'error');
    assert.deepEqual(
      errors.map((e) => [e.code, e.dictionary, e.guid]),
      [
        ['CSWEB_CASE_UNREADABLE', 'SIMPLECAPI_DICT', G(2)],
        ['CSWEB_CASE_UNREADABLE', 'SIMPLECAPI_DICT', G(3)],
      ],
    );
    assert.match(errors[0]!.message, /inflate/);
    assert.match(errors[1]!.message, /not valid JSON/);
  });
});

test('a second run brings exactly the changes; a third brings nothing', async () => {
  await withFixture(async (f, store) => {
    await f.addDictionary('SIMPLECAPI_DICT', 'simpleCAPI', SIMPLE);
    await f.upload(
      'SIMPLECAPI_DICT',
      [1, 2, 3].map((n): FixtureCase => ({ guid: G(n), caseids: `00100${n}`, level1: json(1, n, `P${n}`) })),
    );
    await run(f, store);
    const r = await f.upload('SIMPLECAPI_DICT', [
      { guid: G(2), caseids: '001002', level1: json(1, 2, 'P2 again'), clock: [{ deviceId: 'a1b2c3d4e5f6', revision: 2 }] },
      { guid: G(4), caseids: '001004', level1: json(1, 4, 'P4') },
    ]);
    // A changed dictionary (new label and content) replaces the stored one.
    await f.addDictionary('SIMPLECAPI_DICT', 'simpleCAPI', SIMPLE.replace('"simpleCAPI"', '"simpleCAPI v2"'));
    const second = await run(f, store);
    assert.equal(second.dictionaries[0]!.dictionary, 'replaced');
    assert.equal(second.total.read, 2);
    assert.equal(second.total.written, 2);
    const dict = (await store.dictionaries.find('SIMPLECAPI_DICT'))!;
    assert.equal((await store.cases.get(dict.id, G(2)))!.revision, r);
    assert.equal(JSON.parse((await store.cases.get(dict.id, G(2)))!.data).POPULATION_REC[0].P1, 'P2 again');
    assert.equal(await store.cases.count(dict.id), 4);
    const third = await run(f, store);
    assert.equal(third.dictionaries[0]!.dictionary, 'unchanged');
    assert.equal(third.total.read, 0);
  });
});

test('an interrupted import resumes where it stopped, without duplicates or a second revision', async () => {
  await withFixture(async (f, store) => {
    await f.addDictionary('SIMPLECAPI_DICT', 'simpleCAPI', SIMPLE);
    for (let n = 1; n <= 5; n++) await f.upload('SIMPLECAPI_DICT', [{ guid: G(n), caseids: `00100${n}`, level1: json(1, n, `P${n}`) }]);
    await store.settings.set('unused', 'x');
    const stop = new AbortController();
    process.env.SDS_LIMIT_CSWEB_PAGE_CASES = '2';
    try {
      const first = await run(f, store, { signal: stop.signal, onProgress: (done) => done >= 2 && stop.abort() });
      assert.equal(first.stopped, true);
      assert.equal(first.total.written, 2);
      const dict = (await store.dictionaries.find('SIMPLECAPI_DICT'))!;
      assert.equal(await store.cases.count(dict.id), 2);
      const second = await run(f, store);
      assert.equal(second.total.read, 3, 'only the cases after the committed page are read again');
      assert.equal(await store.cases.count(dict.id), 5);
      const revisions: number[] = [];
      for (const n of [1, 2, 3, 4, 5]) revisions.push((await store.cases.get(dict.id, G(n)))!.revision);
      assert.deepEqual(revisions, [1, 2, 3, 4, 5]);
    } finally {
      delete process.env.SDS_LIMIT_CSWEB_PAGE_CASES;
    }
  });
});

test('sds cases written to an imported dictionary stop the import of that dictionary', async () => {
  await withFixture(async (f, store) => {
    await f.addDictionary('SIMPLECAPI_DICT', 'simpleCAPI', SIMPLE);
    await f.upload('SIMPLECAPI_DICT', [{ guid: G(1), caseids: '001001', level1: json(1, 1, 'A') }]);
    await run(f, store);
    const dict = (await store.dictionaries.find('SIMPLECAPI_DICT'))!;
    await store.transaction(async (tx) => {
      const r = await tx.cases.nextRevision(dict.id, 'upload');
      const c = (await tx.cases.get(dict.id, G(1)))!;
      await tx.cases.upsert(dict.id, { ...c, label: 'changed in sds' }, r);
    });
    await f.upload('SIMPLECAPI_DICT', [{ guid: G(2), caseids: '001002', level1: json(1, 2, 'B') }]);
    const report = await run(f, store);
    assert.deepEqual(
      report.entries.filter((e) => e.level === 'error').map((e) => e.code),
      ['CSWEB_LOCAL_CHANGES'],
    );
    assert.equal(await store.cases.get(dict.id, G(2)), undefined);
  });
});

test('a database that is not CSWeb, or of another schema version, is refused naming what is missing', async () => {
  const f = await createCswebFixture({ schemaVersion: '6' });
  const t = await tempStore();
  try {
    const conn = await openCsweb(f.url, undefined);
    await assert.rejects(
      importFromCsweb(t.store, conn, { timeZone: 'UTC' }),
      (e: AppError) => e.code === 'CSWEB_SCHEMA_TOO_OLD' && /CSWeb schema version 6; sds reads 7 and later/.test(e.message),
    );
    await f.conn.query("UPDATE cspro_config SET value = '9' WHERE name = 'schema_version'");
    await assert.rejects(
      importFromCsweb(t.store, conn, { timeZone: 'UTC' }),
      (e: AppError) => e.code === 'CSWEB_SCHEMA_UNKNOWN' && /version 9; sds knows versions 7 \(CSWeb 8\.0\) and 8/.test(e.message),
    );
    await f.conn.query("UPDATE cspro_config SET value = '7' WHERE name = 'schema_version'");
    await f.conn.query('DROP TABLE cspro_sync_history');
    await assert.rejects(
      importFromCsweb(t.store, conn, { timeZone: 'UTC' }),
      (e: AppError) => e.code === 'CSWEB_SCHEMA_UNKNOWN' && (e.details.missing as string[]).includes('cspro_sync_history'),
    );
    await f.conn.query('DROP TABLE cspro_config');
    await f.conn.query('DROP TABLE cspro_dictionaries_schema');
    await f.conn.query('DROP TABLE cspro_role_dictionary_permissions');
    await f.conn.query('DROP TABLE cspro_dictionaries');
    await assert.rejects(importFromCsweb(t.store, conn, { timeZone: 'UTC' }), (e: AppError) => e.code === 'CSWEB_NOT_A_CSWEB_DATABASE');
    await conn.end();
    await assert.rejects(
      openCsweb(f.url.replace(/\/[^/]+$/, '/no_such_db_here'), undefined),
      (e: AppError) => e.code === 'CSWEB_CONNECT_FAILED' && /no_such_db_here/.test(e.message),
    );
    assert.equal(await t.store.settings.get('csweb_source'), undefined, 'nothing was written');
  } finally {
    await t.cleanup();
    await f.drop();
  }
});

test('verify agrees after an import, names what differs after a CSWeb change, and agrees again after a rerun', async () => {
  await withFixture(async (f, store) => {
    await f.addDictionary('SIMPLECAPI_DICT', 'simpleCAPI', SIMPLE);
    await f.upload('SIMPLECAPI_DICT', [
      {
        guid: G(1),
        caseids: '001001',
        level1: json(1, 1, 'A'),
        verified: true,
        notes: [{ operatorId: 'op', field: 'P1', content: 'n', modifiedTime: '2024-03-01 09:00:00' }],
      },
      { guid: G(2), caseids: '001002', lines: lines(1, 2, 'B'), deleted: true },
    ]);
    await run(f, store);
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
    assert.deepEqual(
      { ...first.dictionaries[0]!.csweb, checksum: '' },
      { cases: 2, deleted: 1, verified: 1, notes: 1, undecodable: 0, checksum: '', binaryItems: 0, binaryChecksum: '0'.repeat(64) },
    );
    assert.equal(first.dictionaries[0]!.csweb.checksum, first.dictionaries[0]!.sds!.checksum);
    await f.upload('SIMPLECAPI_DICT', [{ guid: G(1), caseids: '001001', level1: json(1, 1, 'A changed'), verified: true }]);
    const second = await verify();
    assert.equal(second.same, false);
    assert.deepEqual(second.dictionaries[0]!.differences, ['notes: 0 in CSWeb, 1 in sds', 'the checksum of the case contents differs']);
    await run(f, store);
    assert.equal((await verify()).same, true);
  });
});

test('a Popstan text dictionary and a pre-7.5 case read as the .dat import reads it; events only with emitEvents', async () => {
  await withFixture(async (f, store) => {
    const dcf = readFileSync(fixture('popstan-census.text.dcf'), 'utf8');
    await f.addDictionary('CEN2000', 'Popstan Census', dcf);
    // The first case of the real Popstan data file, as a pre-7.5 client uploads it: its record lines.
    const dat = readFileSync(fixture('popstan-census.dat'), 'utf8')
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/);
    const key = dat[0]!.slice(1, 16);
    const caseLines = dat.filter((l, i) => i < 200 && l.slice(1, 16) === key);
    await addWebhook(store, { name: 'hook', url: 'https://example.org/hook', events: ['case_uploaded', 'dictionary_uploaded'] });
    await f.upload('CEN2000', [{ guid: G(1), caseids: key, lines: caseLines }]);
    const report = await run(f, store);
    assert.equal(report.total.failed, 0, JSON.stringify(report.entries));
    assert.equal(await store.webhookQueue.hasOutbox(), false, 'no event without emitEvents');
    const dict = (await store.dictionaries.find('CEN2000'))!;
    assert.equal(dict.label, 'Popstan_Census');
    assert.equal((await store.dictionaries.source('CEN2000'))!.toString('utf8'), dcf, 'the text form, BOM and all, is kept');

    // The same lines through `sds cases import` of a .dat give the same content.
    const other = await tempStore();
    try {
      await uploadDictionary(other.store, { source: Buffer.from(dcf), label: 'other' });
      const file = join(other.home.root, 'one.dat');
      writeFileSync(file, `${caseLines.join('\n')}\n`);
      await importCases(other.store, 'CEN2000', [file]);
      const otherId = (await other.store.dictionaries.find('CEN2000'))!.id;
      const fromDat = (await other.store.cases.page(otherId, 1, 0))[0]!;
      const datCase = (await other.store.cases.get(otherId, fromDat.guid))!;
      assert.equal((await store.cases.get(dict.id, G(1)))!.data, datCase.data);
    } finally {
      await other.cleanup();
    }

    await f.upload('CEN2000', [{ guid: G(2), caseids: key, lines: caseLines }]);
    await run(f, store, { emitEvents: true });
    assert.equal(await store.webhookQueue.hasOutbox(), true, 'emitEvents queues the imported change');
  });
});

test('a wrong password is CSWEB_CONNECT_FAILED naming host and database; the right one from the environment connects', async () => {
  const f = await createCswebFixture();
  const user = `csweb_ro_${f.database.slice(-8)}`;
  try {
    await f.conn.query(`CREATE USER '${user}'@'%' IDENTIFIED BY 'right-password'`);
    await f.conn.query(`GRANT SELECT ON \`${f.database}\`.* TO '${user}'@'%'`);
    const url = f.url.replace(/\/\/[^@]+@/, `//${user}@`);
    await assert.rejects(
      openCsweb(url, 'wrong-password'),
      (e: AppError) =>
        e.code === 'CSWEB_CONNECT_FAILED' &&
        e.message.includes(f.database) &&
        e.message.includes('127.0.0.1') &&
        e.details.reason === 'ER_ACCESS_DENIED_ERROR',
    );
    const conn = await openCsweb(url, 'right-password');
    await conn.end();
  } finally {
    await f.conn.query(`DROP USER IF EXISTS '${user}'@'%'`);
    await f.drop();
  }
});
