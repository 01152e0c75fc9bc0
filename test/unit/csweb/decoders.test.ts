/** The pure parts of reading CSWeb: questionnaire, GUIDs, note wall times, config.php, addresses, labels. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import { decodeQuestionnaire, guidText } from '../../../src/csweb/questionnaire.js';
import { checkTimeZone, nearZones, timeZoneFromConfigPhp, wallTimeToUtc } from '../../../src/csweb/wall-time.js';
import { parseCswebUrl } from '../../../src/csweb/connect.js';
import { mapLabel } from '../../../src/core/csweb/import-label.js';
import { AppError } from '../../../src/shared/errors.js';

test('a marked questionnaire inflates to the JSON text; an unmarked one is record lines', () => {
  const text = '{"id":{"CLUSTER":1,"HHNO":1}}';
  const marked = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), deflateSync(Buffer.from(text))]);
  assert.deepEqual(decodeQuestionnaire(marked, 1e6), { form: 'json', text });
  assert.deepEqual(decodeQuestionnaire(Buffer.from('1001002Amina\r\n2001002'), 1e6), { form: 'lines', lines: ['1001002Amina', '2001002'] });
  assert.throws(() => decodeQuestionnaire(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 1, 2]), 1e6), /does not inflate/);
  assert.throws(() => decodeQuestionnaire(marked, 5), /does not inflate/, 'the output limit holds');
  assert.throws(() => decodeQuestionnaire(Buffer.from([0xff, 0xfe, 0x41]), 1e6), /not UTF-8/);
});

test('a binary(16) guid prints as CSWeb prints it', () => {
  assert.equal(guidText(Buffer.from('0A1B2C3D4E5F60718293A4B5C6D7E8F9', 'hex')), '0a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9');
});

test('note wall times become UTC; the repeated and the skipped hour are said so', () => {
  assert.deepEqual(wallTimeToUtc('2024-06-01 10:15:00', 'Europe/Berlin'), { iso: '2024-06-01T08:15:00Z', fit: 'exact' });
  assert.deepEqual(wallTimeToUtc('2024-01-15 10:15:00', 'Europe/Berlin'), { iso: '2024-01-15T09:15:00Z', fit: 'exact' });
  assert.deepEqual(wallTimeToUtc('2024-06-01 10:15:00', 'UTC'), { iso: '2024-06-01T10:15:00Z', fit: 'exact' });
  assert.deepEqual(wallTimeToUtc('2024-06-01 05:45:00', 'Asia/Kathmandu'), { iso: '2024-06-01T00:00:00Z', fit: 'exact' });
  // 2024-10-27 02:30 happens twice in Berlin: the earlier (CEST, +2) is taken.
  assert.deepEqual(wallTimeToUtc('2024-10-27 02:30:00', 'Europe/Berlin'), { iso: '2024-10-27T00:30:00Z', fit: 'ambiguous' });
  // 2024-03-31 02:30 does not exist in Berlin: read with the offset before the change (+1).
  assert.deepEqual(wallTimeToUtc('2024-03-31 02:30:00', 'Europe/Berlin'), { iso: '2024-03-31T01:30:00Z', fit: 'gap' });
  assert.throws(() => wallTimeToUtc('yesterday', 'UTC'), /not a date/);
});

test("the zone comes from config.php's DEFAULT_TIMEZONE, and must be a known zone", () => {
  const php = '<?php\ndefine(\'DBHOST\', \'localhost\');\ndefine( "DEFAULT_TIMEZONE" , "America/La_Paz" );\n';
  assert.equal(timeZoneFromConfigPhp(php), 'America/La_Paz');
  assert.equal(timeZoneFromConfigPhp("<?php define('FILES_FOLDER', '/x');"), undefined);
  assert.equal(checkTimeZone('Africa/Nairobi', 'x'), 'Africa/Nairobi');
  assert.throws(
    () => checkTimeZone('Mars/Olympus', 'the time zone given'),
    (e: AppError) => e.code === 'CSWEB_TIMEZONE_UNKNOWN' && /"Mars\/Olympus" \(the time zone given\) is unknown/.test(e.message),
  );
});

test('a misspelt zone is unknown, with the names it most likely meant', () => {
  assert.throws(
    () => checkTimeZone('Africa/Nairob', 'DEFAULT_TIMEZONE of config.php'),
    (e: AppError) =>
      e.code === 'CSWEB_TIMEZONE_UNKNOWN' &&
      /"Africa\/Nairob" \(DEFAULT_TIMEZONE of config.php\) is unknown.*did you mean Africa\/Nairobi\?/.test(e.message) &&
      (e.details.suggestions as string[]).join() === 'Africa/Nairobi',
  );
  assert.deepEqual(nearZones('Europe/Londn'), ['Europe/London']);
  assert.deepEqual(nearZones('nairobi'), ['Africa/Nairobi'], 'the place alone, in any case');
  assert.deepEqual(nearZones('America/New York'), ['America/New_York'], 'a space for the underscore');
  assert.deepEqual(nearZones(' Africa/Nairobi '), ['Africa/Nairobi'], 'spaces around a good name');
  assert.deepEqual(nearZones('Mars/Olympus'), [], 'nothing near');
  assert.deepEqual(nearZones(''), []);
  assert.deepEqual(nearZones('x'.repeat(10_000)), []);
});

test('a CSWeb address names host, port, user and database, and never a password', () => {
  assert.deepEqual(parseCswebUrl('mysql://csweb@10.0.0.5:3307/csweb_db'), {
    host: '10.0.0.5',
    port: 3307,
    user: 'csweb',
    database: 'csweb_db',
  });
  assert.deepEqual(parseCswebUrl('mysql://db.example/csweb'), { host: 'db.example', port: 3306, user: 'root', database: 'csweb' });
  for (const bad of ['mysql://u:secret@h/db', 'postgres://u@h/db', 'mysql://u@h/', 'not a url']) {
    assert.throws(
      () => parseCswebUrl(bad),
      (e: AppError) => e.code === 'CSWEB_ADDRESS_INVALID',
      bad,
    );
  }
});

test('a CSWeb label that is no table prefix is mapped to the nearest valid one, unique', () => {
  assert.equal(mapLabel('simpleCAPI', 'SIMPLECAPI_DICT', new Set()), 'simpleCAPI');
  assert.equal(mapLabel('Popstan Census 2024', 'CEN2000', new Set()), 'Popstan_Census_2024');
  assert.equal(mapLabel('2024 census', 'CEN2000', new Set()), 'CEN2000');
  assert.equal(mapLabel('', '1DICT', new Set()), 'D_1DICT');
  assert.equal(mapLabel('Household', 'HH', new Set(['household'])), 'Household_2');
  assert.equal(mapLabel('A very long label of a census dictionary', 'X', new Set()), 'A_very_long_label_of_a_census');
});
