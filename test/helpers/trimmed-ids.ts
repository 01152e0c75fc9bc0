/**
 * The synthetic TRIMMED_IDS_DICT of fixtures/synthetic/, and `.csdb` files built from it: one
 * written with the dictionary itself, and one written with another dictionary of the same name
 * and record names whose items are named otherwise (what a user gets by importing a file of one
 * survey into another's dictionary).
 */

import { readFileSync } from 'node:fs';
import { parseDictionary } from '../../src/cspro/dictionary/parse-dictionary.js';
import type { Dictionary } from '../../src/cspro/dictionary/model.js';
import { writeCsdb, type CsdbCase } from './build-csdb.js';

export const TRIMMED_DCF = new URL('../../fixtures/synthetic/trimmed-ids.dcf', import.meta.url).pathname;
export const TRIMMED_DAT = new URL('../../fixtures/synthetic/trimmed-ids.dat', import.meta.url).pathname;

export const trimmedDcfText = (): string => readFileSync(TRIMMED_DCF, 'utf8').replace(/^\uFEFF/, '');
export const trimmedDict = (): Dictionary => parseDictionary(trimmedDcfText());

/** The same dictionary name and record names; every id and item renamed. */
export function otherDcfText(): string {
  const renames: Record<string, string> = {
    CLUSTER: 'EA_CODE',
    HHNUM: 'DWELLING',
    VISIT: 'ROUND',
    LINE: 'PNUM',
    SEX: 'GENDER',
    AGE: 'AGE_YEARS',
    NAME: 'FULL_NAME',
    ROOF: 'ROOF_TYPE',
    ROOMS: 'ROOM_COUNT',
  };
  return trimmedDcfText().replace(/^Name=(\w+)$/gm, (line, name: string) => (renames[name] ? `Name=${renames[name]}` : line));
}

/** Three cases as the CSPro data entry of the other dictionary would write them. */
const OTHER_CASES: CsdbCase[] = [1, 2, 3].map((n) => ({
  id: `0000000${n}-aaaa-4bbb-8ccc-00000000000${n}`,
  key: `10100${n} 1`,
  level1: {
    id: { EA_CODE: 101, DWELLING: n, ROUND: 1 },
    PERSON: [{ PNUM: 1, GENDER: 2, AGE_YEARS: 30 + n, FULL_NAME: `PERSON ${n}` }],
    HOUSING: { ROOF_TYPE: 1, ROOM_COUNT: n },
  },
}));

/** The same three cases written with TRIMMED_IDS_DICT itself. */
export const OWN_CASES: CsdbCase[] = OTHER_CASES.map((c, i) => ({
  id: c.id,
  key: c.key,
  level1: {
    id: { CLUSTER: 101, HHNUM: i + 1, VISIT: 1 },
    PERSON: [{ LINE: 1, SEX: 2, AGE: 31 + i, NAME: `PERSON ${i + 1}` }],
    HOUSING: { ROOF: 1, ROOMS: i + 1 },
  },
}));

/** Writes a `.csdb` of the other dictionary (same name and records, other items). */
export function writeOtherCsdb(path: string): void {
  writeCsdb(path, parseDictionary(otherDcfText()), otherDcfText(), OTHER_CASES);
}

/** Writes a `.csdb` of TRIMMED_IDS_DICT itself. */
export function writeOwnCsdb(path: string): void {
  writeCsdb(path, trimmedDict(), trimmedDcfText(), OWN_CASES);
}
