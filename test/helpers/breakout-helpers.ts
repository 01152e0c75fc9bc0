/**
 * Shared pieces of the breakout integration tests: a Popstan store, the raw fixed-width lines of
 * the fixture (the tests compare the target with them, never with our own output), a small
 * query client per target type, and a runner for the compiled CLI.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TargetConfig } from '../../src/breakout/dialects/dialect.js';
import { caseGuid } from '../../src/cspro/case/case-guid.js';
import type { DictItem } from '../../src/cspro/dictionary/model.js';
import { requireDictionary, uploadDictionary } from '../../src/core/dictionaries/dictionaries.js';
import { importCases } from '../../src/core/cases/import/import-cases.js';
import { setTarget } from '../../src/core/breakout/targets/targets.js';
import type { Store } from '../../src/store/open-store.js';
import { fixture, tempStore } from './temp-home.js';

export const POPSTAN = 'CEN2000';
const SDS_BIN = fileURLToPath(new URL('../../bin/sds', import.meta.url));

/** Non-empty lines of a .dat file, without the UTF-8 BOM. */
export function datLines(path = fixture('popstan-census.dat')): string[] {
  return readFileSync(path, 'utf8')
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((l) => l.length > 0);
}

/** Popstan lines grouped into cases: consecutive lines with the same id text (columns 2–19). */
export interface RawCase {
  key: string;
  guid: string;
  lines: string[];
  persons: string[];
  housing: string[];
}

export function groupPopstan(lines: string[]): RawCase[] {
  const out: RawCase[] = [];
  for (const line of lines) {
    const key = line.slice(1, 19);
    let c = out[out.length - 1];
    if (!c || c.key !== key) {
      c = { key, guid: caseGuid(POPSTAN, key), lines: [], persons: [], housing: [] };
      out.push(c);
    }
    c.lines.push(line);
    if (line[0] === '1') c.persons.push(line);
    else if (line[0] === '2') c.housing.push(line);
  }
  return out;
}

/** Rewrites columns 2–3 (PROVINCE) of every line: a new, distinct case key. */
export function withProvince(lines: string[], province: number): string[] {
  const p = String(province).padStart(2, '0');
  return lines.map((l) => l[0] + p + l.slice(3));
}

/** Writes lines as a .dat file in `dir`. */
export function writeDat(dir: string, name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** The value of an item in a raw line, as the target must hold it: blank → null, else the number. */
export function rawNumeric(line: string, item: Pick<DictItem, 'start' | 'length'>): number | null {
  const text = line.slice(item.start - 1, item.start - 1 + item.length);
  return text.trim() === '' ? null : Number(text);
}

/** A store with the Popstan dictionary (label `popstan`), the given .dat files imported and the target set. */
export async function popstanStore(files: string[], target?: TargetConfig): ReturnType<typeof tempStore> {
  const t = await tempStore();
  await uploadDictionary(t.store, { source: readFileSync(fixture('popstan-census.json.dcf')), label: 'popstan' });
  const r = await importCases(t.store, POPSTAN, files);
  if (r.total.failed !== 0) throw new Error(`import failed: ${JSON.stringify(r.files.map((f) => f.errors))}`);
  if (target) await setTargetConfig(t.store, POPSTAN, target);
  return t;
}

/** setTarget from a test TargetConfig. */
export async function setTargetConfig(store: Store, dictionary: string, config: TargetConfig): Promise<void> {
  if (config.type === 'sqlite') await setTarget(store, dictionary, { type: 'sqlite', file: config.file });
  else await setTarget(store, dictionary, { type: config.type, url: config.url });
}

export async function popstanModel(store: Store) {
  return (await requireDictionary(store, POPSTAN)).model;
}

/** A minimal query client over pg, mysql2/promise or better-sqlite3. */
export interface Query {
  all(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** One number (first column of the first row). */
  num(sql: string, params?: unknown[]): Promise<number>;
  /** `?` placeholders, numbered for PostgreSQL. */
  close(): Promise<void>;
}

export async function openQuery(config: TargetConfig): Promise<Query> {
  let all: Query['all'];
  let close: () => Promise<void>;
  if (config.type === 'postgresql') {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: config.url });
    await client.connect();
    all = async (sql, params = []) => {
      let i = 0;
      return (
        await client.query(
          sql.replace(/\?/g, () => `$${++i}`),
          params,
        )
      ).rows;
    };
    close = () => client.end();
  } else if (config.type === 'mysql') {
    const mysql = (await import('mysql2/promise')).default;
    const conn = await mysql.createConnection(config.url!);
    all = async (sql, params = []) => (await conn.query(sql, params))[0] as Record<string, unknown>[];
    close = () => conn.end();
  } else {
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(config.file!, { readonly: true });
    all = async (sql, params = []) => db.prepare(sql).all(...params) as Record<string, unknown>[];
    close = async () => {
      db.close();
    };
  }
  return {
    all,
    async num(sql, params) {
      const row = (await all(sql, params))[0]!;
      return Number(Object.values(row)[0]);
    },
    close,
  };
}

/** Columns of a table, in order. */
export async function columnsOf(q: Query, config: TargetConfig, table: string): Promise<string[]> {
  if (config.type === 'sqlite') return (await q.all(`PRAGMA table_info(${table})`)).map((r) => String(r.name));
  const schema = config.type === 'postgresql' ? `table_schema = current_schema()` : `table_schema = database()`;
  const rows = await q.all(
    `SELECT column_name AS c FROM information_schema.columns WHERE ${schema} AND table_name = ? ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((r) => String(r.c));
}

/** Canonical form of a cell for checksums: numbers and numeric strings as numbers, dates as ISO. */
function canon(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v;
}

/** SHA-256 of the sorted rows of a table, leaving out the given columns. */
export async function tableChecksum(
  q: Query,
  config: TargetConfig,
  table: string,
  exclude: string[] = [],
): Promise<{ rows: number; sha: string }> {
  const cols = (await columnsOf(q, config, table)).filter((c) => !exclude.includes(c));
  const rows = await q.all(`SELECT ${cols.join(', ')} FROM ${table}`);
  const lines = rows.map((r) => JSON.stringify(cols.map((c) => canon(r[c])))).sort();
  return { rows: rows.length, sha: createHash('sha256').update(lines.join('\n')).digest('hex') };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the compiled CLI (`bin/sds --home <home> …`). */
export function runCli(home: string, args: string[], timeoutMs = 60_000): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SDS_BIN, '--home', home, ...args], { timeout: timeoutMs, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Polls `test` every `everyMs` until it returns a value; gives up after about `timeoutMs` worth
 * of polls. A guard against a hang, not a speed check: it counts polls, not the clock, so a slow
 * machine only waits longer.
 */
export async function until<T>(
  what: string,
  test: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
  everyMs = 20,
): Promise<T> {
  for (let polls = Math.ceil(timeoutMs / everyMs); ; polls--) {
    const v = await test();
    if (v !== undefined && v !== false) return v;
    if (polls <= 0) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
