import type { Database } from 'better-sqlite3';
import { nowIso } from './clock.js';

export type TargetType = 'postgresql' | 'mysql' | 'sqlserver' | 'sqlite';

/** A dictionary's breakout target as configured; passwords only as the name of an env variable. */
export interface TargetRow {
  type: TargetType;
  url: string | null;
  host: string | null;
  port: number | null;
  database: string | null;
  username: string | null;
  passwordEnv: string | null;
  file: string | null;
  foreignKeys: boolean;
  /** TLS fields (`--tls-mode`, `--tls-ca`, `--tls-cert`, `--tls-key`); null: not given. */
  tlsMode: string | null;
  tlsCa: string | null;
  tlsCert: string | null;
  tlsKey: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A `targets` row as both stores return it (flags 0/1). */
export interface RawTarget {
  type: TargetType;
  url: string | null;
  host: string | null;
  port: number | null;
  database: string | null;
  username: string | null;
  password_env: string | null;
  file: string | null;
  foreign_keys: number;
  tls_mode: string | null;
  tls_ca: string | null;
  tls_cert: string | null;
  tls_key: string | null;
  created_at: string;
  updated_at: string;
}

/** The target a `targets` row holds (shared by the PostgreSQL store). */
export function toTarget(r: RawTarget): TargetRow {
  return {
    type: r.type,
    url: r.url,
    host: r.host,
    port: r.port,
    database: r.database,
    username: r.username,
    passwordEnv: r.password_env,
    file: r.file,
    foreignKeys: r.foreign_keys === 1,
    tlsMode: r.tls_mode,
    tlsCa: r.tls_ca,
    tlsCert: r.tls_cert,
    tlsKey: r.tls_key,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The upsert of `set` with `values` as its VALUES list (in the order of targetParams). */
export function targetUpsertSql(values: string): string {
  return `INSERT INTO targets (dictionary_id, type, url, host, port, database, username, password_env, file, foreign_keys,
           tls_mode, tls_ca, tls_cert, tls_key, created_at, updated_at)
         VALUES (${values})
         ON CONFLICT (dictionary_id) DO UPDATE SET type = excluded.type, url = excluded.url, host = excluded.host, port = excluded.port,
           database = excluded.database, username = excluded.username, password_env = excluded.password_env, file = excluded.file,
           foreign_keys = excluded.foreign_keys,
           tls_mode = excluded.tls_mode, tls_ca = excluded.tls_ca, tls_cert = excluded.tls_cert, tls_key = excluded.tls_key, updated_at = excluded.updated_at`;
}

/** The parameters of targetUpsertSql for the target of `dictionaryId` at `now` (foreign keys as 0/1). */
export function targetParams(dictionaryId: number, t: Omit<TargetRow, 'createdAt' | 'updatedAt'>, now: string): unknown[] {
  return [
    dictionaryId,
    t.type,
    t.url,
    t.host,
    t.port,
    t.database,
    t.username,
    t.passwordEnv,
    t.file,
    t.foreignKeys ? 1 : 0,
    t.tlsMode,
    t.tlsCa,
    t.tlsCert,
    t.tlsKey,
    now,
    now,
  ];
}

/** Breakout targets, one per dictionary. */
export class TargetsRepo {
  constructor(private readonly db: Database) {}

  async get(dictionaryId: number): Promise<TargetRow | undefined> {
    const r = this.db.prepare('SELECT * FROM targets WHERE dictionary_id = ?').get(dictionaryId) as RawTarget | undefined;
    return r && toTarget(r);
  }

  async set(dictionaryId: number, t: Omit<TargetRow, 'createdAt' | 'updatedAt'>): Promise<void> {
    this.db.prepare(targetUpsertSql('?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?')).run(...targetParams(dictionaryId, t, nowIso()));
  }

  async clear(dictionaryId: number): Promise<boolean> {
    return this.db.prepare('DELETE FROM targets WHERE dictionary_id = ?').run(dictionaryId).changes > 0;
  }
}
