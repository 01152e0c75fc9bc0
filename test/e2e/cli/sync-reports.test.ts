/**
 * `sds sync history`, `sds sync report`, `sds dict area-names` and the older `sds cases
 * sync-history` with the real CLI over a real home (docs/supervision.md#sync-history-and-reports):
 * the survey of test/helpers/report-fixture.ts, uploaded and imported with the CLI, its history
 * recorded through the store and dated; --json read as JSON, --csv read back by Python's csv module.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli as sds, show } from '../../helpers/run-cli.js';
import { storeSql, tempHome, withStore } from '../../helpers/temp-home.js';
import { readCsvFiles } from '../../helpers/export-readback.js';
import { HISTORY, recordHistory, REP_DCF, writeReportFiles } from '../../helpers/report-fixture.js';

const home = await tempHome();
after(() => home.cleanup());
let ids: number[] = [];

function ok(args: string[]) {
  const r = sds(home.root, args);
  assert.equal(r.code, 0, show(r));
  return r;
}

/** Standard output of a --csv command, read by Python's csv module: header first. */
function csvOf(args: string[], name: string): string[][] {
  const file = join(home.root, `${name}.csv`);
  writeFileSync(file, ok(args).stdout);
  return readCsvFiles([file])[file]!;
}

before(async () => {
  const files = writeReportFiles(home.root);
  const otherDcf = join(home.root, 'other.dcf');
  writeFileSync(otherDcf, REP_DCF.replace('Name=REP_DICT', 'Name=OTHER_DICT'));
  ok(['dict', 'upload', files.dcf, '--label', 'rep', '-q']);
  ok(['dict', 'upload', otherDcf, '--label', 'other', '-q']);
  ok(['cases', 'import', 'REP_DICT', files.dat, '-q']);
  ids = await withStore(home, async (store) => {
    await storeSql(store, 'DELETE FROM sync_history');
    const dicts = Object.fromEntries(
      (await storeSql(store, 'SELECT id, name FROM dictionaries')).map((d) => [String(d.name), Number(d.id)]),
    );
    return recordHistory(store, dicts);
  });
});

test('sds sync history: newest first with filters; --json pages with a cursor; --csv reads back', () => {
  const table = ok(['sync', 'history', '--dictionary', 'REP_DICT']);
  const lines = table.stdout.trimEnd().split('\n');
  assert.deepEqual(lines[0]!.split('\t'), ['id', 'time', 'dictionary', 'device', 'user', 'direction', 'revision', 'cases', 'universe']);
  assert.deepEqual(
    lines.slice(1).map((l) => l.split('\t').slice(1, 6)),
    [3, 2, 1, 0].map((i) => {
      const [dict, device, user, dir, , at] = HISTORY[i]!;
      return [at, dict, device, user, dir === 'put' ? 'up' : 'down'];
    }),
  );

  const page = ok(['sync', 'history', '--user', 'ana', '--limit', '2', '--json']).json<{
    total: number;
    next_cursor: number;
    data: { id: number }[];
  }>();
  assert.deepEqual([page.total, page.data.map((h) => h.id), page.next_cursor], [3, [ids[3], ids[1]], ids[1]]);
  const next = ok(['sync', 'history', '--user', 'ana', '--limit', '2', '--cursor', String(page.next_cursor), '--json']).json<{
    data: { id: number }[];
    next_cursor: number | null;
  }>();
  assert.deepEqual([next.data.map((h) => h.id), next.next_cursor], [[ids[0]], null]);
  const noted = ok(['sync', 'history', '--user', 'ana', '--limit', '2']);
  assert.match(noted.stderr, new RegExp(`1 more; for the next page add --cursor ${ids[1]}`));

  const csv = csvOf(['sync', 'history', '--direction', 'down', '--since', '2025-03-01', '--until', '2025-03-04', '--csv'], 'history');
  assert.deepEqual(csv, [
    ['id', 'created_at', 'dictionary', 'device', 'username', 'direction', 'revision', 'cases', 'universe'],
    [String(ids[4]), HISTORY[4]![5], 'OTHER_DICT', 'tablet-3', 'ben', 'down', '104', '7', ''],
    [String(ids[1]), HISTORY[1]![5], 'REP_DICT', 'tablet-1', 'ana', 'down', '101', '5', ''],
  ]);

  const bad = sds(home.root, ['sync', 'history', '--direction', 'sideways']);
  assert.equal(bad.code, 2, show(bad));
  assert.match(bad.stderr, /USAGE: direction must be one of up, down, both/);
  const both = sds(home.root, ['sync', 'history', '--csv', '--json']);
  assert.equal(both.code, 2, show(both));
});

