/**
 * The syncable name of a CSPro 8.1 JSON dictionary through the real CLI (docs/sync.md#syncable-names):
 * `sds dict upload` stores it, `dict list` shows it beside the dictionary's own name, every command
 * that names a dictionary takes it, a clash and a change of the name of a dictionary with cases are
 * refused (exit 4), and `sds csweb import` keeps the syncable name CSWeb's stored file carries,
 * reporting one that clashes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { createCswebFixture } from '../../helpers/csweb-fixture.js';

const DICT = 'SIMPLECAPI_DICT';
const SYNC = 'HOUSEHOLDS_2025';

/** The simple CAPI dictionary in JSON, with another name or a syncable name as CSPro 8.1 writes it. */
function dictionaryJson(opts: { name?: string; sync?: string } = {}): string {
  const d = JSON.parse(readFileSync(fixture('simple-capi.dcf'), 'utf8')) as Record<string, unknown>;
  if (opts.name) d.name = opts.name;
  if (opts.sync) d.sync = { name: opts.sync };
  return JSON.stringify(d, null, 2);
}

interface ListItem {
  name: string;
  dictionaryName: string;
  caseCount: number;
}

test('sds dict: upload stores the syncable name, list shows both names, every command takes either, clashes exit 4', async () => {
  const home = await tempHome();
  try {
    const file = (name: string, text: string) => {
      const path = join(home.root, name);
      writeFileSync(path, text);
      return path;
    };
    const up = runCli(home.root, ['dict', 'upload', file('households.dcf', dictionaryJson({ sync: SYNC })), '--label', 'hh']);
    assert.equal(up.code, 0, show(up));
    assert.equal(up.stdout.trim(), `Dictionary ${DICT} uploaded (label hh, syncable name ${SYNC})`);

    const list = runCli(home.root, ['dict', 'list', '--json']).json<ListItem[]>();
    assert.deepEqual(
      list.map((d) => [d.name, d.dictionaryName]),
      [[SYNC, DICT]],
    );
    const table = runCli(home.root, ['dict', 'list']);
    assert.match(table.stdout, /^name\s+dictionaryName\s+label/m);
    assert.match(table.stdout, new RegExp(`^${SYNC}\\s+${DICT}\\s+hh\\s`, 'm'));

    // Commands take the syncable name and go on with the dictionary it names.
    const detail = runCli(home.root, ['dict', 'show', SYNC, '--json']).json<{ name: string; sync_name: string }>();
    assert.deepEqual([detail.name, detail.sync_name], [DICT, SYNC]);
    const dat = file('households.dat', ['1001001' + 'MEMBER'.padEnd(30) + '1230 1', '20010011220250101A  '].join('\r\n') + '\r\n');
    const imported = runCli(home.root, ['cases', 'import', SYNC, dat, '--json']);
    assert.equal(imported.code, 0, show(imported));
    assert.equal(imported.json<{ dictionary: string }>().dictionary, DICT);

    // A syncable name that is another dictionary's name (any case), and a name that is another's syncable name.
    for (const [name, text, words] of [
      [
        'other.dcf',
        dictionaryJson({ name: 'OTHER_DICT', sync: 'simplecapi_dict' }),
        `the syncable name simplecapi_dict of dictionary OTHER_DICT is the name of dictionary ${DICT}`,
      ],
      ['clash.dcf', dictionaryJson({ name: SYNC }), `the name of dictionary ${SYNC} is the syncable name of dictionary ${DICT}`],
    ] as const) {
      const r = runCli(home.root, ['dict', 'upload', file(name, text), '--label', 'other']);
      assert.equal(r.code, 4, show(r));
      assert.match(r.stderr, new RegExp(`SYNC_NAME_TAKEN: ${words}`));
    }
    // The dictionary holds a case: its syncable name stays.
    const moved = runCli(home.root, ['dict', 'upload', file('moved.dcf', dictionaryJson({ sync: 'HOUSEHOLDS_2026' })), '--label', 'hh']);
    assert.equal(moved.code, 4, show(moved));
    assert.match(moved.stderr, /SYNC_NAME_LOCKED: dictionary SIMPLECAPI_DICT has the syncable name HOUSEHOLDS_2025 and holds 1 cases/);
    assert.match(moved.stderr, /or delete the dictionary with its cases first \(sds dict delete SIMPLECAPI_DICT --with-cases\)/);
    assert.deepEqual(
      runCli(home.root, ['dict', 'list', '--json'])
        .json<ListItem[]>()
        .map((d) => [d.name, d.dictionaryName, d.caseCount]),
      [[SYNC, DICT, 1]],
    );

    // A breakout named by the syncable name is a job of the dictionary, under its own name.
    const target = join(home.root, 'target.sqlite');
    assert.equal(runCli(home.root, ['target', 'set', SYNC, '--type', 'sqlite', '--file', target]).code, 0);
    const breakout = runCli(home.root, ['breakout', 'start', SYNC, '--wait', '--json']);
    assert.equal(breakout.code, 0, show(breakout));
    assert.deepEqual(breakout.json<{ result: { dictionaries_processed: string[] } }>().result.dictionaries_processed, [DICT]);

    const purged = runCli(home.root, ['dict', 'delete', SYNC, '--with-cases', '--yes', '--json']);
    assert.equal(purged.code, 0, show(purged));
    const reply = purged.json<{ name: string; removed: { breakout_jobs: number; cases: number } }>();
    assert.equal(reply.name, DICT);
    assert.deepEqual([reply.removed.cases, reply.removed.breakout_jobs], [1, 1]);
    assert.deepEqual(runCli(home.root, ['dict', 'list', '--json']).json<unknown[]>(), []);
  } finally {
    await home.cleanup();
  }
});

test('sds csweb import keeps the syncable name of the dictionary CSWeb stored, and reports one that clashes (dictionaries are read by name)', async () => {
  const f = await createCswebFixture();
  const home = await tempHome();
  try {
    await f.addDictionary(DICT, 'simple CAPI', dictionaryJson({ sync: SYNC }));
    await f.addDictionary('ZONES_DICT', 'zones', dictionaryJson({ name: 'ZONES_DICT', sync: 'Households_2025' }));
    const level1 = JSON.stringify({ id: { CLUSTER: 1, HHNO: 1 }, POPULATION_REC: [{ P1: 'HEAD' }] });
    await f.upload(DICT, [{ caseids: '001001', level1 }]);
    await f.upload('ZONES_DICT', [{ caseids: '001001', level1 }]);

    const r = runCli(home.root, ['csweb', 'import', '--from', f.url, '--timezone', 'UTC']);
    assert.equal(r.code, 2, show(r));
    assert.match(
      r.stderr,
      /SYNC_NAME_TAKEN: dictionary ZONES_DICT as CSWeb stored it: the syncable name Households_2025 of dictionary ZONES_DICT is the syncable name of dictionary SIMPLECAPI_DICT; a URL would name both; its cases were not imported/,
    );
    assert.deepEqual(
      runCli(home.root, ['dict', 'list', '--json'])
        .json<ListItem[]>()
        .map((d) => [d.name, d.dictionaryName, d.caseCount]),
      [[SYNC, DICT, 1]],
    );
    const source = runCli(home.root, ['dict', 'show', SYNC, '--json']).json<{ sync_name: string }>();
    assert.equal(source.sync_name, SYNC);
  } finally {
    await home.cleanup();
    await f.drop();
  }
});
