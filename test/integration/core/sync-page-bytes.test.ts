/**
 * A download page is built from the stored text of its cases (docs/sync.md#how-a-page-is-built):
 * on both stores, its bytes are those of the older encoders over the parsed cases (wireCaseJson for
 * the older sync form, v3CasesJson for CSPro 8.1's), for every kind of case an upload or a delete
 * stores, and for rows whose JSON columns were stored in another form (an older version, an import).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { requireDictionary, uploadDictionary } from '../../../src/core/dictionaries/index.js';
import { chunkJson, deleteSyncedCase, downloadCases, uploadCases } from '../../../src/core/sync/sync.js';
import type { StoredCase } from '../../../src/store/cases-repo.js';
import type { Store } from '../../../src/store/open-store.js';
import { wireCaseJson } from '../../../src/sync/case-wire.js';
import { v3CasesJson } from '../../../src/sync/case-json-v3.js';
import type { DownloadRequest } from '../../../src/sync/headers.js';
import { photoDescriptor, simpleCapiWithPhoto } from '../../helpers/csweb-fixture.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';
import { fixture, storeSql } from '../../helpers/temp-home.js';

const DICT = 'SIMPLECAPI_DICT';
const ODD = 'q"b\\s/\b\n\t\u0001\u001f\u007f\u2028é✓😀';
const ids = Array.from({ length: 12 }, () => randomUUID());

async function* batches(values: unknown[]): AsyncGenerator<unknown[]> {
  yield values;
}

const ref = { name: 'P1', levelKey: '', recordOccurrence: 1, itemOccurrence: 0, subitemOccurrence: 0 };

/** Cases in the older sync form (CSPro 8.0), each of another kind. */
function v2Cases(): Record<string, unknown>[] {
  const level = (hh: number, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ id: { CLUSTER: 1, HHNO: hh }, POPULATION_REC: [{ P1: `HEAD ${hh}`, P2: 1, P4: 40 }], ...extra });
  const c = (i: number, extra: Record<string, unknown> = {}) => ({
    id: ids[i],
    caseids: `001${String(i).padStart(3, '0')}`,
    clock: [{ deviceId: 'tablet-80', revision: 1 }],
    'level-1': level(i),
    ...extra,
  });
  return [
    c(0),
    c(1, { label: ODD, verified: true }),
    c(2, { notes: [{ content: ODD, field: ref, operatorId: 'op', modifiedTime: '2024-03-01T10:00:00Z' }] }),
    c(3, { partialSave: { mode: 'modify', field: ref } }),
    c(4, {
      partialSave: { mode: 'add' },
      clock: [
        { deviceId: ODD, revision: 4 },
        { deviceId: 'other', revision: 9 },
      ],
    }),
    c(5, { 'level-1': level(5, { HOUSING_REC: { H3: 1, PHOTO: photoDescriptor(ids[5]!, Buffer.from('photo')) } }) }),
    c(6),
    c(7),
    c(8),
  ];
}

/** Cases in CSPro 8.1's case JSON. */
function v3Cases(): Record<string, unknown>[] {
  const c = (i: number, extra: Record<string, unknown> = {}) => ({
    key: `002${String(i).padStart(3, '0')}`,
    uuid: ids[i],
    SIMPLECAPI_QUEST: { CLUSTER: { code: 2 }, HHNO: { code: i }, POPULATION_REC: [{ P1: { code: `HEAD ${i}` }, P2: { code: 1 } }] },
    clock: [{ deviceId: 'tablet-81', revision: 2 }],
    ...extra,
  });
  return [
    c(9, { caseNote: ODD, notes: [{ text: 'a note', name: 'P1', occurrences: { record: 1, item: 0, subitem: 0 } }] }),
    c(10, { partialSave: { mode: 'verify', name: 'P2' }, verified: true, label: 'eight one' }),
    c(11),
  ];
}

const request = (over: Partial<DownloadRequest>): DownloadRequest => ({
  device: 'tablet-new',
  lastRevision: 0,
  hasLastRevision: false,
  startAfter: '',
  count: 4,
  universe: '',
  excludeRevisions: [],
  ...over,
});

/** Every page of a download from scratch, each with the cases it sent as the store reads them one by one. */
async function pages(store: Store): Promise<{ v2: string; v3: string; cases: StoredCase[] }[]> {
  const dict = (await store.dictionaries.find(DICT))!;
  const out = [];
  let req = request({});
  for (;;) {
    const chunk = await downloadCases(store, DICT, req, 'u');
    const cases = await Promise.all(chunk.cases.map(async (c) => (await store.cases.get(dict.id, c.guid))!));
    out.push({ v2: await chunkJson(store, DICT, chunk, 2), v3: await chunkJson(store, DICT, chunk, 3), cases });
    const last = chunk.cases.at(-1);
    if (chunk.status === 200 || !last) return out;
    req = request({ lastRevision: last.revision, hasLastRevision: true, startAfter: last.guid });
  }
}

testOnBothStores('a download page from stored text sends the older encoders’ bytes, v2 and v3', async (store) => {
  await uploadDictionary(store, { source: Buffer.from(simpleCapiWithPhoto(fixture('simple-capi.dcf'))), label: 'simplecapi' });
  await uploadCases(store, DICT, batches(v2Cases()), { device: 'tablet-80' }, 'u');
  await uploadCases(store, DICT, batches(v3Cases()), { device: 'tablet-81' }, 'u');
  await deleteSyncedCase(store, DICT, ids[6]!, 'tablet-80', 'u');
  // Rows whose JSON columns were stored in other forms than today's writers write.
  const older: [column: string, text: string, id: string][] = [
    ['clock', '[ {"deviceId": 7, "revision": 2, "x": 1} ]', ids[7]!],
    ['clock', '[{"deviceId":"a\\/b\\u00e9","revision":3}]', ids[1]!],
    [
      'notes',
      '[ {"content": "a\\/b \\u00e9", "field": {"name":"P1","levelKey":"","recordOccurrence":1,"itemOccurrence":0,"subitemOccurrence":0}, "operatorId":"", "modifiedTime":""} ]',
      ids[8]!,
    ],
    ['partial_save', 'null', ids[0]!],
    ['partial_save', '{ "mode": "add" }', ids[11]!],
  ];
  for (const [column, text, id] of older) await storeSql(store, `UPDATE cases SET ${column} = ? WHERE guid = ?`, [text, id]);

  const { model } = await requireDictionary(store, DICT);
  const all = await pages(store);
  assert.ok(all.length >= 3, 'several pages');
  assert.equal(all.flatMap((p) => p.cases).length, ids.length);
  for (const p of all) {
    assert.equal(p.v2, `[${p.cases.map(wireCaseJson).join(',')}]`);
    assert.equal(p.v3, v3CasesJson(p.cases, model));
  }
  // The kinds of case above are all there: a sanity check of the fixture, not of the page.
  const sent = all.flatMap((p) => JSON.parse(p.v2) as Record<string, unknown>[]);
  assert.ok(sent.some((c) => c.deleted === true) && sent.some((c) => c.verified === true));
  assert.ok(sent.some((c) => c.partialSave !== undefined) && sent.some((c) => (c.notes as unknown[]).length > 0));
  assert.ok(sent.some((c) => String(c['level-1']).includes('"signature"')));
  assert.deepEqual(sent.find((c) => c.id === ids[7])!.clock, [{ deviceId: '7', revision: 2 }]);
});
