import { spawnSync } from 'node:child_process';

/**
 * Reads a .dta file back with pandas (Debian's /usr/bin/python3, pandas 1.5.3): the reader others
 * wrote that the Stata export is checked against (docs/export.md#stata).
 */

/** A cell as pandas gives it: numbers, strings, ISO timestamps, or a Stata missing value. */
export type StataCell = number | string | null | { missing: string };

export interface StataColumn {
  name: string;
  label: string;
  /** [value, label] pairs of the variable's value label; extended missing values as `.a`… */
  valueLabels: [number | string, string][];
  /** Stata storage type code of `<variable_types>` (pandas' typlist: 'd', 'l', 'h', 'b', str width, 32768). */
  type: string | number;
  format: string;
  /** Name of the attached value label, '' for none. */
  valueLabelName: string;
}

export interface StataFile {
  version: number;
  dataLabel: string;
  columns: StataColumn[];
  rows: StataCell[][];
}

const SCRIPT = String.raw`
import json, sys, math, datetime
import pandas as pd
from pandas.io.stata import StataReader, StataMissingValue
path = sys.argv[1]
only = json.loads(sys.argv[2]) if len(sys.argv) > 2 else None
# pandas 1.5.3 cannot convert %tc columns that hold missing values when convert_missing=True
# (np.isnan on an object column): take the date columns from a second read that converts them.
df = pd.read_stata(path, convert_categoricals=False, convert_missing=True, convert_dates=False, columns=only)
dates = pd.read_stata(path, convert_categoricals=False, convert_missing=False, convert_dates=True, columns=only)
with StataReader(path) as r:
    r._ensure_open() if hasattr(r, '_ensure_open') else None
    vlabels = r.value_labels()
    varlabels = r.variable_labels()
    data_label = r.data_label
    version = r.format_version
    typlist = list(r.typlist)
    fmtlist = list(r.fmtlist)
    lbllist = list(r.lbllist)
    varlist = list(r.varlist)
def missing_name(v):
    # Value label keys of extended missing values are their long encodings: . = 2147483621, .a = +1 ...
    if isinstance(v, int) and 2147483621 <= v <= 2147483647:
        return '.' + ('' if v == 2147483621 else chr(ord('a') + v - 2147483622))
    return v
def cell(v):
    if isinstance(v, StataMissingValue):
        return {'missing': v.string}
    if v is None:
        return None
    if isinstance(v, (pd.Timestamp, datetime.datetime)):
        if pd.isna(v):
            return None
        return v.isoformat()
    if isinstance(v, float):
        if math.isnan(v):
            return None
        return v
    if hasattr(v, 'item'):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    return v
for name in df.columns:
    if fmtlist[varlist.index(name)].startswith('%tc'):
        df[name] = dates[name]
cols = []
for name in df.columns:
    i = varlist.index(name)
    lname = lbllist[i]
    table = vlabels.get(lname, {}) if lname else {}
    cols.append({'name': name, 'label': varlabels.get(name, ''),
                 'valueLabels': [[missing_name(int(k)), t] for k, t in table.items()],
                 'type': typlist[i], 'format': fmtlist[i], 'valueLabelName': lname})
rows = [[cell(v) for v in row] for row in df.itertuples(index=False, name=None)]
json.dump({'version': version, 'dataLabel': data_label, 'columns': cols, 'rows': rows}, sys.stdout, ensure_ascii=False)
`;

/**
 * Reads `path` with pandas; fails with pandas' own message when it cannot read the file. `columns`
 * reads only those variables (pandas converts wide files column by column: 32,768 take minutes).
 */
export function readStata(path: string, columns?: string[]): StataFile {
  const args = ['-c', SCRIPT, path, ...(columns ? [JSON.stringify(columns)] : [])];
  const r = spawnSync('/usr/bin/python3', args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`pandas could not read ${path}:\n${r.stderr}`);
  return JSON.parse(r.stdout) as StataFile;
}
