/**
 * `sds export --format geojson` and `sds dict set-gps` (docs/export.md#geojson) with the real CLI,
 * every file read back by GDAL's `ogrinfo`: the points of a record once per case (one per case)
 * and of a repeating record (one per occurrence), in lon/lat order, their properties and value
 * labels, the cases without valid coordinates counted in the file and in the summary; the GPS
 * items set once and used, overridden, cleared and audited; the refusals.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync as sds, show, type CliResult } from '../../helpers/run-cli.js';
import { tempHome } from '../../helpers/temp-home.js';
import { GPS_CASES, GPS_DICTIONARY, writeGpsFixture } from '../../helpers/gps-fixture.js';
import { readGeoJsonWithOgr, type OgrLayer } from '../../helpers/read-geojson.js';

const home = await tempHome();
after(() => home.cleanup());

async function ok(args: string[]): Promise<CliResult> {
  const r = await sds(home.root, args);
  assert.equal(r.code, 0, show(r));
  return r;
}

async function refused(args: string[], exit: number, code: string, message?: RegExp): Promise<CliResult> {
  const r = await sds(home.root, args);
  assert.equal(r.code, exit, show(r));
  assert.match(r.stderr, new RegExp(`${code}:`), show(r));
  if (message) assert.match(r.stderr, message, show(r));
  return r;
}

/** A coordinate as the data file types it, valid or not (docs/export.md#geojson). */
function valid(lat: string, lon: string): boolean {
  if (lat.trim() === '' || lon.trim() === '' || lat === '88.888888') return false;
  return Math.abs(Number(lat)) <= 90 && Math.abs(Number(lon)) <= 180;
}

/** The households with valid coordinates, in case-key order (the ids are the keys). */
const HOUSEHOLDS = GPS_CASES.filter((c) => c.household && valid(c.household.lat, c.household.lon)).sort((a, b) => a.id.localeCompare(b.id));
const PLOTS = GPS_CASES.flatMap((c) => c.plots.map((p, i) => ({ id: c.id, occ: i + 1, ...p }))).filter((p) => valid(p.lat, p.lon));

before(async () => {
  const { dcf, dat } = writeGpsFixture(home.root);
  await ok(['dict', 'upload', dcf, '--label', 'gps']);
  await ok(['cases', 'import', GPS_DICTIONARY, dat, '-q']);
});

function layerOf(dir: string): OgrLayer {
  return readGeoJsonWithOgr(join(dir, 'gps.geojson'));
}

describe('one point per case, from a record that occurs once', () => {
  let layer: OgrLayer;
  let result: Record<string, any>;
  const out = join(home.root, 'households');

  before(async () => {
    const r = await ok([
      'export',
      GPS_DICTIONARY,
      '--format',
      'geojson',
      '--out',
      out,
      '--lat',
      'lat',
      '--lon',
      'LON',
      '--item',
      'TENURE,name',
      '--item',
      'visits',
      '--labels',
      'labels',
      '--json',
    ]);
    result = r.json();
    layer = layerOf(out);
  });

  test('GDAL reads a layer of points, one per case with valid coordinates, in case-key order', () => {
    assert.equal(layer.name, 'gps');
    assert.equal(layer.geometry, 'Point');
    assert.equal(layer.featureCount, HOUSEHOLDS.length);
    assert.deepEqual(
      layer.features.map((f) => f.point),
      HOUSEHOLDS.map((c) => [Number(c.household!.lon), Number(c.household!.lat)]),
      'longitude first, then latitude (RFC 7946)',
    );
    assert.ok(
      layer.features.some((f) => f.point![0] === 0 && f.point![1] === 0),
      '0/0 is a valid point',
    );
  });

  test('properties: case_id, the id items, and the items asked, coded ones as their labels', () => {
    const tenure: Record<string, string> = { '1': 'Owned', '2': 'Rented' };
    layer.features.forEach((f, i) => {
      const c = HOUSEHOLDS[i]!;
      assert.deepEqual(Object.keys(f.values), ['case_id', 'hhid', 'tenure', 'name', 'visits_1', 'visits_2']);
      assert.match(f.values.case_id!, /^[0-9a-f-]{36}$/);
      assert.equal(f.values.hhid, String(Number(c.id)));
      assert.equal(f.types.hhid, 'Integer');
      assert.equal(f.values.tenure, tenure[c.household!.tenure]);
      assert.equal(f.values.name, c.household!.name);
      assert.deepEqual(
        [f.values.visits_1, f.values.visits_2],
        c.household!.visits.map((v) => (v === '' ? null : v)),
      );
    });
  });

  test('cases without valid coordinates are counted: in the file, which GDAL keeps, and in --json', () => {
    const left = GPS_CASES.length - HOUSEHOLDS.length;
    assert.equal(left, 4, 'blank, special, out of range, no household record');
    const summary = layer.native.sds as Record<string, unknown>;
    assert.deepEqual(summary, {
      dictionary: GPS_DICTIONARY,
      latitude: 'LAT',
      longitude: 'LON',
      cases: GPS_CASES.length,
      features: HOUSEHOLDS.length,
      without_coordinates: left,
      skipped_cases: 0,
      warnings: 0,
    });
    assert.equal(result.format, 'geojson');
    assert.equal(result.features, HOUSEHOLDS.length);
    assert.equal(result.without_coordinates, left);
    assert.equal(result.cases, GPS_CASES.length);
    assert.deepEqual(
      result.files.map((f: any) => [f.file, f.rows, f.bytes]),
      [['gps.geojson', HOUSEHOLDS.length, readFileSync(join(out, 'gps.geojson')).length]],
    );
  });

  test('the summary line says how many were left out; an existing file is refused, --force replaces it', async () => {
    await refused(
      ['export', GPS_DICTIONARY, '--format', 'geojson', '--out', out, '--lat', 'LAT', '--lon', 'LON'],
      4,
      'EXPORT_FILE_EXISTS',
      /--force/,
    );
    const r = await ok(['export', GPS_DICTIONARY, '--format', 'geojson', '--out', out, '--lat', 'LAT', '--lon', 'LON', '--force']);
    assert.match(
      r.stdout,
      new RegExp(`${HOUSEHOLDS.length} points; ${GPS_CASES.length - HOUSEHOLDS.length} left out without valid coordinates`),
    );
    assert.deepEqual(Object.keys(layerOf(out).features[0]!.values), ['case_id', 'hhid']);
  });
});

