/**
 * `sds csweb import` and `verify` of a CSWeb 8.1 database (schema version 8), built in the test on
 * the real MariaDB (test/helpers/csweb-fixture.ts, release '8.1'): the syncable name beside the
 * dictionary's own, the whole 8.1 case JSON read as an 8.1 upload, the users' uuids kept as the id
 * a CSPro 8.1 tablet is told at login, roles and per-dictionary rights read, messages imported once
 * and resumed by their cursor; another schema version refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { importFromCsweb, openCsweb, verifyCsweb } from '../../../src/core/csweb/index.js';
import { listSyncMessages } from '../../../src/core/sync/messages.js';
import { AppError } from '../../../src/shared/errors.js';
import type { Store } from '../../../src/store/open-store.js';
import { fixture, tempStore } from '../../helpers/temp-home.js';
import { createCswebFixture, type CswebFixture } from '../../helpers/csweb-fixture.js';
import { addCswebRole, addCswebUser, phpBcrypt } from '../../helpers/csweb-users-fixture.js';
import { startTestServer } from '../../helpers/http-server.js';
import { CsproClient } from '../../helpers/cspro-client.js';

const SIMPLE = readFileSync(fixture('simple-capi.dcf'), 'utf8');
const SYNC_NAME = 'HOUSEHOLDS_2025';
const G = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const PASSWORD = 'field-password-81';

/** A case in CSPro 8.1's case JSON, as an 8.1 tablet uploads it and CSWeb 8.1 keeps it whole. */
function v3(hh: number, name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...extra,
    SIMPLECAPI_QUEST: {
      CLUSTER: { code: 1 },
      HHNO: { code: hh },
      POPULATION_REC: [{ P1: { code: name }, P2: { code: 1 }, P4: { code: 40 } }],
      HOUSING_REC: [{ H3: { code: 1 } }],
    },
    clock: [{ deviceId: 'tablet81', revision: hh }],
  };
}

async function with81(fn: (f: CswebFixture, store: Store) => Promise<void>): Promise<void> {
  const f = await createCswebFixture({ release: '8.1' });
  try {
    const t = await tempStore();
    try {
      await fn(f, t.store);
    } finally {
      await t.cleanup();
    }
  } finally {
    await f.drop();
  }
}

async function run(f: CswebFixture, store: Store) {
  const conn = await openCsweb(f.url, undefined);
  try {
    return await importFromCsweb(store, conn, { timeZone: 'Africa/Nairobi' });
  } finally {
    await conn.end();
  }
}

/** Dictionary, cases (one with notes, a partial save and a case note, one deleted), and a message. */
async function seed(f: CswebFixture): Promise<void> {
  await f.addDictionary('SIMPLECAPI_DICT', 'simpleCAPI', SIMPLE, SYNC_NAME);
  await f.upload(SYNC_NAME, [
    {
      guid: G(1),
      caseids: '001001',
      label: 'Berg household',
      verified: true,
      v3: v3(1, 'Ahmed Berg', {
        label: 'Berg household',
        verified: true,
        caseNote: 'visit again in June',
        notes: [{ text: 'check the name', modifiedTime: '2025-03-01T10:15:00Z', operatorId: 'op1', name: 'P1' }],
      }),
    },
    {
      guid: G(2),
      caseids: '001002',
      partialSave: { mode: 'add' },
      v3: v3(2, 'Amina Okafor', { partialSave: { mode: 'add', name: 'P4', occurrences: { record: 1, item: 1, subitem: 0 } } }),
    },
    { guid: G(3), caseids: '001003', deleted: true, v3: v3(3, 'Gone', { deleted: true }) },
  ]);
}

