/**
 * A small survey for the supervision reports (docs/supervision.md#sync-history-and-reports): a
 * dictionary whose ids are a zero-filled province, a blank-padded district and a household; six
 * cases in three (province, district) groups; and a sync history of known rows at known times,
 * recorded through the store's own record and then dated.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Store } from '../../src/store/open-store.js';
import { storeSql } from './temp-home.js';

export const REP_DCF = `[Dictionary]
Version=CSPro 7.7
Label=Reports test
Name=REP_DICT
RecordTypeStart=1
RecordTypeLen=1
Positions=Absolute
ZeroFill=No
DecimalChar=No

[Level]
Label=Household
Name=REP_QUEST

[IdItems]

[Item]
Label=Province
Name=PROV
Start=2
Len=2
ZeroFill=Yes

[Item]
Label=District
Name=DIST
Start=4
Len=2

[Item]
Label=Household
Name=HH
Start=6
Len=3
ZeroFill=Yes

[Record]
Label=Household record
Name=HOUSE
RecordTypeValue='1'
Required=Yes
MaxRecords=1
RecordLen=10

[Item]
Label=Rooms
Name=ROOMS
Start=9
Len=2
`;

/** Six cases: (01, 1) two, (01, 2) one, (02, 1) three. */
const REP_DAT = ['101 100102', '101 100203', '101 200104', '102 100105', '102 100206', '102 100307'].join('\r\n') + '\r\n';

/** The key of the case the tests delete (province 02, district 1, household 003). */
export const DELETED_KEY = '02 1003';

/** Writes the dictionary and data files into `dir`; their paths. */
export function writeReportFiles(dir: string): { dcf: string; dat: string } {
  const dcf = join(dir, 'rep.dcf');
  const dat = join(dir, 'rep.dat');
  writeFileSync(dcf, REP_DCF);
  writeFileSync(dat, REP_DAT);
  return { dcf, dat };
}

/** One sync of the fixture history: dictionary, device, user, direction, cases, time. */
export type FixtureSync = [string, string, string, 'put' | 'get', number, string];

/**
 * The history: ana syncs tablet-1 then tablet-2, ben tablet-2; one download of OTHER_DICT by
 * ben on tablet-3.
 */
export const HISTORY: FixtureSync[] = [
  ['REP_DICT', 'tablet-1', 'ana', 'put', 3, '2025-03-01T08:00:00.000Z'],
  ['REP_DICT', 'tablet-1', 'ana', 'get', 5, '2025-03-01T09:00:00.000Z'],
  ['REP_DICT', 'tablet-2', 'ben', 'put', 2, '2025-03-02T10:00:00.000Z'],
  ['REP_DICT', 'tablet-2', 'ana', 'put', 4, '2025-03-03T11:00:00.000Z'],
  ['OTHER_DICT', 'tablet-3', 'ben', 'get', 7, '2025-03-03T12:00:00.000Z'],
];

/** Records HISTORY in order through store.sync.record, then dates each row; their ids in order. */
export async function recordHistory(store: Store, dictionaryIds: Record<string, number>): Promise<number[]> {
  const ids: number[] = [];
  let revision = 100;
  for (const [dict, device, username, direction, cases, at] of HISTORY) {
    await store.sync.record({ dictionaryId: dictionaryIds[dict]!, device, username, direction, revision: revision++, cases });
    const [row] = await storeSql(store, 'SELECT max(id) AS id FROM sync_history');
    const id = Number(row!.id);
    await storeSql(store, 'UPDATE sync_history SET created_at = ? WHERE id = ?', [at, id]);
    ids.push(id);
  }
  return ids;
}