test('one point per occurrence of a repeating record, with its occurrence; --no-ids leaves the ids out', async () => {
  const out = join(home.root, 'plots');
  await ok([
    'export',
    GPS_DICTIONARY,
    '--format',
    'geojson',
    '--out',
    out,
    '--lat',
    'PLOT_LAT',
    '--lon',
    'PLOT_LON',
    '--item',
    'CROP,TENURE',
    '--no-ids',
  ]);
  const layer = layerOf(out);
  assert.equal(layer.featureCount, PLOTS.length);
  assert.deepEqual(
    layer.features.map((f) => [f.point, f.values.occ, f.values.crop]),
    PLOTS.map((p) => [[Number(p.lon), Number(p.lat)], String(p.occ), p.crop]),
  );
  const tenureOf = (id: string) => GPS_CASES.find((c) => c.id === id)!.household?.tenure ?? null;
  assert.deepEqual(
    layer.features.map((f) => f.values.tenure),
    PLOTS.map((p) => tenureOf(p.id)),
    'an item of a record once per case: the case’s value, or null when the case lacks the record',
  );
  assert.ok(!('hhid' in layer.features[0]!.values));
  const all = GPS_CASES.flatMap((c) => c.plots).length;
  assert.equal((layer.native.sds as any).without_coordinates, all - PLOTS.length);
});

test('--out - writes the file itself to standard output, the summary to standard error', async () => {
  const r = await ok(['export', GPS_DICTIONARY, '--format', 'geojson', '--out', '-', '--lat', 'LAT', '--lon', 'LON', '--json']);
  const file = join(home.root, 'stdout.geojson');
  writeFileSync(file, r.raw);
  const layer = readGeoJsonWithOgr(file);
  assert.equal(layer.featureCount, HOUSEHOLDS.length);
  const summary = JSON.parse(r.stderr) as Record<string, unknown>;
  assert.equal(summary.folder, '-');
  assert.equal(summary.features, HOUSEHOLDS.length);
});

