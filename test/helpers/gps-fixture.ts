/**
 * A small dictionary with GPS items and a data file for the GeoJSON export
 * (docs/export.md#geojson), written as real files are (CSPro 7.7 text dictionary, fixed-width
 * `.dat`, CRLF, lines right-trimmed):
 *
 * - HOUSEHOLD (once per case): LAT, LON with the decimal character (decimal degrees), TENURE
 *   (coded), NAME (alpha), VISITS (repeats 2 times); LAT's value set marks 88.888888 REFUSED.
 * - PLOT (up to 5 per case): PLOT_LAT, PLOT_LON, CROP (coded).
 *
 * Every way a point may lack valid coordinates is in it: a blank latitude, a special code, a
 * longitude beyond 180, a latitude beyond 90, a case without the household record; and 0/0.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const GPS_DICTIONARY = 'GPS_DICT';
export const GPS_LABEL = 'gps';

const CRLF = '\r\n';

const DICTIONARY = `[Dictionary]
Version=CSPro 7.7
Label=GPS survey
Name=${GPS_DICTIONARY}
RecordTypeStart=1
RecordTypeLen=1
Positions=Relative
ZeroFill=No
DecimalChar=No

[Level]
Label=GPS questionnaire
Name=GPS_QUEST

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
Required=No
RecordLen=39

[Item]
Label=Latitude
Name=LAT
Start=6
Len=10
DataType=Numeric
Decimal=6
DecimalChar=Yes

[ValueSet]
Label=Latitude
Name=LAT_VS1
Value=88.888888;Refused
Name=REFUSED,Special
Value=-90:90;Decimal degrees

[Item]
Label=Longitude
Name=LON
Start=16
Len=11
DataType=Numeric
Decimal=6
DecimalChar=Yes

[Item]
Label=Tenure
Name=TENURE
Start=27
Len=1
DataType=Numeric

[ValueSet]
Label=Tenure
Name=TENURE_VS1
Value=1;Owned
Value=2;Rented

[Item]
Label=Name of the head
Name=NAME
Start=28
Len=10
DataType=Alpha

[Item]
Label=Visits
Name=VISITS
Start=38
Len=1
DataType=Numeric
Occurrences=2

[Record]
Label=Plot
Name=PLOT
RecordTypeValue='P'
Required=No
MaxRecords=5
RecordLen=27

[Item]
Label=Plot latitude
Name=PLOT_LAT
Start=6
Len=10
DataType=Numeric
Decimal=6
DecimalChar=Yes

[Item]
Label=Plot longitude
Name=PLOT_LON
Start=16
Len=11
DataType=Numeric
Decimal=6
DecimalChar=Yes

[Item]
Label=Crop
Name=CROP
Start=27
Len=1
DataType=Numeric

[ValueSet]
Label=Crop
Name=CROP_VS1
Value=1;Maize
Value=2;Rice
`;

interface Plot {
  lat: string;
  lon: string;
  crop: string;
}

interface GpsCase {
  id: string;
  /** Absent: the case has no household record. */
  household?: { lat: string; lon: string; tenure: string; name: string; visits: [string, string] };
  plots: Plot[];
}

/** The cases, as typed in the data file. */
export const GPS_CASES: GpsCase[] = [
  {
    id: '0001',
    household: { lat: '12.345678', lon: '-1.234567', tenure: '1', name: 'Ana', visits: ['1', '2'] },
    plots: [
      { lat: '12.100000', lon: '-1.100000', crop: '1' },
      { lat: '', lon: '-1.200000', crop: '2' },
    ],
  },
  // 0/0 is kept: a point in the Gulf of Guinea, as GIS tools read it.
  {
    id: '0002',
    household: { lat: '0.000000', lon: '0.000000', tenure: '2', name: 'Bo', visits: ['3', ''] },
    plots: [{ lat: '91.000000', lon: '10.000000', crop: '1' }],
  },
  { id: '0003', household: { lat: '', lon: '5.000000', tenure: '1', name: 'Blank', visits: ['', ''] }, plots: [] },
  { id: '0004', household: { lat: '88.888888', lon: '5.000000', tenure: '2', name: 'Refused', visits: ['', ''] }, plots: [] },
  { id: '0005', plots: [{ lat: '5.500000', lon: '6.600000', crop: '2' }] },
  { id: '0006', household: { lat: '-45.500000', lon: '200.000000', tenure: '1', name: 'Far', visits: ['', ''] }, plots: [] },
  { id: '0007', household: { lat: '-33.900000', lon: '151.200000', tenure: '2', name: 'Sydney', visits: ['4', '5'] }, plots: [] },
];

function lines(c: GpsCase): string[] {
  const out: string[] = [];
  const h = c.household;
  if (h) {
    out.push(
      ['H', c.id, h.lat.padStart(10), h.lon.padStart(11), h.tenure.padStart(1), h.name.padEnd(10), ...h.visits.map((v) => v.padStart(1))]
        .join('')
        .trimEnd(),
    );
  }
  for (const p of c.plots) out.push(['P', c.id, p.lat.padStart(10), p.lon.padStart(11), p.crop.padStart(1)].join('').trimEnd());
  return out;
}

/** Writes `gps.dcf` and `gps.dat` into `dir`; returns their paths. */
export function writeGpsFixture(dir: string): { dcf: string; dat: string } {
  const dcf = join(dir, 'gps.dcf');
  const dat = join(dir, 'gps.dat');
  writeFileSync(dcf, DICTIONARY.replace(/\n/g, CRLF));
  writeFileSync(dat, GPS_CASES.flatMap(lines).join(CRLF) + CRLF);
  return { dcf, dat };
}
