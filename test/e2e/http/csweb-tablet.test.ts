/**
 * THE tablet test of docs/migrating-from-csweb.md#revisions-and-tablets: a CSWeb-shaped database is
 * imported into a home served over real HTTP; a tablet that last synced revision R with CSWeb
 * downloads exactly the cases changed after R, then uploads a case whose clock is concurrent
 * with CSWeb's, which merges by vector clock as it would have on CSWeb.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { importFromCsweb, openCsweb } from '../../../src/core/csweb/index.js';
import { startTestServer } from '../../helpers/http-server.js';
import { SyncDevice } from '../../helpers/sync-client.js';
import { fixture } from '../../helpers/temp-home.js';
import { createCswebFixture } from '../../helpers/csweb-fixture.js';

const SIMPLE = readFileSync(fixture('simple-capi.dcf'), 'utf8');
const G = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const json = (hh: number, name: string) =>
  JSON.stringify({ id: { CLUSTER: 1, HHNO: hh }, POPULATION_REC: [{ P1: name, P2: 1 }], HOUSING_REC: { H3: 1 } });

test('a tablet that synced revision R with CSWeb gets exactly the cases changed after R from sds', async () => {
  const f = await createCswebFixture();
  try {
    await f.addDictionary('SIMPLECAPI_DICT', 'simpleCAPI', SIMPLE);
    const tablet = 'ta8b1e7000000001';
    const other = 'c0ffee0000000002';
    await f.upload(
      'SIMPLECAPI_DICT',
      [1, 2, 3].map((n) => ({ guid: G(n), caseids: `00100${n}`, level1: json(n, `first ${n}`) })),
      other,
    );
    // The tablet's last sync with CSWeb saw everything up to here.
    const r = await f.upload(
      'SIMPLECAPI_DICT',
      [{ guid: G(4), caseids: '001004', level1: json(4, 'tablet'), clock: [{ deviceId: tablet, revision: 1 }] }],
      tablet,
    );
    // Changes after R, made by other devices while the tablet was away.
    await f.upload(
      'SIMPLECAPI_DICT',
      [
        { guid: G(2), caseids: '001002', level1: json(2, 'changed'), clock: [{ deviceId: other, revision: 2 }] },
        { guid: G(5), caseids: '001005', level1: json(5, 'new') },
      ],
      other,
    );
    const highest = await f.upload(
      'SIMPLECAPI_DICT',
      [{ guid: G(3), caseids: '001003', level1: json(3, 'first 3'), deleted: true }],
      other,
    );

    const ts = await startTestServer({
      seed: async (store) => {
        const conn = await openCsweb(f.url, undefined);
        try {
          const report = await importFromCsweb(store, conn, { timeZone: 'UTC' });
          assert.equal(report.total.failed, 0);
        } finally {
          await conn.end();
        }
      },
    });
    try {
      const device = new SyncDevice(ts, tablet);
      device.lastRevision = r;
      const { cases } = await device.get('SIMPLECAPI_DICT', 100);
      assert.deepEqual(cases.map((c) => c.id).sort(), [G(2), G(3), G(5)]);
      assert.equal(cases.find((c) => c.id === G(3))!.deleted, true);

      // The server answers with CSWeb's device id, so the tablet sees the same server.
      const server = (await (await ts.call('standard', '/api/server')).json()) as { deviceId: string };
      assert.equal(server.deviceId, f.serverDeviceId);

      // An upload concurrent with CSWeb's version of case 2 merges clocks, as CSWeb would.
      const up = await device.put('SIMPLECAPI_DICT', [
        { id: G(2), caseids: '001002', clock: [{ deviceId: tablet, revision: 2 }], 'level-1': json(2, 'from the tablet') },
      ]);
      assert.equal(up.status, 200);
      const revision = Number(up.headers.get('x-csw-current-revision'));
      const stored = (await ts.store.cases.get((await ts.store.dictionaries.find('SIMPLECAPI_DICT'))!.id, G(2)))!;
      assert.ok(revision > highest, `revision ${revision} continues above CSWeb's ${highest}`);
      assert.equal(stored.revision, revision);
      assert.deepEqual(
        [...stored.clock].sort((a, b) => a.deviceId.localeCompare(b.deviceId)),
        [
          { deviceId: other, revision: 2 },
          { deviceId: tablet, revision: 2 },
        ],
      );
      assert.equal(JSON.parse(stored.data).POPULATION_REC[0].P1, 'from the tablet');
    } finally {
      await ts.close();
    }
  } finally {
    await f.drop();
  }
});
