/**
 * An export as an analyst sees it with value labels, beside the codes it stands for, read by tools
 * others wrote (docs/export.md#value-sets): for CSV and Parquet the `--labels labels` file itself
 * (pandas, DuckDB) beside the `--labels codes` one; for Stata and SPSS, which hold codes with
 * value labels attached, the `--labels labels` file with its value labels applied by the reader
 * (pandas' categoricals, PSPP's CELLS=LABELS) beside the codes of the `--labels codes` file.
 * Every cell is text, or null for a blank.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { python } from './export-readback.js';
import { readParquet } from './read-parquet.js';
import { readSpss } from './read-spss.js';

export type ViewFormat = 'csv' | 'stata' | 'spss' | 'parquet';
export type ViewCell = string | null;

export interface LabelledView {
  columns: string[];
  /** Rows of the codes export. */
  codes: ViewCell[][];
  /** Rows of the labels export as the reader shows them, labels applied; same order. */
  labels: ViewCell[][];
  /** Every text of the value labels written into the labels file (Stata, SPSS); empty otherwise. */
  valueLabelTexts: string[];
  /** Parquet: the DuckDB type of each column of the labels file. */
  types?: string[];
}

/** A cell as comparable text: numbers without a trailing `.0`, blanks (null, NaN, spaces) null. */
function text(v: unknown): ViewCell {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return Number.isNaN(v) ? null : String(v);
  if (typeof v === 'boolean') return v ? '1' : '0';
  const s = String(v);
  return s.trim() === '' ? null : s;
}

/** CSV by pandas, every field as text. */
function csvView(codesFile: string, labelsFile: string): LabelledView {
  const read = python<{ columns: string[]; codes: string[][]; labels: string[][] }>(
    `import json, sys
import pandas as pd
def rows(f):
    return pd.read_csv(f, dtype=str, keep_default_na=False, encoding='utf-8')
c, l = rows(sys.argv[1]), rows(sys.argv[2])
assert list(c.columns) == list(l.columns), (list(c.columns), list(l.columns))
print(json.dumps({'columns': list(c.columns), 'codes': c.values.tolist(), 'labels': l.values.tolist()}))`,
    [codesFile, labelsFile],
  );
  return {
    columns: read.columns,
    codes: read.codes.map((r) => r.map(text)),
    labels: read.labels.map((r) => r.map(text)),
    valueLabelTexts: [],
  };
}

/** Stata by pandas: the codes file without categoricals, the labels file with its value labels as categories. */
function stataView(codesFile: string, labelsFile: string): LabelledView {
  const read = python<{ columns: string[]; codes: unknown[][]; labels: unknown[][]; texts: string[] }>(
    `import json, sys, math
import pandas as pd
from pandas.io.stata import StataReader
def rows(f, labelled):
    df = pd.read_stata(f, convert_categoricals=labelled, convert_missing=False, convert_dates=False)
    return df, [[cell(v) for v in row] for row in df.astype(object).itertuples(index=False, name=None)]
def cell(v):
    if v is None: return None
    if hasattr(v, 'item'): v = v.item()
    if isinstance(v, float):
        if math.isnan(v): return None
        return int(v) if v.is_integer() else v
    return v
c, codes = rows(sys.argv[1], False)
l, labels = rows(sys.argv[2], True)
assert list(c.columns) == list(l.columns)
with StataReader(sys.argv[2]) as r:
    texts = [t for table in r.value_labels().values() for t in table.values()]
print(json.dumps({'columns': list(c.columns), 'codes': codes, 'labels': labels, 'texts': texts}, ensure_ascii=False))`,
    [codesFile, labelsFile],
  );
  return {
    columns: read.columns,
    codes: read.codes.map((r) => r.map(text)),
    labels: read.labels.map((r) => r.map(text)),
    valueLabelTexts: read.texts,
  };
}

