/** The pure rebuild planner: what the next incremental breakout drops and creates, and why. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { planBreakout } from '../../../src/breakout/plan.js';
import { commonPrefix, pendingRebuild } from '../../../src/breakout/table-rebuild.js';
import { fixture } from '../../helpers/temp-home.js';

const source = readFileSync(fixture('popstan-census.json.dcf'), 'utf8');
const model = parseDictionary(Buffer.from(source));
const limits = { maxIdentifierLength: 63 };
const recorded = (label: string) => {
  const p = planBreakout(model, label, limits);
  return { structureHash: p.structureHash, tables: p.tables.map((t) => t.name) };
};

test('nothing recorded, or the same plan: no rebuild', () => {
  const plan = planBreakout(model, 'popstan', limits);
  assert.equal(pendingRebuild(undefined, plan), null);
  assert.equal(pendingRebuild(recorded('popstan'), plan), null);
});

test('a new label drops the recorded tables and creates them under the new prefix', () => {
  const r = pendingRebuild(recorded('popstan'), planBreakout(model, 'census2', limits));
  assert.ok(r);
  assert.equal(r.reason, 'label');
  assert.equal(r.detail, 'the label changed: table prefix popstan_ becomes census2_');
  assert.deepEqual(r.drop, [
    'popstan_cases',
    'popstan_person',
    'popstan_housing',
    'popstan_notes',
    'popstan_cspro_jobs',
    'popstan_value_sets',
    'popstan_items',
  ]);
  assert.deepEqual(r.create, [
    'census2_cases',
    'census2_person',
    'census2_housing',
    'census2_notes',
    'census2_cspro_jobs',
    'census2_value_sets',
    'census2_items',
  ]);
});

test('a record that gained an item rebuilds in place; a new record is named', () => {
  const dcf = JSON.parse(source);
  const housing = dcf.levels[0].records.find((x: { name: string }) => x.name === 'HOUSING');
  housing.items.push({ name: 'H14_SOLAR', labels: [{ text: 'Solar' }], contentType: 'numeric', length: 1, zeroFill: true });
  const gained = pendingRebuild(recorded('popstan'), planBreakout(parseDictionary(Buffer.from(JSON.stringify(dcf))), 'popstan', limits));
  assert.ok(gained);
  assert.equal(gained.reason, 'structure');
  assert.match(gained.detail, /^the dictionary's structure changed/);
  assert.deepEqual(gained.drop, gained.create);

  const withRecord = JSON.parse(source);
  const copy = {
    ...structuredClone(withRecord.levels[0].records.find((x: { name: string }) => x.name === 'HOUSING')),
    name: 'ASSETS',
    recordType: 'Z',
  };
  copy.items = copy.items.map((i: { name: string }) => ({ ...i, name: `A_${i.name}`, valueSets: undefined }));
  withRecord.levels[0].records.push(copy);
  const added = pendingRebuild(
    recorded('popstan'),
    planBreakout(parseDictionary(Buffer.from(JSON.stringify(withRecord))), 'popstan', limits),
  );
  assert.ok(added);
  assert.equal(added.reason, 'structure');
  assert.match(added.detail, /new tables popstan_assets/);
});

test('commonPrefix cuts after the last _ shared by all names', () => {
  assert.equal(commonPrefix(['census_cases', 'census_cspro_jobs', 'census_notes']), 'census_');
  assert.equal(commonPrefix(['my_census_cases', 'my_census_notes']), 'my_census_');
  assert.equal(commonPrefix([]), '');
});
