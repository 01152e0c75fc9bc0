/**
 * `sds csweb import` and `verify` of a CSWeb 8.1 database as a user runs them (the real CLI as a
 * subprocess, a CSWeb 8.1-shaped MariaDB database): the table, the messages line, the syncable
 * name in `sds dict list`, the kept uuid in `sds users list`, and verify agreeing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { runCli, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { createCswebFixture } from '../../helpers/csweb-fixture.js';
import { addCswebUser, phpBcrypt } from '../../helpers/csweb-users-fixture.js';

const SIMPLE = readFileSync(fixture('simple-capi.dcf'), 'utf8');
const G = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const UUID = 'c0ffee00-1234-4abc-8def-0123456789ab';

const v3 = (hh: number) => ({
  SIMPLECAPI_QUEST: { CLUSTER: { code: 1 }, HHNO: { code: hh }, POPULATION_REC: [{ P1: { code: `P${hh}` } }] },
  clock: [{ deviceId: 'tablet81', revision: 1 }],
});

test('sds csweb import and verify of a CSWeb 8.1 database: syncable name, uuid, messages once', async () => {
  const f = await createCswebFixture({ release: '8.1' });
  const home = await tempHome();
  try {
    await f.addDictionary('SIMPLECAPI_DICT', 'simpleCAPI', SIMPLE, 'HH_2025');
    await f.upload('HH_2025', [
      { guid: G(1), caseids: '001001', v3: v3(1) },
      { guid: G(2), caseids: '001002', v3: v3(2) },
    ]);
    await addCswebUser(f.conn, { username: 'field01', password: await phpBcrypt('field-password-1', 4), role: 1, uuid: UUID });
    await f.addMessage({ username: 'field01', device: 'tablet81', name: 'hello', value: '"there"' });

    const r = runCli(home.root, ['csweb', 'import', '--from', f.url, '--timezone', 'UTC']);
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, /SIMPLECAPI_DICT\s+simpleCAPI\s+created\s+2\s+2\s+0\s+0/);
    assert.match(r.stdout, /accounts: 1 added/);
    assert.match(r.stdout, /messages: 1 imported/);

    const dicts = runCli(home.root, ['dict', 'list', '--json']).json<{ name: string; dictionaryName: string }[]>();
    assert.deepEqual(
      dicts.map((d) => [d.name, d.dictionaryName]),
      [['HH_2025', 'SIMPLECAPI_DICT']],
    );
    const users = runCli(home.root, ['users', 'list', '--json']).json<{ username: string; id: string }[]>();
    assert.equal(users.find((u) => u.username === 'field01')?.id, UUID);

    const again = runCli(home.root, ['csweb', 'import', '--from', f.url, '--timezone', 'UTC', '--json']);
    assert.equal(again.code, 0, show(again));
    assert.deepEqual(again.json<{ messages: unknown }>().messages, { imported: 0 });

    const verify = runCli(home.root, ['csweb', 'verify', '--from', f.url, '--timezone', 'UTC', '--dictionary', 'HH_2025']);
    assert.equal(verify.code, 0, show(verify));
  } finally {
    await home.cleanup();
    await f.drop();
  }
});
