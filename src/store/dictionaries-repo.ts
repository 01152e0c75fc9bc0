import type { Database, Statement } from 'better-sqlite3';
import type { DictionaryModelCache } from './dictionary-model-cache.js';
import type { Dictionary } from '../cspro/dictionary/model.js';
import { nowIso } from './clock.js';
import { SqliteTableChanges } from './sqlite-table-changes.js';

export interface DictionaryRow {
  id: number;
  name: string;
  label: string;
  version: string;
  description: string;
  sourceFormat: 'text' | 'json';
  /** The syncable name CSPro 8.1 clients put in URLs (docs/sync.md#syncable-names); null when the dictionary has none. */
  syncName: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DictionaryRecord extends DictionaryRow {
  model: Dictionary;
}

/** The GPS items set for a dictionary (docs/export.md#geojson), as the dictionary spells them. */
export interface DictionaryGps {
  latitude: string;
  longitude: string;
  updatedAt: string;
}

export interface NewDictionary {
  name: string;
  label: string;
  version: string;
  description: string;
  source: Buffer;
  sourceFormat: 'text' | 'json';
  syncName: string | null;
  model: Dictionary;
}

/** A dictionary row as the database returns it (without source and model). */
export interface RawDictionary {
  id: number;
  name: string;
  label: string;
  version: string;
  description: string;
  source_format: 'text' | 'json';
  sync_name: string | null;
  created_at: string;
  updated_at: string;
}

/** The columns of a RawDictionary. */
export const DICTIONARY_COLUMNS = 'id, name, label, version, description, source_format, sync_name, created_at, updated_at';

/** A dictionary from its database row. */
export function toDictionaryRow(r: RawDictionary): DictionaryRow {
  return {
    id: r.id,
    name: r.name,
    label: r.label,
    version: r.version,
    description: r.description,
    sourceFormat: r.source_format,
    syncName: r.sync_name,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** What a purge removed from the store, by kind (rows). */
export interface PurgeCounts {
  /** Cases, soft-deleted ones (tombstones) included. */
  cases: number;
  /** Of `cases`, how many were soft-deleted tombstones. */
  deleted_cases: number;
  revisions: number;
  schedules: number;
  schedule_runs: number;
  sync_history: number;
  /** Finished breakout jobs of this dictionary alone (jobs of several dictionaries are kept). */
  breakout_jobs: number;
  breakout_log_entries: number;
  breakout_state: number;
  /** Captured case/dictionary events not yet turned into webhook deliveries. */
  webhook_events: number;
  /** The dictionary's target configuration (0 or 1). */
  target: number;
}

export type PurgeResult =
  { busy: { kind: 'job'; id: string; status: string } } | { counts: PurgeCounts; scheduleLogs: string[]; jobIds: string[] };

/** A pending or running job as the purge reads it. */
export interface UnfinishedJob {
  id: string;
  status: string;
  dictionaries: string;
}

/**
 * What a purge reads first (one `?`: the dictionary's id, or for `ownJobs` its name as a JSON
 * list); the same SQL on both stores.
 */
export const PURGE_READS = {
  unfinishedJobs: `SELECT id, status, dictionaries FROM jobs WHERE status IN ('pending', 'running')`,
  scheduleLogs:
    'SELECT r.log_file AS f FROM schedule_runs r JOIN schedules s ON s.id = r.schedule_id WHERE s.dictionary_id = ? AND r.log_file IS NOT NULL',
  ownJobs: 'SELECT id FROM jobs WHERE dictionaries = ?',
  total: 'SELECT total FROM case_counts WHERE dictionary_id = ?',
  deleted: 'SELECT count(*) AS n FROM cases WHERE dictionary_id = ? AND deleted = 1',
} as const;

/** One delete of a purge: its SQL (one `?`), what fills it, and the count it adds to. */
export interface PurgeDelete {
  sql: string;
  /** The dictionary's id, its name, or each of its own jobs' ids in turn. */
  by: 'id' | 'name' | 'job';
  counts?: Exclude<keyof PurgeCounts, 'cases' | 'deleted_cases'>;
}

/**
 * The deletes of a purge, in order (both stores). Rows first that are not cascaded from
 * `dictionaries`; then the cascaded ones explicitly, so the reply can count them. case_counts
 * goes first: the per-row delete trigger then finds nothing to update.
 */
export const PURGE_DELETES: readonly PurgeDelete[] = [
  { sql: 'DELETE FROM case_counts WHERE dictionary_id = ?', by: 'id' },
  { sql: 'DELETE FROM cases WHERE dictionary_id = ?', by: 'id' },
  { sql: 'DELETE FROM revisions WHERE dictionary_id = ?', by: 'id', counts: 'revisions' },
  {
    sql: 'DELETE FROM schedule_runs WHERE schedule_id IN (SELECT id FROM schedules WHERE dictionary_id = ?)',
    by: 'id',
    counts: 'schedule_runs',
  },
  { sql: 'DELETE FROM schedules WHERE dictionary_id = ?', by: 'id', counts: 'schedules' },
  { sql: 'DELETE FROM sync_history WHERE dictionary_id = ?', by: 'id', counts: 'sync_history' },
  { sql: 'DELETE FROM breakout_log WHERE dictionary = ?', by: 'name', counts: 'breakout_log_entries' },
  { sql: 'DELETE FROM jobs WHERE id = ?', by: 'job', counts: 'breakout_jobs' },
  { sql: 'DELETE FROM breakout_state WHERE dictionary_id = ?', by: 'id', counts: 'breakout_state' },
  { sql: 'DELETE FROM breakout_follow_ups WHERE dictionary_id = ?', by: 'id' },
  { sql: 'DELETE FROM webhook_outbox WHERE dictionary_id = ?', by: 'id', counts: 'webhook_events' },
  { sql: 'DELETE FROM targets WHERE dictionary_id = ?', by: 'id', counts: 'target' },
  { sql: 'DELETE FROM dictionaries WHERE id = ?', by: 'id' },
];

/** The values a purge step runs with, one run each. */
export function purgeArgs(step: PurgeDelete, id: number, name: string, ownJobs: readonly string[]): readonly (number | string)[] {
  return step.by === 'id' ? [id] : step.by === 'name' ? [name] : ownJobs;
}

/** The purge's refusal when one of `unfinished` (pending or running jobs) breaks out `name`. */
export function busyJob(unfinished: readonly UnfinishedJob[], name: string): PurgeResult | undefined {
  const job = unfinished.find((j) => (JSON.parse(j.dictionaries) as string[]).includes(name));
  return job && { busy: { kind: 'job', id: job.id, status: job.status } };
}

/** A purge's counts before its deletes: the cases it removes, of which `deleted` tombstones. */
export function purgeCounts(cases: number, deleted: number): PurgeCounts {
  return {
    cases,
    deleted_cases: deleted,
    revisions: 0,
    schedules: 0,
    schedule_runs: 0,
    sync_history: 0,
    breakout_jobs: 0,
    breakout_log_entries: 0,
    breakout_state: 0,
    webhook_events: 0,
    target: 0,
  };
}

/** Stored dictionaries: original bytes, parsed model and metadata. */
export class DictionariesRepo {
  private readonly byName: Statement<[string], RawDictionary>;
  private readonly byEitherName: Statement<[string, string, string], RawDictionary>;
  private readonly modelByName: Statement<[string], RawDictionary & { model: string }>;
  private readonly modelByEitherName: Statement<[string, string, string], RawDictionary & { model: string }>;
  private readonly all: Statement<[], RawDictionary>;
  private readonly changes: SqliteTableChanges;
  /** Dictionaries resolved by a name while the table was at `mark` (docs/decisions.md, "The dictionary row kept between requests"). */
  private resolved: { mark: string | undefined; byName: Map<string, DictionaryRecord> } = { mark: undefined, byName: new Map() };

  constructor(
    private readonly db: Database,
    private readonly models: DictionaryModelCache,
  ) {
    this.changes = new SqliteTableChanges(db, 'dictionaries');
    this.byName = db.prepare(`SELECT ${DICTIONARY_COLUMNS} FROM dictionaries WHERE name = ?`);
    this.byEitherName = db.prepare(
      `SELECT ${DICTIONARY_COLUMNS} FROM dictionaries WHERE name = ? OR sync_name = ? ORDER BY name = ? DESC LIMIT 1`,
    );
    this.modelByName = db.prepare(`SELECT ${DICTIONARY_COLUMNS}, model FROM dictionaries WHERE name = ?`);
    this.modelByEitherName = db.prepare(
      `SELECT ${DICTIONARY_COLUMNS}, model FROM dictionaries WHERE name = ? OR sync_name = ? ORDER BY name = ? DESC LIMIT 1`,
    );
    this.all = db.prepare(`SELECT ${DICTIONARY_COLUMNS} FROM dictionaries ORDER BY name`);
  }

  /**
   * Holds the lock that serialises changes to the set of dictionaries until the transaction
   * ends: on SQLite the IMMEDIATE transaction holds the one writer lock already, so nothing more
   * (the PostgreSQL store takes an advisory lock).
   */
  async lockForChanges(): Promise<void> {}

  async find(name: string): Promise<DictionaryRow | undefined> {
    return this.findSync(name);
  }

  private findSync(name: string): DictionaryRow | undefined {
    const r = this.byName.get(name);
    return r && toDictionaryRow(r);
  }

  /** The dictionary named `name` by its own name, or else by its syncable name (exact, both). */
  async resolve(name: string): Promise<DictionaryRow | undefined> {
    const r = this.byEitherName.get(name, name, name);
    return r && toDictionaryRow(r);
  }

  async findWithModel(name: string): Promise<DictionaryRecord | undefined> {
    const r = this.modelByName.get(name);
    return r && this.withModel(r);
  }

  /**
   * The dictionary named `name`, by its own name or else by its syncable name, with its model:
   * one statement, and the model parsed only when it changed (dictionary-model-cache.ts); no
   * statement at all while the table cannot have changed since the last (sqlite-table-changes.ts).
   */
  async resolveWithModel(name: string): Promise<DictionaryRecord | undefined> {
    // Every sync request asks: while the table cannot have changed, the row read last is the
    // row, and its model text (tens to hundreds of KB) is not read again to be compared.
    const mark = this.changes.mark();
    if (mark !== undefined && mark === this.resolved.mark) {
      const known = this.resolved.byName.get(name);
      if (known) return { ...known };
    }
    const r = this.modelByEitherName.get(name, name, name);
    const record = r && this.withModel(r);
    if (record && mark !== undefined) {
      if (mark !== this.resolved.mark) this.resolved = { mark, byName: new Map() };
      this.resolved.byName.set(name, record);
    }
    return record && { ...record };
  }

  // On SQLite the text is its own version: comparing it costs far less than parsing it.
  private withModel(r: RawDictionary & { model: string }): DictionaryRecord {
    return { ...toDictionaryRow(r), model: this.models.get(r.id, r.model) ?? this.models.put(r.id, r.model, r.model) };
  }

  async list(): Promise<DictionaryRow[]> {
    return this.all.all().map(toDictionaryRow);
  }

  async source(name: string): Promise<Buffer | undefined> {
    const r = this.db.prepare('SELECT source FROM dictionaries WHERE name = ?').get(name) as { source: Buffer } | undefined;
    return r?.source;
  }

  /** Inserts a new dictionary or replaces the file, model and label of an existing one. */
  async save(d: NewDictionary): Promise<{ row: DictionaryRow; created: boolean }> {
    const now = nowIso();
    const existing = this.findSync(d.name);
    if (existing) {
      this.db
        .prepare(
          `UPDATE dictionaries SET label = ?, version = ?, description = ?, source = ?, source_format = ?, sync_name = ?, model = ?, updated_at = ?
           WHERE id = ?`,
        )
        .run(d.label, d.version, d.description, d.source, d.sourceFormat, d.syncName, JSON.stringify(d.model), now, existing.id);
    } else {
      this.db
        .prepare(
          `INSERT INTO dictionaries (name, label, version, description, source, source_format, sync_name, model, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(d.name, d.label, d.version, d.description, d.source, d.sourceFormat, d.syncName, JSON.stringify(d.model), now, now);
    }
    return { row: this.findSync(d.name)!, created: !existing };
  }

  /**
   * Removes a dictionary and everything the store keeps for it in one IMMEDIATE transaction
   * (docs/decisions.md, "Purging a dictionary"). Refused (returns `busy`) when a breakout job
   * of the dictionary is pending or running; the check is inside the transaction so a job cannot
   * start between check and delete. Counts are of the
   * rows removed; `logFiles` are the schedule run and job log files (relative to the breakout
   * log folder for schedule runs, job ids for jobs) the caller deletes after the commit.
   */
  async purge(id: number, name: string): Promise<PurgeResult> {
    return this.db
      .transaction((): PurgeResult => {
        const job = busyJob(this.db.prepare(PURGE_READS.unfinishedJobs).all() as UnfinishedJob[], name);
        if (job) return job;
        const scheduleLogs = (this.db.prepare(PURGE_READS.scheduleLogs).all(id) as { f: string }[]).map((r) => r.f);
        const ownJobs = (this.db.prepare(PURGE_READS.ownJobs).all(JSON.stringify([name])) as { id: string }[]).map((j) => j.id);
        const counts = purgeCounts(
          (this.db.prepare(PURGE_READS.total).get(id) as { total: number } | undefined)?.total ?? 0,
          (this.db.prepare(PURGE_READS.deleted).get(id) as { n: number }).n,
        );
        for (const step of PURGE_DELETES) {
          for (const arg of purgeArgs(step, id, name, ownJobs)) {
            const n = this.db.prepare(step.sql).run(arg).changes;
            if (step.counts) counts[step.counts] += n;
          }
        }
        return { counts, scheduleLogs, jobIds: ownJobs };
      })
      .immediate();
  }

  /** The GPS items set for the dictionary `id`, or undefined when none are. */
  async gps(id: number): Promise<DictionaryGps | undefined> {
    const r = this.db.prepare('SELECT latitude_item, longitude_item, updated_at FROM dictionary_gps WHERE dictionary_id = ?').get(id) as
      { latitude_item: string; longitude_item: string; updated_at: string } | undefined;
    return r && { latitude: r.latitude_item, longitude: r.longitude_item, updatedAt: r.updated_at };
  }

  /** Sets (replacing) or, with null, clears the GPS items of the dictionary `id`; true when it had some before. */
  async setGps(id: number, gps: { latitude: string; longitude: string } | null): Promise<boolean> {
    if (!gps) return this.db.prepare('DELETE FROM dictionary_gps WHERE dictionary_id = ?').run(id).changes > 0;
    const had = this.db.prepare('SELECT 1 FROM dictionary_gps WHERE dictionary_id = ?').get(id) !== undefined;
    this.db
      .prepare(
        `INSERT INTO dictionary_gps (dictionary_id, latitude_item, longitude_item, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (dictionary_id) DO UPDATE SET latitude_item = excluded.latitude_item, longitude_item = excluded.longitude_item,
           updated_at = excluded.updated_at`,
      )
      .run(id, gps.latitude, gps.longitude, nowIso());
    return had;
  }

  async delete(id: number): Promise<void> {
    const tx = this.db.transaction(() => {
      this.db.prepare('DELETE FROM revisions WHERE dictionary_id = ?').run(id);
      this.db.prepare('DELETE FROM dictionaries WHERE id = ?').run(id);
    });
    tx.immediate();
  }
}
