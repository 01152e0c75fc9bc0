/**
 * Reads an Excel export back with pandas (`read_excel`, engine openpyxl: Debian's python3-pandas
 * and python3-openpyxl), the reader others wrote that the Excel export is checked against
 * (docs/export.md#excel): every sheet by name, in workbook order, with the dtype pandas gives each
 * column and its cells as JSON (whole floats as integers, times as ISO 8601 UTC to the millisecond).
 */
import { python } from './export-readback.js';

export interface XlsxSheet {
  name: string;
  columns: string[];
  /** The dtype pandas infers for each column: `int64`, `float64`, `object`, `datetime64[ns]`. */
  dtypes: string[];
  rows: (number | string | null)[][];
  /** Per column, the Python types of its non-empty cells as openpyxl gives them (`int`, `float`, `str`, `datetime`), sorted. */
  cellTypes: string[][];
}

const SCRIPT = String.raw`
import json, sys, math, datetime
import pandas as pd
path = sys.argv[1]
only = json.loads(sys.argv[2]) if len(sys.argv) > 2 else None
# The cells as openpyxl reads them (dtype=object: pandas would otherwise turn texts of digits
# into numbers); the dtypes are those pandas infers from them (a second read_excel would double
# the time, and differ only in those texts of digits).
raw = pd.read_excel(path, sheet_name=only, engine='openpyxl', dtype=object)
def cell(v):
    if v is None:
        return None
    if isinstance(v, (pd.Timestamp, datetime.datetime)):
        if pd.isna(v):
            return None
        ms = round(pd.Timestamp(v).value / 1e6)
        return datetime.datetime.utcfromtimestamp(ms / 1000).strftime('%Y-%m-%dT%H:%M:%S.') + '%03dZ' % (ms % 1000)
    if hasattr(v, 'item'):
        v = v.item()
    if isinstance(v, float):
        if math.isnan(v):
            return None
        if v.is_integer() and abs(v) < 2**53:
            return int(v)
    return v
def kind(v):
    if isinstance(v, (pd.Timestamp, datetime.datetime)):
        return 'datetime'
    return type(v).__name__
out = []
for name, df in raw.items():
    seen = [sorted({kind(v) for v in df[c] if not (v is None or (isinstance(v, float) and math.isnan(v)))}) for c in df.columns]
    out.append({'name': name, 'columns': [str(c) for c in df.columns], 'dtypes': [str(t) for t in df.infer_objects().dtypes],
                'rows': [[cell(v) for v in row] for row in df.itertuples(index=False, name=None)],
                'cellTypes': seen})
print(json.dumps(out, ensure_ascii=False))
`;

/**
 * Every sheet of `file` (or only those of `sheets`), in workbook order; fails with pandas' own
 * message when it cannot read the file. pandas takes about a second per 1,000 rows of 40 columns.
 */
export function readXlsx(file: string, sheets?: string[]): XlsxSheet[] {
  return python<XlsxSheet[]>(SCRIPT, sheets ? [file, JSON.stringify(sheets)] : [file]);
}

/** The sheet names of `file` in workbook order, and the rows of each (header included), by openpyxl. */
export function xlsxSheetRows(file: string): [string, number][] {
  return python<[string, number][]>(
    `import openpyxl, json, sys
wb = openpyxl.load_workbook(sys.argv[1], read_only=True)
print(json.dumps([[n, sum(1 for _ in wb[n].iter_rows(values_only=True))] for n in wb.sheetnames]))`,
    [file],
  );
}
