/**
 * Reads Stata (.dta) and SPSS (.sav) exports back with R's haven (Debian's r-cran-haven), where
 * most survey analysts read them (docs/export.md#opening-the-files), into the shape of the pandas
 * and PSPP read-backs (export-compare.ts `ReadBack`), so the same comparison with the breakout and
 * the codebook applies: the variable label (attribute `label`), the value labels (attribute
 * `labels` of a `haven_labelled` vector), values, Stata's extended missing values `.a`–`.d` (haven's
 * tagged NA) and SPSS user-missing values (`read_sav(user_na = TRUE)`: `na_values`, `na_range`).
 */
import { spawnSync } from 'node:child_process';
import type { ReadBack } from './export-compare.js';

/** What R says of one variable: its values column-wise (fast to print), labels and missing-value declarations. */
interface HavenColumn {
  name: string;
  /** R classes of the vector, e.g. `haven_labelled`, `POSIXct`, `character`, `numeric`. */
  class: string[];
  label: string | null;
  /** Value labels: values (numbers, texts, or null for a tagged NA) and their tags ('a'…) and labels. */
  labelValues: (number | string | null)[];
  labelTags: (string | null)[];
  labelNames: string[];
  /** Cells: numbers (times as milliseconds since 1970), texts; null for NA. */
  values: (number | string | null)[];
  /** Per cell, the tag of a tagged NA (Stata `.a` → `a`), else null. */
  tags: (string | null)[] | null;
  naValues: (number | string)[] | null;
  naRange: [number, number] | null;
}

interface HavenFile {
  label: string | null;
  columns: HavenColumn[];
}

const SCRIPT = String.raw`
suppressPackageStartupMessages({ library(haven); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
path <- args[1]
df <- if (args[2] == 'dta') read_dta(path) else read_sav(path, user_na = TRUE)
tags_of <- function(x) if (is.double(x) && any(is_tagged_na(x))) na_tag(x) else NULL
cols <- lapply(names(df), function(n) {
  x <- df[[n]]
  labs <- attr(x, 'labels', exact = TRUE)
  v <- vctrs::vec_data(x)
  if (inherits(x, 'POSIXct')) v <- round(as.numeric(x) * 1000)
  lv <- if (is.null(labs)) list() else unname(as.list(vctrs::vec_data(labs)))
  lt <- if (is.null(labs)) list() else as.list(if (is.double(labs)) na_tag(vctrs::vec_data(labs)) else rep(NA, length(labs)))
  lv <- lapply(lv, function(e) if (is.na(e)) NULL else e)
  lt <- lapply(lt, function(e) if (is.na(e)) NULL else e)
  list(name = n, class = class(x), label = attr(x, 'label', exact = TRUE),
       labelValues = lv, labelTags = lt, labelNames = as.list(names(labs)),
       values = v, tags = tags_of(v),
       naValues = attr(x, 'na_values', exact = TRUE), naRange = attr(x, 'na_range', exact = TRUE))
})
cat(toJSON(list(label = attr(df, 'label', exact = TRUE), columns = cols), auto_unbox = TRUE, digits = NA, na = 'null', null = 'null'))
`;

/** Runs the R script on `file`; fails with R's own message when haven cannot read it. */
function readWithHaven(file: string, kind: 'dta' | 'sav'): HavenFile {
  const r = spawnSync('Rscript', ['--vanilla', '-e', SCRIPT, file, kind], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`R haven could not read ${file}:\n${r.stderr}`);
  return JSON.parse(r.stdout) as HavenFile;
}

/** A value of a one-element array as jsonlite writes a length-1 vector (unboxed) or a longer one. */
const list = <T>(v: T | T[] | null): T[] => (v === null ? [] : Array.isArray(v) ? v : [v]);

/** A haven vector's R classes also name what it is: a time (POSIXct) is given as milliseconds. */
const isTime = (c: HavenColumn) => list(c.class).includes('POSIXct');

/**
 * `file` (a .dta or .sav) read by haven, as ReadBack of export-compare.ts: Stata cells as pandas
 * gives them (`{missing: '.a'}` for a tagged NA, times as naive ISO text), SPSS cells as PSPP's
 * reader gives them (texts right-trimmed, times as ISO 8601 UTC), with the user-missing codes.
 */
export function readHaven(format: 'stata' | 'spss', file: string): ReadBack & { classes: Map<string, string[]> } {
  const f = readWithHaven(file, format === 'stata' ? 'dta' : 'sav');
  const columns = f.columns.map((c) => {
    const values = list(c.labelValues);
    const tags = list(c.labelTags);
    const names = list(c.labelNames);
    const valueLabels = values.map((v, i): [string, string] => [tags[i] ? `.${tags[i]}` : String(v), names[i]!]);
    return { name: c.name, label: c.label ?? '', valueLabels };
  });
  const cells = f.columns.map((c) => {
    const values = list(c.values);
    const tags = c.tags === null ? [] : list(c.tags);
    return values.map((v, r) => {
      if (tags[r]) return { missing: `.${tags[r]}` };
      if (v === null) return null;
      if (isTime(c)) {
        const iso = new Date(v as number).toISOString();
        return format === 'stata' ? iso.slice(0, -1) : iso;
      }
      if (format === 'spss' && typeof v === 'string') return v.replace(/ +$/, '');
      return v;
    });
  });
  const n = cells[0]?.length ?? 0;
  const rows = Array.from({ length: n }, (_x, r) => cells.map((col) => col[r]));
  const out: ReadBack & { classes: Map<string, string[]> } = {
    columns,
    rows,
    classes: new Map(f.columns.map((c) => [c.name, list(c.class)])),
  };
  if (format === 'stata') out.dataLabel = f.label ?? '';
  if (format === 'spss') {
    // The labelled codes haven marks as user-missing (PSPP's reader lists the same).
    out.userMissing = new Map(
      f.columns.map((c) => {
        const missing = list(c.naValues).map(String);
        const range = c.naRange === null ? undefined : list(c.naRange);
        const isMissing = (v: string) => missing.includes(v) || (range !== undefined && Number(v) >= range[0]! && Number(v) <= range[1]!);
        return [
          c.name,
          new Set(
            columns
              .find((x) => x.name === c.name)!
              .valueLabels.map(([v]) => v)
              .filter(isMissing),
          ),
        ];
      }),
    );
  }
  return out;
}
