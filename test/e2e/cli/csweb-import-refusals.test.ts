/**
 * What `sds csweb import` and `sds csweb verify` say before they read a case, through the real
 * CLI against a CSWeb-shaped MariaDB database: an older CSWeb schema is named as such (not as the
 * columns that older layout lacks), and a misspelt time zone is unknown (not "required"), with
 * the zone it most likely meant (docs/migrating-from-csweb.md#what-is-checked).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { createCswebFixture } from '../../helpers/csweb-fixture.js';

const SIMPLE = readFileSync(fixture('simple-capi.dcf'), 'utf8');

test('a CSWeb database of schema version 6 is refused by its version, even where its tables lack columns', async () => {
  const f = await createCswebFixture({ schemaVersion: '6' });
  const home = await tempHome();
  try {
    await f.addDictionary('SIMPLECAPI_DICT', 'simple CAPI', SIMPLE);
    // An older layout: a column CSWeb 8 has is not there.
    await f.conn.query('ALTER TABLE cspro_dictionaries DROP COLUMN dictionary_label');
    for (const command of ['import', 'verify']) {
      const human = runCli(home.root, ['csweb', command, '--from', f.url, '--timezone', 'UTC']);
      assert.equal(human.code, 2, show(human));
      assert.match(human.stderr, /CSWEB_SCHEMA_TOO_OLD: .*CSWeb schema version 6; sds reads 7 and later/);
      assert.doesNotMatch(human.stderr, /lacks|dictionary_label/, 'the version is the reason, not the columns');
    }
    const r = runCli(home.root, ['csweb', 'import', '--from', f.url, '--timezone', 'UTC', '--json']);
    assert.equal(r.code, 2, show(r));
    const err = r.json<{ error: string; details: { version: number; oldest: number; missing: string[] } }>();
    assert.equal(err.error, 'CSWEB_SCHEMA_TOO_OLD');
    assert.deepEqual([err.details.version, err.details.oldest], [6, 7]);
    assert.deepEqual(err.details.missing, ['cspro_dictionaries.dictionary_label']);
    assert.deepEqual(runCli(home.root, ['dict', 'list', '--json']).json<unknown[]>(), [], 'nothing was written');

    // Version 7 with the same column missing is still named by the column.
    await f.conn.query("UPDATE cspro_config SET value = '7' WHERE name = 'schema_version'");
    const seven = runCli(home.root, ['csweb', 'import', '--from', f.url, '--timezone', 'UTC']);
    assert.equal(seven.code, 2, show(seven));
    assert.match(seven.stderr, /CSWEB_SCHEMA_UNKNOWN: .*lacks .*cspro_dictionaries\.dictionary_label/);
  } finally {
    await home.cleanup();
    await f.drop();
  }
});

test('a misspelt time zone is CSWEB_TIMEZONE_UNKNOWN naming the zone meant; no zone at all is CSWEB_TIMEZONE_REQUIRED', async () => {
  const f = await createCswebFixture();
  const home = await tempHome();
  try {
    await f.addDictionary('SIMPLECAPI_DICT', 'simple CAPI', SIMPLE);
    for (const command of ['import', 'verify']) {
      const r = runCli(home.root, ['csweb', command, '--from', f.url, '--timezone', 'Africa/Nairob']);
      assert.equal(r.code, 2, show(r));
      assert.match(r.stderr, /CSWEB_TIMEZONE_UNKNOWN: time zone "Africa\/Nairob" \(the time zone given\) is unknown/);
      assert.match(r.stderr, /did you mean Africa\/Nairobi\?/);
      assert.doesNotMatch(r.stderr, /REQUIRED/);
    }
    const json = runCli(home.root, ['csweb', 'import', '--from', f.url, '--timezone', 'Europe/Londn', '--json']);
    assert.equal(json.code, 2, show(json));
    const err = json.json<{ error: string; details: { zone: string; suggestions: string[] } }>();
    assert.deepEqual([err.error, err.details.zone, err.details.suggestions], ['CSWEB_TIMEZONE_UNKNOWN', 'Europe/Londn', ['Europe/London']]);

    // The same for a zone misspelt in CSWeb's config.php, which the message names.
    const config = join(home.root, 'config.php');
    writeFileSync(config, "<?php\ndefine('DEFAULT_TIMEZONE', 'Asia/Calcuta');\n");
    const php = runCli(home.root, ['csweb', 'import', '--from', f.url, '--csweb-config', config]);
    assert.equal(php.code, 2, show(php));
    assert.match(php.stderr, /CSWEB_TIMEZONE_UNKNOWN: time zone "Asia\/Calcuta" \(DEFAULT_TIMEZONE of .*config\.php\) is unknown/);
    assert.match(php.stderr, /did you mean Asia\/Calcutta\?.*--timezone ZONE/);

    const none = runCli(home.root, ['csweb', 'import', '--from', f.url]);
    assert.equal(none.code, 2, show(none));
    assert.match(none.stderr, /CSWEB_TIMEZONE_REQUIRED/);
    assert.deepEqual(runCli(home.root, ['dict', 'list', '--json']).json<unknown[]>(), [], 'nothing was written');
  } finally {
    await home.cleanup();
    await f.drop();
  }
});
