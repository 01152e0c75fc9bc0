/**
 * Read-back of exports for the e2e tests (docs/export.md): what every table of an export must
 * hold, taken from the SQLite breakout of the same cases and keyed by the export names the
 * export's codebook gives, and the files themselves read by tools others wrote (Python). A test
 * of another format reads its files with its own reader and compares with `expectedTables`.
 */
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';

/** Debian's Python (the `python3` on PATH may lack the libraries the readers need). */
const PYTHON = '/usr/bin/python3';

/** Runs a Python script with arguments; returns its stdout parsed as JSON. */
export function python<T>(script: string, args: string[] = []): T {
  const r = spawnSync(PYTHON, ['-c', script, ...args], { encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`python failed (${r.status}):\n${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** One row of the codebook, as Python's csv module reads it. */
export type CodebookRow = Record<string, string>;

/** Every CSV file given, read by Python's csv module: per file, its rows as lists of strings (header first). */
export function readCsvFiles(files: string[]): Record<string, string[][]> {
  return python<Record<string, string[][]>>(
    `import csv, json, sys
out = {}
for f in sys.argv[1:]:
    with open(f, newline='', encoding='utf-8') as fh:
        out[f] = [row for row in csv.reader(fh, strict=True)]
print(json.dumps(out))`,
    files,
  );
}

/** The codebook of an export folder, read by Python's csv module as dicts. */
export function readCodebook(file: string): CodebookRow[] {
  return python<CodebookRow[]>(
    `import csv, json, sys
with open(sys.argv[1], newline='', encoding='utf-8') as fh:
    print(json.dumps(list(csv.DictReader(fh, strict=True))))`,
    [file],
  );
}

export interface ExpectedTable {
  /** Export names, in file order. */
  columns: string[];
  /** The breakout's rows, each keyed by export name; values as SQLite returns them. */
  rows: Record<string, unknown>[];
}

/**
 * Per exported table (by table name), the rows of the SQLite breakout table of the same name,
 * each column renamed to its export name through the codebook's `source`. Columns the
 * breakout does not have (`deleted`) are left out of the rows.
 */
export function expectedTables(breakoutSqlite: string, codebook: CodebookRow[]): Map<string, ExpectedTable> {
  const db = new Database(breakoutSqlite, { readonly: true, fileMustExist: true });
  try {
    const out = new Map<string, ExpectedTable>();
    for (const table of [...new Set(codebook.filter((r) => r.kind === 'table').map((r) => r.table!))]) {
      const cols = codebook.filter((r) => r.kind === 'column' && r.table === table);
      const columnsOf = (t: string) =>
        new Set((db.prepare(`SELECT name FROM pragma_table_info(?)`).all(t) as { name: string }[]).map((r) => r.name));
      const present = columnsOf(table);
      // Id items the export copies into a record table (docs/export.md#id-items) come from the
      // cases table (level 1) and the level_N tables of the ancestor nodes: joined here as SQL.
      const holders = idHolders(db, table, present);
      const select = cols.filter((c) => present.has(c.source!) || holders.some((h) => h.columns.has(c.source!)));
      const expr = (source: string) => {
        if (present.has(source)) return `t."${source}"`;
        return `${holders.find((h) => h.columns.has(source))!.alias}."${source}"`;
      };
      const joins = holders.map((h) => `LEFT JOIN "${h.table}" ${h.alias} ON ${h.on}`).join(' ');
      const sql = `SELECT ${select.map((c) => `${expr(c.source!)} AS "${c.name}"`).join(', ')} FROM "${table}" t ${joins}`;
      out.set(table, { columns: cols.map((c) => c.name!), rows: db.prepare(sql).all() as Record<string, unknown>[] });
    }
    return out;
  } finally {
    db.close();
  }
}

/**
 * The breakout tables that hold the id items of a record table's (or level table's) ancestors:
 * `<prefix>_cases` on case_id, `<prefix>_level_N` on case_id and the level occurrences.
 */
function idHolders(db: Database.Database, table: string, present: Set<string>) {
  if (!present.has('case_id') || table.endsWith('_cases') || table.endsWith('_notes')) return [];
  const names = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((r) => r.name);
  const cases = names.find((n) => n.endsWith('_cases') && table.startsWith(n.slice(0, -'cases'.length)));
  if (!cases) return [];
  const prefix = cases.slice(0, -'_cases'.length);
  const columnsOf = (t: string) =>
    new Set((db.prepare(`SELECT name FROM pragma_table_info(?)`).all(t) as { name: string }[]).map((r) => r.name));
  const out: { table: string; alias: string; on: string; columns: Set<string> }[] = [];
  out.push({ table: cases, alias: 'c', on: 'c.case_id = t.case_id', columns: columnsOf(cases) });
  for (const n of names) {
    const m = new RegExp(`^${prefix}_level_(\\d+)$`).exec(n);
    if (!m || n === table) continue;
    const level = Number(m[1]);
    // An ancestor of this table: the table has its node's occurrence column.
    if (!present.has(`level_${level}_occ`)) continue;
    const alias = `l${level}`;
    const on = [`${alias}.case_id = t.case_id`];
    for (let a = 2; a < level; a++) on.push(`${alias}.level_${a}_occ = t.level_${a}_occ`);
    on.push(`${alias}.occ = t.level_${level}_occ`);
    out.push({ table: n, alias, on: on.join(' AND '), columns: columnsOf(n) });
  }
  return out;
}

/** A value as CSV text carries it: NULL and '' empty, numbers in their shortest form. */
export function asCsvText(v: unknown): string {
  if (v === null || v === undefined) return '';
  return String(v);
}
