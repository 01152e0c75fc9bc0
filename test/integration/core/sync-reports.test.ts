/**
 * The supervision reports over a real store, on SQLite and on PostgreSQL
 * (docs/supervision.md#sync-history-and-reports): cases imported from a .dat file, one soft-deleted
 * through the core, a sync history recorded through the store and dated, area names from a CSV;
 * every count exact, every filter and page, the devices-seen figure and the refusals.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importCases } from '../../../src/core/cases/import/import-cases.js';
import { deleteCase } from '../../../src/core/cases/index.js';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { devicesSeen, listSyncHistory, noteAppVersion, storeAreaNames, syncReport } from '../../../src/core/reports/index.js';
import type { SyncReport } from '../../../src/core/reports/index.js';
import { AppError } from '../../../src/shared/errors.js';
import type { Store } from '../../../src/store/open-store.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';
import { storeSql } from '../../helpers/temp-home.js';
import { DELETED_KEY, HISTORY, recordHistory, REP_DCF, writeReportFiles } from '../../helpers/report-fixture.js';

const NOW = Date.parse('2025-03-05T12:00:00Z');

/** The fixture survey in `store`: REP_DICT with its cases (one deleted), OTHER_DICT empty, the history; its row ids. */
async function survey(store: Store): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'sds-reports-'));
  try {
    const files = writeReportFiles(dir);
    const rep = await uploadDictionary(store, { source: Buffer.from(REP_DCF), label: 'rep' });
    const other = await uploadDictionary(store, {
      source: Buffer.from(REP_DCF.replace('Name=REP_DICT', 'Name=OTHER_DICT')),
      label: 'other',
    });
    const imported = await importCases(store, rep.name, [files.dat]);
    assert.equal(imported.files[0]!.inserted, 6);
    const [row] = await storeSql(store, 'SELECT guid FROM cases WHERE case_key = ?', [DELETED_KEY]);
    await deleteCase(store, 'REP_DICT', String(row!.guid));
    const ids = Object.fromEntries((await storeSql(store, 'SELECT id, name FROM dictionaries')).map((d) => [String(d.name), Number(d.id)]));
    assert.deepEqual(Object.keys(ids).sort(), [other.name, rep.name].sort());
    // The import and the delete are not syncs: only what recordHistory records is in the history.
    await storeSql(store, 'DELETE FROM sync_history');
    return await recordHistory(store, ids);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows = (r: SyncReport) => r.rows as unknown as Record<string, unknown>[];

testOnBothStores('sync history: every filter, newest first, both pagings', async (store) => {
  const ids = await survey(store);
  const all = await listSyncHistory(store);
  assert.equal(all.total, 5);
  assert.deepEqual(
    all.data.map((h) => h.id),
    [...ids].reverse(),
  );
  assert.deepEqual(all.data[1], {
    id: ids[3],
    dictionary: 'REP_DICT',
    device: 'tablet-2',
    username: 'ana',
    direction: 'up',
    revision: 103,
    cases: 4,
    universe: '',
    created_at: HISTORY[3]![5],
  });
  assert.equal(all.next_cursor, null);
  const idsOf = async (o: Parameters<typeof listSyncHistory>[1]) => (await listSyncHistory(store, o)).data.map((h) => h.id);
  assert.deepEqual(await idsOf({ dictionary: 'REP_DICT' }), [ids[3], ids[2], ids[1], ids[0]]);
  assert.deepEqual(await idsOf({ user: 'ana' }), [ids[3], ids[1], ids[0]]);
  assert.deepEqual(await idsOf({ device: 'tablet-2', direction: 'up' }), [ids[3], ids[2]]);
  assert.deepEqual(await idsOf({ direction: 'down' }), [ids[4], ids[1]]);
  assert.deepEqual(await idsOf({ since: '2025-03-02', until: '2025-03-03' }), [ids[2]], 'since inclusive, until exclusive');
  assert.deepEqual(await idsOf({ since: '2025-03-01T09:00:00Z' }), [ids[4], ids[3], ids[2], ids[1]]);
  assert.deepEqual(await idsOf({ user: 'nobody' }), []);

  const first = await listSyncHistory(store, { limit: '2' });
  assert.deepEqual([first.total, first.limit, first.next_cursor], [5, 2, ids[3]]);
  const second = await listSyncHistory(store, { limit: 2, cursor: first.next_cursor! });
  assert.deepEqual(
    second.data.map((h) => h.id),
    [ids[2], ids[1]],
  );
  assert.equal(second.total, 3, 'the cursor is a filter: what is left');
  const last = await listSyncHistory(store, { limit: 2, cursor: second.next_cursor! });
  assert.deepEqual([last.data.map((h) => h.id), last.next_cursor], [[ids[0]], null]);
  assert.deepEqual(
    (await listSyncHistory(store, { limit: 2, offset: 4 })).data.map((h) => h.id),
    [ids[0]],
  );

  for (const [opts, field] of [
    [{ direction: 'sideways' }, 'direction'],
    [{ since: 'yesterday' }, 'since'],
    [{ limit: '10001' }, 'limit'],
    [{ limit: '0' }, 'limit'],
    [{ cursor: 'x' }, 'cursor'],
    [{ since: '2025-03-02', until: '2025-03-01' }, 'until'],
  ] as const) {
    await assert.rejects(listSyncHistory(store, opts), (e: AppError) => e.code === 'USAGE' && e.details.field === field, field);
  }
  await assert.rejects(listSyncHistory(store, { dictionary: 'NOPE' }), (e: AppError) => e.code === 'DICTIONARY_NOT_FOUND');
});

testOnBothStores('reports by user, device and day: exact totals, last sync, app version, not seen', async (store) => {
  await survey(store);
  await noteAppVersion(store, 'tablet-2', 'CSPro sync client/8.1.0');
  await noteAppVersion(store, 'no-such-device', 'CSPro sync client/8.1.0');
  await noteAppVersion(store, 'tablet-3', 'Mozilla/5.0');

  const byUser = await syncReport(store, { dictionary: 'REP_DICT' }, NOW);
  assert.equal(byUser.by, 'user');
  assert.deepEqual(rows(byUser), [
    {
      user: 'ana',
      uploads: 2,
      cases_uploaded: 7,
      downloads: 1,
      cases_downloaded: 5,
      first_sync: '2025-03-01T08:00:00.000Z',
      last_sync: '2025-03-03T11:00:00.000Z',
      devices: 2,
      last_device: 'tablet-2',
      app_version: '8.1.0',
    },
    {
      user: 'ben',
      uploads: 1,
      cases_uploaded: 2,
      downloads: 0,
      cases_downloaded: 0,
      first_sync: '2025-03-02T10:00:00.000Z',
      last_sync: '2025-03-02T10:00:00.000Z',
      devices: 1,
      last_device: 'tablet-2',
      app_version: '8.1.0',
    },
  ]);
  // Every dictionary: ben's download of OTHER_DICT on tablet-3 (whose client named no CSPro version).
  const ben = rows(await syncReport(store, { by: 'user' }, NOW)).find((r) => r.user === 'ben')!;
  assert.deepEqual([ben.downloads, ben.cases_downloaded, ben.devices, ben.last_device, ben.app_version], [1, 7, 2, 'tablet-3', null]);

  const byDevice = await syncReport(store, { dictionary: 'REP_DICT', by: 'device' }, NOW);
  assert.deepEqual(
    rows(byDevice).map((r) => [
      r.device,
      r.uploads,
      r.cases_uploaded,
      r.downloads,
      r.cases_downloaded,
      r.users,
      r.last_user,
      r.app_version,
    ]),
    [
      ['tablet-1', 1, 3, 1, 5, 1, 'ana', null],
      ['tablet-2', 2, 6, 0, 0, 2, 'ana', '8.1.0'],
    ],
  );
  assert.equal(byDevice.total, 2);
  // A new version replaces the one noted (this process had noted 8.1.0 for the device).
  await noteAppVersion(store, 'tablet-2', 'CSPro sync client/8.2.1');
  const [stored] = await storeSql(store, 'SELECT app_version FROM sync_devices WHERE device_id = ?', ['tablet-2']);
  assert.equal(stored!.app_version, '8.2.1');
  await storeSql(store, 'UPDATE sync_devices SET app_version = ? WHERE device_id = ?', ['8.1.0', 'tablet-2']);

  // Not seen for 3 days before 2025-03-05T12:00: last sync before 2025-03-02T12:00.
  const quiet = await syncReport(store, { by: 'device', notSeen: '3' }, NOW);
  assert.deepEqual([rows(quiet).map((r) => r.device), quiet.total, quiet.not_seen_days], [['tablet-1'], 1, 3]);
  assert.deepEqual(
    rows(await syncReport(store, { by: 'device', notSeen: 1 }, NOW)).map((r) => r.device),
    ['tablet-1', 'tablet-2', 'tablet-3'],
  );
  assert.deepEqual(
    rows(await syncReport(store, { by: 'user', notSeen: 2 }, NOW)).map((r) => r.user),
    ['ana'],
    'ana last synced at 11:00 two days before, ben at 12:00: exactly two days is not more',
  );

  const byDay = await syncReport(store, { dictionary: 'REP_DICT', by: 'day' }, NOW);
  assert.deepEqual(rows(byDay), [
    { day: '2025-03-01', uploads: 1, cases_uploaded: 3, downloads: 1, cases_downloaded: 5, devices: 1, users: 1 },
    { day: '2025-03-02', uploads: 1, cases_uploaded: 2, downloads: 0, cases_downloaded: 0, devices: 1, users: 1 },
    { day: '2025-03-03', uploads: 1, cases_uploaded: 4, downloads: 0, cases_downloaded: 0, devices: 1, users: 1 },
  ]);
  const allDays = await syncReport(store, { by: 'day', since: '2025-03-03', limit: 1 }, NOW);
  assert.deepEqual(
    [allDays.total, rows(allDays)],
    [1, [{ day: '2025-03-03', uploads: 1, cases_uploaded: 4, downloads: 1, cases_downloaded: 7, devices: 2, users: 2 }]],
  );
  const paged = await syncReport(store, { by: 'day', limit: 2, offset: 1 }, NOW);
  assert.deepEqual([paged.total, rows(paged).map((r) => r.day)], [3, ['2025-03-02', '2025-03-03']]);

  for (const [opts, field] of [
    [{ by: 'week' }, 'by'],
    [{ by: 'day', notSeen: 3 }, 'not_seen'],
    [{ notSeen: 0 }, 'not_seen'],
    [{ by: 'ids' }, 'dictionary'],
    [{ by: 'user', ids: 'PROV' }, 'ids'],
    [{ by: 'ids', dictionary: 'REP_DICT', ids: 'PROV', since: '2025-03-01' }, 'since'],
  ] as const) {
    await assert.rejects(syncReport(store, opts, NOW), (e: AppError) => e.code === 'USAGE' && e.details.field === field, field);
  }
});

testOnBothStores('the devices seen in the last 24 hours, per dictionary', async (store) => {
  await survey(store);
  assert.deepEqual(await devicesSeen(store, Date.parse('2025-03-03T20:00:00Z')), { OTHER_DICT: 1, REP_DICT: 1 });
  assert.deepEqual(await devicesSeen(store, Date.parse('2025-03-02T08:30:00Z')), { OTHER_DICT: 1, REP_DICT: 2 });
  assert.deepEqual(await devicesSeen(store, Date.parse('2025-03-10T00:00:00Z')), { OTHER_DICT: 0, REP_DICT: 0 });
});

testOnBothStores('report by ids: live cases per id values, area names by their codes at each level', async (store) => {
  await survey(store);
  const report = await syncReport(store, { dictionary: 'REP_DICT', by: 'ids', ids: 'prov,DIST' }, NOW);
  assert.equal(report.by, 'ids');
  if (report.by !== 'ids') return;
  assert.deepEqual(report.id_items, ['PROV', 'DIST']);
  const plain = (r: SyncReport) => rows(r).map((x) => [x.ids, x.names, x.cases]);
  assert.deepEqual(plain(report), [
    [{ PROV: '01', DIST: '1' }, { PROV: null, DIST: null }, 2],
    [{ PROV: '01', DIST: '2' }, { PROV: null, DIST: null }, 1],
    [{ PROV: '02', DIST: '1' }, { PROV: null, DIST: null }, 2],
  ]);

  const stored = await storeAreaNames(
    store,
    'REP_DICT',
    'prov,dist,name\r\n1,,North\r\n01,2,"Lake, side"\r\n2,,South\r\n02,01,Riverside\r\n',
    true,
  );
  assert.equal(stored.areas, 4);
  assert.deepEqual(plain(await syncReport(store, { dictionary: 'REP_DICT', by: 'ids', ids: ['PROV', 'DIST'] }, NOW)), [
    [{ PROV: '01', DIST: '1' }, { PROV: 'North', DIST: null }, 2],
    [{ PROV: '01', DIST: '2' }, { PROV: 'North', DIST: 'Lake, side' }, 1],
    [{ PROV: '02', DIST: '1' }, { PROV: 'South', DIST: 'Riverside' }, 2],
  ]);
  assert.deepEqual(plain(await syncReport(store, { dictionary: 'REP_DICT', by: 'ids', ids: 'PROV' }, NOW)), [
    [{ PROV: '01' }, { PROV: 'North' }, 3],
    [{ PROV: '02' }, { PROV: 'South' }, 2],
  ]);
  const page = await syncReport(store, { dictionary: 'REP_DICT', by: 'ids', ids: 'DIST,PROV', limit: 1, offset: 1 }, NOW);
  // Codes are looked up level by level in the order the ids are named: (1, 02) is the area 01,2.
  assert.deepEqual([page.total, plain(page)], [3, [[{ DIST: '1', PROV: '02' }, { DIST: 'North', PROV: 'Lake, side' }, 2]]]);

  // A bad file keeps nothing: the names stored before stay.
  await assert.rejects(storeAreaNames(store, 'REP_DICT', '1,,North\n3\n,,Nowhere\n'), (e: AppError) => {
    assert.equal(e.code, 'AREA_NAMES_INVALID');
    assert.deepEqual(e.details.lines, [
      { line: 2, reason: '1 columns where the first line has 3' },
      { line: 3, reason: 'no code' },
    ]);
    return true;
  });
  const [count] = await storeSql(store, 'SELECT count(*) AS n FROM area_names');
  assert.equal(Number(count!.n), 4);
  // Replacing: the new file's names only.
  await storeAreaNames(store, 'REP_DICT', '1,North again\n');
  assert.deepEqual(plain(await syncReport(store, { dictionary: 'REP_DICT', by: 'ids', ids: 'PROV' }, NOW)), [
    [{ PROV: '01' }, { PROV: 'North again' }, 3],
    [{ PROV: '02' }, { PROV: null }, 2],
  ]);

  for (const ids of ['ROOMS', 'PROV,PROV', '']) {
    await assert.rejects(
      syncReport(store, { dictionary: 'REP_DICT', by: 'ids', ids }, NOW),
      (e: AppError) => e.code === 'REPORT_IDS_INVALID',
      ids,
    );
  }
});