/** SPSS by PSPP: the data as CSV, `cells` VALUES or LABELS (PSPP's SAVE TRANSLATE). */
function spssCells(file: string, cells: 'VALUES' | 'LABELS'): string[][] {
  const dir = mkdtempSync(join(tmpdir(), 'sds-spss-view-'));
  try {
    const out = join(dir, 'data.csv');
    const syntax = `GET FILE='${file.replace(/'/g, "''")}'.\nSAVE TRANSLATE /OUTFILE='${out}' /TYPE=CSV /FIELDNAMES /CELLS=${cells} /REPLACE.\n`;
    writeFileSync(join(dir, 'data.sps'), syntax);
    const r = spawnSync('pspp', [join(dir, 'data.sps')], { encoding: 'utf8' });
    if (r.status !== 0 || /(^|: )(warning|error):/m.test(`${r.stdout}\n${r.stderr}`)) throw new Error(`pspp: ${r.stdout}\n${r.stderr}`);
    return python<string[][]>(
      `import csv, json, sys
with open(sys.argv[1], newline='', encoding='utf-8') as fh:
    print(json.dumps(list(csv.reader(fh))))`,
      [out],
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function spssView(codesFile: string, labelsFile: string): LabelledView {
  const [head, ...codes] = spssCells(codesFile, 'VALUES');
  const [labelHead, ...labels] = spssCells(labelsFile, 'LABELS');
  if (head!.join() !== labelHead!.join()) throw new Error(`SPSS columns differ: ${head!.join()} / ${labelHead!.join()}`);
  const texts = readSpss(labelsFile).columns.flatMap((c) => c.valueLabels.map((v) => v.label));
  // PSPP writes numbers at their print format (`39`, `1.50`); text() keeps them as written.
  return { columns: head!, codes: codes.map((r) => r.map(text)), labels: labels.map((r) => r.map(text)), valueLabelTexts: texts };
}

async function parquetView(codesFile: string, labelsFile: string): Promise<LabelledView> {
  const [c, l] = [await readParquet(codesFile), await readParquet(labelsFile)];
  return {
    columns: c.columns.map((x) => x.name),
    codes: c.rows.map((r) => r.map(text)),
    labels: l.rows.map((r) => r.map(text)),
    valueLabelTexts: [],
    types: l.columns.map((x) => x.duckType),
  };
}

/** The view of one table exported twice, as `--labels codes` into `codesFile` and `--labels labels` into `labelsFile`. */
export async function labelledView(format: ViewFormat, codesFile: string, labelsFile: string): Promise<LabelledView> {
  if (format === 'csv') return csvView(codesFile, labelsFile);
  if (format === 'stata') return stataView(codesFile, labelsFile);
  if (format === 'spss') return spssView(codesFile, labelsFile);
  return parquetView(codesFile, labelsFile);
}

/** One labelled entry of an item's first value set, as the dictionary file writes it. */
export interface DictEntry {
  from: string;
  /** Set for a range `from:to`. */
  to?: string;
  label: string;
  special?: string;
}

/** Per item name: whether it is numeric, and the entries of its first value set (blank labels too). Read by Python from the JSON dictionary file. */
export function dictionaryValueSets(dcfFile: string): Map<string, { numeric: boolean; entries: DictEntry[] }> {
  const read = python<Record<string, { numeric: boolean; entries: DictEntry[] }>>(
    `import json, sys
dcf = json.load(open(sys.argv[1], encoding='utf-8-sig'))
out = {}
for level in dcf['levels']:
    items = list(level.get('ids', {}).get('items', []))
    for rec in level['records']:
        items += rec.get('items', [])
    for item in items:
        sets = item.get('valueSets') or []
        if not sets: continue
        entries = []
        for v in sets[0]['values']:
            label = (v.get('labels') or [{'text': ''}])[0]['text']
            for p in v.get('pairs', []):
                e = {'label': label}
                if 'range' in p: e['from'], e['to'] = p['range'][0], p['range'][1]
                else: e['from'] = p['value']
                if 'special' in v: e['special'] = v['special']
                entries.append(e)
        out[item['name']] = {'numeric': item.get('contentType', 'numeric') == 'numeric', 'entries': entries}
print(json.dumps(out))`,
    [dcfFile],
  );
  return new Map(Object.entries(read));
}