test('sds dict set-gps: checked, stored, shown, used by the export, overridden by flags, cleared, audited', async () => {
  await refused(
    ['export', GPS_DICTIONARY, '--format', 'geojson', '--out', join(home.root, 'none')],
    2,
    'EXPORT_GPS_UNSET',
    /sds dict set-gps GPS_DICT/,
  );
  await refused(['dict', 'set-gps', GPS_DICTIONARY, '--lat', 'LAT', '--lon', 'PLOT_LON'], 2, 'GPS_ITEM_INVALID', /not on the same record/);
  await refused(['dict', 'set-gps', GPS_DICTIONARY, '--lat', 'NAME', '--lon', 'LON'], 2, 'GPS_ITEM_INVALID', /not numeric/);
  await refused(['dict', 'set-gps', GPS_DICTIONARY, '--lat', 'LAT'], 2, 'USAGE');
  await refused(['dict', 'set-gps', 'NO_SUCH_DICT', '--lat', 'LAT', '--lon', 'LON'], 3, 'DICTIONARY_NOT_FOUND');
  const set = await ok(['dict', 'set-gps', GPS_DICTIONARY, '--lat', 'plot_lat', '--lon', 'plot_lon', '--json']);
  assert.deepEqual(
    { ...set.json<Record<string, unknown>>(), message: '' },
    { dictionary: GPS_DICTIONARY, latitude: 'PLOT_LAT', longitude: 'PLOT_LON', record: 'PLOT', message: '' },
  );
  assert.deepEqual((await ok(['dict', 'show', GPS_DICTIONARY, '--json'])).json().gps, { latitude: 'PLOT_LAT', longitude: 'PLOT_LON' });
  assert.match((await ok(['dict', 'show', GPS_DICTIONARY])).stdout, /gps\s+latitude PLOT_LAT, longitude PLOT_LON/);

  const byDefault = join(home.root, 'set');
  await ok(['export', GPS_DICTIONARY, '--format', 'geojson', '--out', byDefault]);
  assert.equal(layerOf(byDefault).featureCount, PLOTS.length);
  const overridden = join(home.root, 'overridden');
  await ok(['export', GPS_DICTIONARY, '--format', 'geojson', '--out', overridden, '--lat', 'LAT', '--lon', 'LON']);
  assert.equal(layerOf(overridden).featureCount, HOUSEHOLDS.length);

  const cleared = await ok(['dict', 'set-gps', GPS_DICTIONARY, '--clear', '--json']);
  assert.equal(cleared.json().cleared, true);
  assert.equal((await ok(['dict', 'show', GPS_DICTIONARY, '--json'])).json().gps, null);
  await refused(['export', GPS_DICTIONARY, '--format', 'geojson', '--out', join(home.root, 'none')], 2, 'EXPORT_GPS_UNSET');

  const audit = (await ok(['audit', 'list', '--json'])).json<{ action: string; target: string; outcome: string; details: any }[]>();
  const gps = audit.filter((a) => a.action.endsWith('-gps')).reverse();
  assert.deepEqual(
    gps.map((a) => [a.action, a.target, a.outcome]),
    [
      ['dictionaries.set-gps', `dictionary:${GPS_DICTIONARY}`, 'failure'],
      ['dictionaries.set-gps', `dictionary:${GPS_DICTIONARY}`, 'failure'],
      ['dictionaries.set-gps', `dictionary:${GPS_DICTIONARY}`, 'failure'],
      ['dictionaries.set-gps', 'dictionary:NO_SUCH_DICT', 'failure'],
      ['dictionaries.set-gps', `dictionary:${GPS_DICTIONARY}`, 'success'],
      ['dictionaries.clear-gps', `dictionary:${GPS_DICTIONARY}`, 'success'],
    ],
  );
  assert.deepEqual(gps[4]!.details, { latitude: 'PLOT_LAT', longitude: 'PLOT_LON' });
});

test('refusals: items that cannot be points or properties, options of other formats', async () => {
  const out = join(home.root, 'refused');
  const geo = ['export', GPS_DICTIONARY, '--format', 'geojson', '--out', out];
  await refused([...geo, '--lat', 'LAT', '--lon', 'PLOT_LON'], 2, 'GPS_ITEM_INVALID', /not on the same record/);
  await refused([...geo, '--lat', 'VISITS', '--lon', 'LON'], 2, 'GPS_ITEM_INVALID', /repeats/);
  await refused([...geo, '--lat', 'LAT', '--lon', 'LON', '--item', 'CROP'], 2, 'GEOJSON_ITEM_INVALID', /CROP \(record PLOT\)/);
  await refused([...geo, '--lat', 'LAT'], 2, 'USAGE', /--lon/);
  await refused([...geo, '--lat', 'LAT', '--lon', 'LON', '--record', 'PLOT'], 2, 'USAGE');
  await refused(['export', GPS_DICTIONARY, '--format', 'csv', '--out', out, '--lat', 'LAT', '--lon', 'LON'], 2, 'USAGE', /GeoJSON/);
  assert.equal(existsSync(join(out, 'gps.geojson')), false);
});