test('an 8.1 database: the syncable name kept beside the own name, every case read from the 8.1 case JSON, verify agrees', async () => {
  await with81(async (f, store) => {
    await seed(f);
    const report = await run(f, store);
    assert.equal(report.schemaVersion, 8);
    assert.equal(report.errors, 0, JSON.stringify(report.entries));
    assert.deepEqual(
      report.dictionaries.map((d) => [d.name, d.dictionary, d.read, d.written, d.failed]),
      [['SIMPLECAPI_DICT', 'created', 3, 3, 0]],
    );
    const dict = (await store.dictionaries.find('SIMPLECAPI_DICT'))!;
    assert.equal(dict.syncName, SYNC_NAME, "CSWeb 8.1's name is sds's syncable name");

    const one = (await store.cases.get(dict.id, G(1)))!;
    assert.equal(one.caseKey, '001001');
    assert.equal(one.label, 'Berg household');
    assert.equal(one.verified, true);
    assert.equal(one.caseNote, 'visit again in June');
    assert.deepEqual(
      one.notes.map((n) => [n.content, n.field.name, n.operatorId]),
      [['check the name', 'P1', 'op1']],
    );
    assert.match(one.notes[0]!.modifiedTime, /^2025-03-01T10:15:00/);
    assert.equal(JSON.parse(one.data).POPULATION_REC[0].P1, 'Ahmed Berg');
    assert.deepEqual(one.clock, [{ deviceId: 'tablet81', revision: 1 }]);
    const two = (await store.cases.get(dict.id, G(2)))!;
    assert.equal(two.partialSave?.mode, 'add');
    assert.equal(two.partialSave?.field?.name, 'P4');
    assert.equal((await store.cases.get(dict.id, G(3)))!.deleted, true);

    const conn = await openCsweb(f.url, undefined);
    try {
      const v = await verifyCsweb(store, conn, { timeZone: 'Africa/Nairobi' });
      assert.equal(v.source.schemaVersion, 8);
      assert.deepEqual(
        v.dictionaries.map((d) => [d.name, d.csweb.cases, d.csweb.notes, d.differences]),
        [['SIMPLECAPI_DICT', 3, 1, []]],
      );
      assert.equal(v.same, true);
      // Either name selects the dictionary, as either names it in an 8.1 URL.
      const bySync = await verifyCsweb(store, conn, { timeZone: 'UTC', dictionaries: [SYNC_NAME] });
      assert.deepEqual(
        bySync.dictionaries.map((d) => d.name),
        ['SIMPLECAPI_DICT'],
      );
      // A case changed in sds alone is a difference verify names.
      await f.upload(SYNC_NAME, [{ guid: G(4), caseids: '001004', v3: v3(4, 'Late') }]);
      const after = await verifyCsweb(store, conn, { timeZone: 'Africa/Nairobi' });
      assert.equal(after.same, false);
      assert.ok(after.dictionaries[0]!.differences.some((d) => /cases: 4 in CSWeb, 3 in sds/.test(d)));
    } finally {
      await conn.end();
    }
    // A second run takes only the new case.
    const again = await run(f, store);
    assert.deepEqual(
      again.dictionaries.map((d) => [d.dictionary, d.read, d.written]),
      [['unchanged', 1, 1]],
    );
  });
});

test('8.1 users keep their uuid, which a CSPro 8.1 tablet is told at login; roles and per-dictionary rights are read', async () => {
  await with81(async (f, store) => {
    await seed(f);
    const hash = await phpBcrypt(PASSWORD, 4);
    const uuids = {
      field: 'a3c1f0e2-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
      dev: '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
      sup: 'b2b2b2b2-1111-4222-8333-444455556666',
    };
    await addCswebUser(f.conn, { username: 'field01', password: hash, role: 1, uuid: uuids.field });
    await addCswebUser(f.conn, { username: 'devel01', password: hash, role: 3, uuid: uuids.dev });
    const [d] = await f.conn.query<import('mysql2').RowDataPacket[]>('SELECT id FROM cspro_dictionaries WHERE name = ?', [SYNC_NAME]);
    // A supervisor role: reports, data read by default; on this dictionary nothing (data.none).
    const sup = await addCswebRole(f.conn, 'Supervisor', [2, 41], [{ dictionaryId: d[0]!.id as number, permissionId: 6 }]);
    await addCswebUser(f.conn, { username: 'super01', password: hash, role: sup, uuid: uuids.sup });

    const report = await run(f, store);
    assert.deepEqual(report.users, { added: 3, updated: 0, unchanged: 0, skipped: 0 });
    for (const [name, uuid] of [
      ['field01', uuids.field],
      ['devel01', uuids.dev],
      ['super01', uuids.sup],
    ] as const) {
      assert.equal((await store.users.find(name))!.uuid, uuid, `${name} keeps CSWeb 8.1's uuid`);
    }
    assert.equal((await store.users.find('field01'))!.role, 'Standard User');
    assert.equal((await store.users.find('devel01'))!.role, 'Developer', "CSWeb 8.1's Developer is sds's");
    assert.equal((await store.users.find('super01'))!.role, 'Supervisor', 'a custom role comes across as itself');
    // The custom role with its defaults and its row: nothing on this dictionary, as in CSWeb.
    const supervisor = await store.roles.rights('Supervisor');
    assert.deepEqual([...supervisor.defaults].sort(), ['data.read', 'reports.read']);
    assert.deepEqual(supervisor.dictionaries, [{ dictionary: 'SIMPLECAPI_DICT', rights: ['data.none'] }]);

    // The roles, by CSWeb 8.1's names, for sds's own rights.
    const roles = report.rights81!.roles;
    assert.deepEqual(
      roles.map((r) => r.name),
      ['Standard User', 'Administrator', 'Developer', 'Supervisor'],
    );
    assert.deepEqual([...roles[2]!.rights].sort(), [
      'apps',
      'data.clear.dashboard',
      'data.read',
      'data.write',
      'dictionaries',
      'files',
      'login',
      'messages',
      'paradata',
      'reports',
      'settings',
      'users',
    ]);
    assert.deepEqual(roles[3]!.dictionaries, [{ dictionary: 'SIMPLECAPI_DICT', rights: ['data.none'] }]);
    // Kept exactly: no line says a role was widened or narrowed.
    const lines = report.entries.filter((e) => e.code === 'CSWEB_ROLE_WIDENED' || e.code === 'CSWEB_ROLE_NARROWED');
    assert.deepEqual(lines, []);

    // A CSPro 8.1 tablet logs in to sds and is told the id CSWeb 8.1 told it, then downloads by the syncable name.
    const server = await startTestServer({ seed: async (s) => void (await run(f, s)) });
    try {
      const tablet = new CsproClient(server.base, '8.1.0', 'tablet81');
      await tablet.connect('field01', PASSWORD);
      assert.deepEqual(tablet.user, { id: uuids.field, roleName: 'Standard User' });
      const got = await tablet.syncGet(SYNC_NAME, 100);
      assert.deepEqual(got.cases.map((c) => c.uuid).sort(), [G(1), G(2), G(3)]);
    } finally {
      await server.close();
    }
  });
});

