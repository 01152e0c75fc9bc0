/**
 * The pure parts of the supervision reports (docs/supervision.md#sync-history-and-reports): the
 * area names file (RFC 4180 records, the whole-file check with line numbers, code normalisation),
 * the key slices of id items and subitems, the CSV of a report, and the CSPro version read from a
 * User-Agent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { areaCode, csvRecords, parseAreaNames } from '../../../src/core/reports/area-names-csv.js';
import { idSlices, keySlicesOf } from '../../../src/core/reports/id-slices.js';
import { reportCsv } from '../../../src/core/reports/report-csv.js';
import { parseDictionary } from '../../../src/cspro/dictionary/parse-dictionary.js';
import { AppError } from '../../../src/shared/errors.js';
import { csproVersionText } from '../../../src/sync/client-version.js';
import { REP_DCF } from '../../helpers/report-fixture.js';

test('csvRecords: quotes, doubled quotes, line breaks in quotes, CRLF and LF, a BOM, blank lines skipped', () => {
  assert.deepEqual(csvRecords('\uFEFFa,"b,c"\r\n"say ""hi""",x\n\n"two\nlines",""\n'), [
    { line: 1, fields: ['a', 'b,c'] },
    { line: 2, fields: ['say "hi"', 'x'] },
    { line: 4, fields: ['two\nlines', ''] },
  ]);
  assert.deepEqual(csvRecords('1,,North'), [{ line: 1, fields: ['1', '', 'North'] }]);
});

test('areaCode: trimmed, leading zeros of a whole number dropped; other texts kept', () => {
  assert.deepEqual(['01', ' 1', '1', '000', 'A01', ' x '].map(areaCode), ['1', '1', '1', '0', 'A01', 'x']);
});

test('parseAreaNames: levels from the codes given; every bad line reported, nothing kept', () => {
  assert.deepEqual(parseAreaNames('p,d,name\n01,,North\n01,003,"Lake, side"\n', true), [
    { codes: ['1'], label: 'North' },
    { codes: ['1', '3'], label: 'Lake, side' },
  ]);
  assert.throws(
    () => parseAreaNames('1,,North\n01,,Dup\n,2,Gap\n1,2,\n1,2,x,y\n5,6,Fine\n'),
    (e: AppError) => {
      assert.equal(e.code, 'AREA_NAMES_INVALID');
      assert.deepEqual(e.details.lines, [
        { line: 2, reason: 'the same codes as line 1' },
        { line: 3, reason: 'no code' },
        { line: 4, reason: 'the name is empty' },
        { line: 5, reason: '4 columns where the first line has 3' },
      ]);
      return true;
    },
  );
  assert.throws(
    () => parseAreaNames('1,,3,x\n'),
    (e: AppError) => e.code === 'AREA_NAMES_INVALID' && /a code follows an empty one/.test(e.message),
  );
  assert.throws(
    () => parseAreaNames('only\n'),
    (e: AppError) => e.code === 'AREA_NAMES_INVALID',
  );
  assert.throws(
    () => parseAreaNames('h\n', true),
    (e: AppError) => e.code === 'AREA_NAMES_INVALID' && /no line/.test(e.message),
  );
});

test('key slices: id items in key order; a subitem of an id item inside its parent’s slice', () => {
  const dict = parseDictionary(REP_DCF);
  assert.deepEqual(keySlicesOf(dict), [
    { name: 'PROV', start: 1, length: 2 },
    { name: 'DIST', start: 3, length: 2 },
    { name: 'HH', start: 5, length: 3 },
  ]);
  const withSub = {
    name: 'X',
    levels: [
      {
        ids: [
          { name: 'GEO', start: 2, length: 4, subitem: false },
          { name: 'GEO_DIST', start: 4, length: 2, subitem: true },
          { name: 'HH', start: 6, length: 2, subitem: false },
        ],
      },
    ],
  } as unknown as Parameters<typeof keySlicesOf>[0] & { name: string };
  assert.deepEqual(idSlices(withSub, ['geo_dist', 'HH']), [
    { name: 'GEO_DIST', start: 3, length: 2 },
    { name: 'HH', start: 5, length: 2 },
  ]);
  assert.throws(
    () => idSlices(dict, ['PROV', 'DIST', 'HH', 'PROV']),
    (e: AppError) => e.code === 'REPORT_IDS_INVALID' && /twice/.test(e.message),
  );
  assert.throws(
    () => idSlices(dict, Array(9).fill('PROV')),
    (e: AppError) => e.code === 'REPORT_IDS_INVALID' && /at most 8/.test(e.message),
  );
});

test('reportCsv: header of the field names, empty for unknown, texts quoted when needed', () => {
  const head = { dictionary: 'D', since: null, until: null, not_seen_days: null, total: 1, limit: 100, offset: 0 };
  assert.equal(
    reportCsv({ by: 'ids', ...head, id_items: ['P'], rows: [{ ids: { P: '01' }, names: { P: 'North, "upper"' }, cases: 3 }] }),
    'P,P_name,cases\r\n01,"North, ""upper""",3\r\n',
  );
  assert.equal(
    reportCsv({ by: 'ids', ...head, id_items: ['P'], rows: [{ ids: { P: '-1' }, names: { P: '=HYPERLINK("x")' }, cases: 3 }] }),
    'P,P_name,cases\r\n\'-1,"\'=HYPERLINK(""x"")",3\r\n',
    'texts that start like a formula are not formulas in a spreadsheet',
  );
  assert.equal(
    reportCsv({
      by: 'day',
      ...head,
      rows: [{ day: '2025-03-01', uploads: 1, cases_uploaded: 2, downloads: 0, cases_downloaded: 0, devices: 1, users: 1 }],
    }),
    'day,uploads,cases_uploaded,downloads,cases_downloaded,devices,users\r\n2025-03-01,1,2,0,0,1,1\r\n',
  );
});

test('csproVersionText: the version CSPro writes after the slash; nothing from other clients', () => {
  assert.equal(csproVersionText('CSPro sync client/8.1.0 (Android)'), '8.1.0');
  assert.equal(csproVersionText('CSPro sync client/7.7'), '7.7');
  assert.equal(csproVersionText('CSPro sync client/'), undefined);
  assert.equal(csproVersionText('CSPro sync client/<script>'), undefined);
  assert.equal(csproVersionText('curl/8.0'), undefined);
  assert.equal(csproVersionText(undefined), undefined);
});