test('sds cases sync-history still lists a dictionary’s history, newest first', () => {
  const r = ok(['cases', 'sync-history', 'REP_DICT', '--json']).json<{ dictionary: string; history: { id: number }[] }>();
  assert.deepEqual([r.dictionary, r.history.map((h) => h.id)], ['REP_DICT', [ids[3], ids[2], ids[1], ids[0]]]);
});

test('sds sync report by user, device and day: --json and --csv agree', () => {
  const users = ok(['sync', 'report', '--dictionary', 'REP_DICT', '--json']).json<{
    by: string;
    total: number;
    rows: Record<string, unknown>[];
  }>();
  assert.deepEqual(
    [users.by, users.total, users.rows.map((r) => [r.user, r.uploads, r.cases_uploaded, r.downloads, r.cases_downloaded])],
    [
      'user',
      2,
      [
        ['ana', 2, 7, 1, 5],
        ['ben', 1, 2, 0, 0],
      ],
    ],
  );

  const devices = csvOf(['sync', 'report', '--dictionary', 'REP_DICT', '--by', 'device', '--csv'], 'devices');
  assert.deepEqual(devices, [
    [
      'device',
      'uploads',
      'cases_uploaded',
      'downloads',
      'cases_downloaded',
      'first_sync',
      'last_sync',
      'users',
      'last_user',
      'app_version',
    ],
    ['tablet-1', '1', '3', '1', '5', HISTORY[0]![5], HISTORY[1]![5], '1', 'ana', ''],
    ['tablet-2', '2', '6', '0', '0', HISTORY[2]![5], HISTORY[3]![5], '2', 'ana', ''],
  ]);

  // Every device's last sync is in March 2025: long before now, so all are "not seen" for 30 days.
  const quiet = ok(['sync', 'report', '--by', 'device', '--not-seen', '30', '--json']).json<{ rows: { device: string }[] }>();
  assert.deepEqual(
    quiet.rows.map((r) => r.device),
    ['tablet-1', 'tablet-2', 'tablet-3'],
  );

  const days = csvOf(['sync', 'report', '--by', 'day', '--since', '2025-03-02', '--csv'], 'days');
  assert.deepEqual(days, [
    ['day', 'uploads', 'cases_uploaded', 'downloads', 'cases_downloaded', 'devices', 'users'],
    ['2025-03-02', '1', '2', '0', '0', '1', '1'],
    ['2025-03-03', '1', '4', '1', '7', '2', '2'],
  ]);
  const bad = sds(home.root, ['sync', 'report', '--by', 'day', '--not-seen', '3']);
  assert.equal(bad.code, 2, show(bad));
  assert.match(bad.stderr, /not_seen applies to a report by user or by device/);
});

test('sds dict area-names, then sync report --by ids names the areas; a bad file is refused whole', () => {
  const areas = join(home.root, 'areas.csv');
  writeFileSync(areas, 'province,district,name\n1,,North\n01,2,"Lake, side"\n2,,South\n');
  const stored = ok(['dict', 'area-names', 'REP_DICT', areas, '--header', '--json']).json<{ areas: number }>();
  assert.equal(stored.areas, 3);

  const csv = csvOf(['sync', 'report', '--dictionary', 'REP_DICT', '--by', 'ids', '--ids', 'PROV,DIST', '--csv'], 'ids');
  assert.deepEqual(csv, [
    ['PROV', 'PROV_name', 'DIST', 'DIST_name', 'cases'],
    ['01', 'North', '1', '', '2'],
    ['01', 'North', '2', 'Lake, side', '1'],
    ['02', 'South', '1', '', '3'],
  ]);

  const bad = join(home.root, 'bad.csv');
  writeFileSync(bad, '1,,North\n1,,Again\n3,x\n');
  const refused = sds(home.root, ['dict', 'area-names', 'REP_DICT', bad]);
  assert.equal(refused.code, 2, show(refused));
  assert.match(
    refused.stderr,
    /AREA_NAMES_INVALID: 2 bad line\(s\).*line 2: the same codes as line 1; line 3: 2 columns where the first line has 3/,
  );
  const unknown = sds(home.root, ['sync', 'report', '--dictionary', 'REP_DICT', '--by', 'ids', '--ids', 'ROOMS']);
  assert.equal(unknown.code, 2, show(unknown));
  assert.match(unknown.stderr, /REPORT_IDS_INVALID: ROOMS is not an id item of REP_DICT \(its id items: PROV, DIST, HH\)/);
});