test('8.1 messages are imported once: a rerun takes only the new ones', async () => {
  await with81(async (f, store) => {
    await f.addMessage({
      username: 'field01',
      device: 'tablet81',
      name: 'gps',
      value: '{"lat":-1.28,"lon":36.82}',
      createdTime: '2025-03-01 08:00:00',
    });
    await f.addMessage({ username: 'field01', device: 'tablet81', name: 'done', value: '"all visited"' });
    await f.addMessage({ username: 'field02', device: 'tablet82', name: 'ping', value: null });
    const first = await run(f, store);
    assert.deepEqual(first.messages, { imported: 3 });
    const second = await run(f, store);
    assert.deepEqual(second.messages, { imported: 0 });
    await f.addMessage({ username: 'field02', device: 'tablet82', name: 'late', value: '7' });
    const third = await run(f, store);
    assert.deepEqual(third.messages, { imported: 1 });

    const list = await listSyncMessages(store, {});
    assert.equal(list.total, 4);
    const byName = new Map(list.data.map((m) => [m.name, m]));
    assert.deepEqual(byName.get('gps')!.value, { lat: -1.28, lon: 36.82 });
    assert.equal(byName.get('gps')!.device, 'tablet81');
    assert.equal(byName.get('gps')!.username, 'field01');
    assert.equal(byName.get('done')!.value, 'all visited');
    assert.equal(byName.get('ping')!.value, null);
    assert.equal(byName.get('late')!.value, 7);
    assert.match(byName.get('gps')!.received_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});

test('an 8.1 database missing an 8.1 column is refused naming it; schema version 9 is refused', async () => {
  await with81(async (f, store) => {
    await f.conn.query("UPDATE cspro_config SET value = '9' WHERE name = 'schema_version'");
    const conn = await openCsweb(f.url, undefined);
    try {
      await assert.rejects(
        importFromCsweb(store, conn, { timeZone: 'UTC' }),
        (e: AppError) =>
          e.code === 'CSWEB_SCHEMA_UNKNOWN' && /version 9; sds knows versions 7 \(CSWeb 8\.0\) and 8 \(CSWeb 8\.1\)/.test(e.message),
      );
      await f.conn.query("UPDATE cspro_config SET value = '8' WHERE name = 'schema_version'");
      await f.conn.query('ALTER TABLE cspro_users DROP COLUMN uuid');
      await assert.rejects(
        importFromCsweb(store, conn, { timeZone: 'UTC' }),
        (e: AppError) => e.code === 'CSWEB_SCHEMA_UNKNOWN' && (e.details.missing as string[]).includes('cspro_users.uuid'),
      );
      assert.equal(await store.settings.get('csweb_source'), undefined, 'nothing was written');
    } finally {
      await conn.end();
    }
  });
});
