/**
 * A small dictionary and data file for the export's edge cases (docs/export.md#formats), written
 * as real files are: a CSPro 7.7 text dictionary and a fixed-width `.dat`, both with a UTF-8
 * byte order mark and CRLF line ends, data lines right-trimmed (a case of blanks is its key alone).
 *
 * - HOUSEHOLD: numeric items with 2 decimals, one with the decimal character in the data
 *   (`DecimalChar=Yes`) and one with implied decimals, negative values and blanks (NOTAPPL), a
 *   decimal code marked MISSING; coded items with non-ASCII, quoted labels, a range value set and
 *   specials; two alpha items of 1,000 characters, filled to the full length with Cyrillic, Arabic
 *   (about 1,800 bytes: a Stata `str#`) and Chinese (3,000 bytes: a Stata `strL`).
 * - EMPTYREC: a record no case has (an empty table in every format).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const EDGE_DICTIONARY = 'EDGE_DICT';
export const EDGE_LABEL = 'edge';

const CRLF = '\r\n';
const BOM = '\uFEFF';

/** Exactly `n` characters of `unit` repeated, the last one `last` (no trailing blank to trim). */
function fill(unit: string, n: number, last: string): string {
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n - 1) + last;
}

export const CYRILLIC_1000 = fill('Съешь же ещё этих мягких французских булок, да выпей чаю. ', 1000, 'Я');
export const ARABIC_1000 = fill('نص حكيم له سر قاطع وذو شأن عظيم مكتوب على ثوب أخضر ', 1000, 'ي');
export const CHINESE_1000 = fill('中文字符测试數據', 1000, '完');
/** A text with a quote, a comma and CSPro's newline substitute (U+2424), read as a line break. */
const QUOTED_NOTE_DAT = 'a "quoted", comma\u2424second line';

const DICTIONARY = `[Dictionary]
Version=CSPro 7.7
Label=Edge cases
Name=${EDGE_DICTIONARY}
RecordTypeStart=1
RecordTypeLen=1
Positions=Relative
ZeroFill=No
DecimalChar=No

[Level]
Label=Edge questionnaire
Name=EDGE_QUEST

[IdItems]

[Item]
Label=Household id
Name=HHID
Start=2
Len=4
DataType=Numeric
ZeroFill=Yes

[Record]
Label=Household
Name=HOUSEHOLD
RecordTypeValue='H'
RecordLen=2027

[Item]
Label=Income, with the decimal character
Name=INCOME
Start=6
Len=8
DataType=Numeric
Decimal=2
DecimalChar=Yes

[ValueSet]
Label=Income
Name=INCOME_VS1
Value=0.5;Half
Value=99999.99;Not reported
Name=MISSING,Special
Value='        ';Not applicable
Name=NOTAPPL,Special

[Item]
Label=Weight, implied decimals
Name=WEIGHT
Start=14
Len=8
DataType=Numeric
Decimal=2

[Item]
Label=Kind
Name=KIND
Start=22
Len=1
DataType=Numeric

[ValueSet]
Label=Kind
Name=KIND_VS1
Value=1;Один
Value=2;اثنان
Value=3;Three, "quoted"
Value=9;Не указано
Name=MISSING,Special

[Item]
Label=Age
Name=AGE
Start=23
Len=3
DataType=Numeric

[ValueSet]
Label=Age
Name=AGE_VS1
Value=0:17;Minor
Value=18:120;Adult
Value=999;Don't know
Name=DEFAULT,Special

[Item]
Label=Code
Name=CODE
Start=26
Len=2
DataType=Alpha

[ValueSet]
Label=Code
Name=CODE_VS1
Value='AB';Alpha Bravo
Value='ZZ';Зет

[Item]
Label=Note, Cyrillic or Arabic
Name=NOTE
Start=28
Len=1000
DataType=Alpha

[Item]
Label=Note, Chinese
Name=NOTE_CJK
Start=1028
Len=1000
DataType=Alpha

[Record]
Label=Never filled
Name=EMPTYREC
RecordTypeValue='E'
Required=No
MaxRecords=5
RecordLen=12

[Item]
Label=X
Name=X
Start=6
Len=2
DataType=Numeric

[ValueSet]
Label=X
Name=X_VS1
Value=1;Yes

[Item]
Label=Y
Name=Y
Start=8
Len=5
DataType=Alpha
`;

interface Household {
  id: string;
  income: string;
  weight: string;
  kind: string;
  age: string;
  code: string;
  note: string;
  noteCjk: string;
}

/** The cases, as their fields are typed in the data file (the reader's values in comments). */
export const EDGE_HOUSEHOLDS: Household[] = [
  // -1234.56, -12345.67 (implied), full 1,000-character texts
  { id: '0001', income: '-1234.56', weight: '-1234567', kind: '1', age: '5', code: 'AB', note: CYRILLIC_1000, noteCjk: CHINESE_1000 },
  // 0.5 (a labelled decimal code), 0.5
  { id: '0002', income: '0.50', weight: '050', kind: '2', age: '40', code: 'ZZ', note: ARABIC_1000, noteCjk: 'short' },
  // every item blank: the line is the key alone
  { id: '0003', income: '', weight: '', kind: '', age: '', code: '', note: '', noteCjk: '' },
  // 99999.99 (MISSING), 999999.99, 9 (MISSING), 999 (DEFAULT); trailing blanks trimmed
  { id: '0004', income: '99999.99', weight: '99999999', kind: '9', age: '999', code: 'AB', note: 'trailing   ', noteCjk: '' },
  // -0.01, -0.01, an age beyond the ranges, an unlabelled code
  { id: '0005', income: '-0.01', weight: '-1', kind: '3', age: '130', code: 'XY', note: QUOTED_NOTE_DAT, noteCjk: '' },
  // 1200.5 (one decimal typed), 0
  { id: '0006', income: '1200.5', weight: '0', kind: '', age: '18', code: '', note: '', noteCjk: '' },
];

function line(h: Household): string {
  const fields = [
    'H',
    h.id,
    h.income.padStart(8),
    h.weight.padStart(8),
    h.kind.padStart(1),
    h.age.padStart(3),
    h.code.padEnd(2),
    h.note.padEnd(1000),
    h.noteCjk.padEnd(1000),
  ];
  // Real files are right-trimmed: a line ends at its last non-blank character.
  return fields.join('').trimEnd();
}

/** Writes `edge.dcf` and `edge.dat` into `dir`; returns their paths. */
export function writeEdgeFixture(dir: string): { dcf: string; dat: string } {
  const dcf = join(dir, 'edge.dcf');
  const dat = join(dir, 'edge.dat');
  writeFileSync(dcf, BOM + DICTIONARY.replace(/\n/g, CRLF));
  writeFileSync(dat, BOM + EDGE_HOUSEHOLDS.map(line).join(CRLF) + CRLF);
  return { dcf, dat };
}
