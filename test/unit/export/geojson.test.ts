/**
 * The GeoJSON export's pure parts (docs/export.md#geojson): the GPS items checked against the
 * dictionary, the plan of points and properties, which cells are coordinates, and the file's text
 * (parsed back as JSON).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { AppError } from '../../../src/shared/errors.js';
import { gpsItems } from '../../../src/export/geojson/gps-items.js';
import { planGeoJson } from '../../../src/export/geojson/geojson-plan.js';
import { caseFeatures, coordinate } from '../../../src/export/geojson/features.js';
import { GeoJsonWriter } from '../../../src/export/geojson/writer.js';
import { GPS_LABEL, writeGpsFixture } from '../../helpers/gps-fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'sds-geojson-'));
const dict = parseDictionary(readFileSync(writeGpsFixture(dir).dcf), { file: 'gps.dcf' });
rmSync(dir, { recursive: true, force: true });

function refused(fn: () => unknown, code: string, message: RegExp): void {
  assert.throws(fn, (e: unknown) => e instanceof AppError && e.code === code && message.test(e.message));
}

test('GPS items: numeric, one value each, on one record; any case; named as the dictionary spells them', () => {
  const g = gpsItems(dict, 'lat', 'Lon');
  assert.equal(g.latitude.item.name, 'LAT');
  assert.equal(g.longitude.item.name, 'LON');
  assert.equal(g.latitude.record?.name, 'HOUSEHOLD');
  refused(() => gpsItems(dict, 'NOPE', 'LON'), 'GPS_ITEM_INVALID', /latitude item NOPE is not an item of the dictionary GPS_DICT/);
  refused(() => gpsItems(dict, 'LAT', 'NAME'), 'GPS_ITEM_INVALID', /longitude item NAME is not numeric/);
  refused(() => gpsItems(dict, 'VISITS', 'LON'), 'GPS_ITEM_INVALID', /latitude item VISITS repeats/);
  refused(() => gpsItems(dict, 'LAT', 'PLOT_LON'), 'GPS_ITEM_INVALID', /record HOUSEHOLD.*record PLOT.*not on the same record/);
  refused(() => gpsItems(dict, 'LAT', 'lat'), 'GPS_ITEM_INVALID', /both the item LAT/);
  refused(() => gpsItems(dict, 'HHID', 'LON'), 'GPS_ITEM_INVALID', /the id items of level 1.*not on the same record/);
});

test('plan: a record once per case gives a point per case; a repeating one a point per occurrence', () => {
  const perCase = planGeoJson(dict, GPS_LABEL, { latitude: 'LAT', longitude: 'LON', items: ['TENURE', 'visits', 'hhid'] });
  assert.equal(perCase.perCase, true);
  assert.equal(perCase.name, 'gps');
  assert.equal(perCase.exportPlan.tables[perCase.pointTable]!.table.name, 'gps_household');
  assert.deepEqual(
    perCase.properties.map((p) => p.name),
    ['case_id', 'hhid', 'tenure', 'visits_1', 'visits_2'],
    'an id item chosen again is one property',
  );
  const perPlot = planGeoJson(dict, GPS_LABEL, { latitude: 'PLOT_LAT', longitude: 'PLOT_LON', items: ['CROP', 'NAME'], ids: false });
  assert.equal(perPlot.perCase, false);
  assert.deepEqual(
    perPlot.properties.map((p) => p.name),
    ['case_id', 'occ', 'crop', 'name'],
  );
  refused(
    () => planGeoJson(dict, GPS_LABEL, { latitude: 'LAT', longitude: 'LON', items: ['CROP'] }),
    'GEOJSON_ITEM_INVALID',
    /item CROP \(record PLOT\) may take several values in a case, and the points come from record HOUSEHOLD/,
  );
  refused(() => planGeoJson(dict, GPS_LABEL, { latitude: 'LAT', longitude: 'LON', items: ['X'] }), 'GEOJSON_ITEM_INVALID', /item X is not/);
  const deleted = planGeoJson(dict, GPS_LABEL, { latitude: 'LAT', longitude: 'LON', includeDeleted: true });
  assert.deepEqual(
    deleted.properties.map((p) => p.name),
    ['case_id', 'hhid', 'deleted'],
  );
});

test('coordinates: blank, special, not a number or out of range is none; 0 and the limits are kept', () => {
  const plan = planGeoJson(dict, GPS_LABEL, { latitude: 'LAT', longitude: 'LON' });
  const lat = plan.latitude;
  assert.deepEqual([...lat.specials], [88.888888]);
  assert.equal(coordinate(null, lat, 'latitude'), undefined);
  assert.equal(coordinate(88.888888, lat, 'latitude'), undefined);
  assert.equal(coordinate(90.000001, lat, 'latitude'), undefined);
  assert.equal(coordinate(-90.5, lat, 'latitude'), undefined);
  assert.equal(coordinate('abc', lat, 'latitude'), undefined);
  assert.equal(coordinate(true, lat, 'latitude'), undefined);
  assert.equal(coordinate(0, lat, 'latitude'), 0);
  assert.equal(coordinate(-90, lat, 'latitude'), -90);
  assert.equal(coordinate('12.5', lat, 'latitude'), 12.5);
  assert.equal(coordinate(180, plan.longitude, 'longitude'), 180);
  assert.equal(coordinate(180.5, plan.longitude, 'longitude'), undefined);
  assert.equal(coordinate(95, plan.longitude, 'longitude'), 95, 'a longitude may pass 90');
});

test('features of a case: lon, lat order; labels; a case without the point row counts once', () => {
  const plan = planGeoJson(dict, GPS_LABEL, { latitude: 'LAT', longitude: 'LON', items: ['TENURE'], labels: 'labels' });
  const main = plan.exportPlan.tables.findIndex((t) => t.kind === 'main');
  const cols = plan.exportPlan.tables[plan.pointTable]!.table.columns.map((c) => c.name);
  const row = (values: Record<string, unknown>) => cols.map((c) => (values[c] ?? null) as never);
  const mainRow = ['guid-1', '0001', '', 1, false, 1, 't', 't'] as never[];
  const one = caseFeatures(
    plan,
    new Map([
      [main, [mainRow]],
      [plan.pointTable, [row({ case_id: 'guid-1', hhid: 1, lat: 12.5, lon: -3.25, tenure: 2 })]],
    ]),
  );
  assert.equal(one.withoutCoordinates, 0);
  assert.deepEqual(one.features, [
    {
      coordinates: [-3.25, 12.5],
      properties: [
        ['case_id', 'guid-1'],
        ['hhid', 1],
        ['tenure', 'Rented'],
      ],
    },
  ]);
  assert.deepEqual(caseFeatures(plan, new Map([[main, [mainRow]]])), { features: [], withoutCoordinates: 1 });
  const special = caseFeatures(plan, new Map([[plan.pointTable, [row({ lat: 88.888888, lon: 1 })]]]));
  assert.deepEqual(special, { features: [], withoutCoordinates: 1 });
});

test('the writer: one FeatureCollection, streamed in chunks, its summary after the features', async () => {
  const chunks: Buffer[] = [];
  const w = new GeoJsonWriter({ write: async (c) => void chunks.push(Buffer.from(c)) }, 'gps');
  const n = 5000;
  for (let i = 0; i < n; i++)
    await w.write({
      coordinates: [i / 100, -i / 1000],
      properties: [
        ['k', `v"${i}`],
        ['n', null],
      ],
    });
  const chunksBeforeClose = chunks.length;
  await w.close({
    dictionary: 'D',
    latitude: 'LAT',
    longitude: 'LON',
    cases: n,
    features: n,
    without_coordinates: 0,
    skipped_cases: 0,
    warnings: 0,
  });
  assert.ok(chunksBeforeClose >= 2, 'written as it goes, not held whole');
  const doc = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  assert.equal(doc.type, 'FeatureCollection');
  assert.equal(doc.name, 'gps');
  assert.equal(doc.features.length, n);
  assert.deepEqual(doc.features[7], {
    type: 'Feature',
    geometry: { type: 'Point', coordinates: [0.07, -0.007] },
    properties: { k: 'v"7', n: null },
  });
  assert.equal(doc.sds.features, n);
  const empty: Buffer[] = [];
  const e = new GeoJsonWriter({ write: async (c) => void empty.push(Buffer.from(c)) }, 'x');
  await e.close({
    dictionary: 'D',
    latitude: 'A',
    longitude: 'B',
    cases: 0,
    features: 0,
    without_coordinates: 0,
    skipped_cases: 0,
    warnings: 0,
  });
  assert.deepEqual(JSON.parse(Buffer.concat(empty).toString('utf8')).features, []);
});

test('plan of a two-level dictionary: points per level-2 record occurrence, with the ids of both levels', () => {
  const two = parseDictionary(readFileSync(new URL('../../../fixtures/cspro/two-level.text.dcf', import.meta.url)), {
    file: 'two-level.text.dcf',
  });
  const persons = planGeoJson(two, 'tl', { latitude: 'SEX', longitude: 'AGE', items: ['house_number', 'ROOF', 'LINE'] });
  assert.equal(persons.perCase, false);
  assert.equal(persons.exportPlan.tables[persons.pointTable]!.table.name, 'tl_pop_recc');
  assert.deepEqual(
    persons.properties.map((p) => p.name),
    ['case_id', 'prov', 'dist', 'village', 'ea', 'build', 'house_number', 'level_2_occ', 'occ', 'roof', 'line'],
  );
  assert.deepEqual(
    persons.exportPlan.tables.map((t) => t.table.name),
    ['tl_cases', 'tl_build_rec', 'tl_pop_recc'],
    'an id item of the points’ table comes from it: no level table is read for it',
  );
  refused(
    () => planGeoJson(two, 'tl', { latitude: 'SEX', longitude: 'AGE', items: ['TELEPHONE'] }),
    'GEOJSON_ITEM_INVALID',
    /TELEPHONE \(record HOUSE_REC\) may take several values/,
  );
  const buildings = planGeoJson(two, 'tl', { latitude: 'PROV', longitude: 'DIST' });
  assert.equal(buildings.perCase, true, 'level-1 id items: one point per case');
  assert.equal(buildings.exportPlan.tables[buildings.pointTable]!.kind, 'main');
});

test('--labels both: the code, then a `_label` property of its label (null where it has none)', () => {
  const plan = planGeoJson(dict, GPS_LABEL, { latitude: 'LAT', longitude: 'LON', items: ['TENURE', 'NAME'], labels: 'both' });
  assert.deepEqual(
    plan.properties.map((p) => p.name),
    ['case_id', 'hhid', 'tenure', 'tenure_label', 'name'],
  );
  const cols = plan.exportPlan.tables[plan.pointTable]!.table.columns.map((c) => c.name);
  const row = (values: Record<string, unknown>) => cols.map((c) => (values[c] ?? null) as never);
  const props = (tenure: unknown) =>
    caseFeatures(plan, new Map([[plan.pointTable, [row({ lat: 1, lon: 2, tenure })]]])).features[0]!.properties.filter(([k]) =>
      k.startsWith('tenure'),
    );
  assert.deepEqual(props(1), [
    ['tenure', 1],
    ['tenure_label', 'Owned'],
  ]);
  assert.deepEqual(props(7), [
    ['tenure', 7],
    ['tenure_label', null],
  ]);
  assert.deepEqual(props(null), [
    ['tenure', null],
    ['tenure_label', null],
  ]);
});
