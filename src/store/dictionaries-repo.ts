import type { Database, Statement } from 'better-sqlite3';
import type { Dictionary } from '../cspro/dictionary/model.js';
import { nowIso } from './clock.js';

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

interface RawRow {
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

const COLUMNS = 'id, name, label, version, description, source_format, sync_name, created_at, updated_at';

function toRow(r: RawRow): DictionaryRow {
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

/** Stored dictionaries: original bytes, parsed model and metadata. */
export class DictionariesRepo {
  private readonly byName: Statement<[string], RawRow>;
  private readonly bySyncName: Statement<[string], RawRow>;
  private readonly modelByName: Statement<[string], RawRow & { model: string }>;
  private readonly all: Statement<[], RawRow>;

  constructor(private readonly db: Database) {
    this.byName = db.prepare(`SELECT ${COLUMNS} FROM dictionaries WHERE name = ?`);
    this.bySyncName = db.prepare(`SELECT ${COLUMNS} FROM dictionaries WHERE sync_name = ?`);
    this.modelByName = db.prepare(`SELECT ${COLUMNS}, model FROM dictionaries WHERE name = ?`);
    this.all = db.prepare(`SELECT ${COLUMNS} FROM dictionaries ORDER BY name`);
  }

  async find(name: string): Promise<DictionaryRow | undefined> {
    return this.findSync(name);
  }

  private findSync(name: string): DictionaryRow | undefined {
    const r = this.byName.get(name);
    return r && toRow(r);
  }

  /** The dictionary whose syncable name is exactly `syncName`. */
  async findBySyncName(syncName: string): Promise<DictionaryRow | undefined> {
    const r = this.bySyncName.get(syncName);
    return r && toRow(r);
  }

  async findWithModel(name: string): Promise<DictionaryRecord | undefined> {
    const r = this.modelByName.get(name);
    return r && { ...toRow(r), model: JSON.parse(r.model) as Dictionary };
  }

  async list(): Promise<DictionaryRow[]> {
    return this.all.all().map(toRow);
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
        const unfinished = this.db.prepare(`SELECT id, status, dictionaries FROM jobs WHERE status IN ('pending', 'running')`).all() as {
          id: string;
          status: string;
          dictionaries: string;
        }[];
        const job = unfinished.find((j) => (JSON.parse(j.dictionaries) as string[]).includes(name));
        if (job) return { busy: { kind: 'job', id: job.id, status: job.status } };
        const del = (sql: string, ...args: unknown[]) => this.db.prepare(sql).run(...args).changes;
        const scheduleLogs = (
          this.db
            .prepare(
              'SELECT r.log_file AS f FROM schedule_runs r JOIN schedules s ON s.id = r.schedule_id WHERE s.dictionary_id = ? AND r.log_file IS NOT NULL',
            )
            .all(id) as { f: string }[]
        ).map((r) => r.f);
        const ownJobs = (this.db.prepare(`SELECT id FROM jobs WHERE dictionaries = ?`).all(JSON.stringify([name])) as { id: string }[]).map(
          (j) => j.id,
        );
        const counts: PurgeCounts = {
          cases:
            (this.db.prepare('SELECT total FROM case_counts WHERE dictionary_id = ?').get(id) as { total: number } | undefined)?.total ?? 0,
          deleted_cases: (
            this.db.prepare('SELECT count(*) AS n FROM cases WHERE dictionary_id = ? AND deleted = 1').get(id) as { n: number }
          ).n,
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
        // Rows first that are not cascaded from `dictionaries`; then the cascaded ones explicitly,
        // so the reply can count them. case_counts goes first: the per-row delete trigger then
        // finds nothing to update.
        del('DELETE FROM case_counts WHERE dictionary_id = ?', id);
        del('DELETE FROM cases WHERE dictionary_id = ?', id);
        counts.revisions = del('DELETE FROM revisions WHERE dictionary_id = ?', id);
        counts.schedule_runs = del('DELETE FROM schedule_runs WHERE schedule_id IN (SELECT id FROM schedules WHERE dictionary_id = ?)', id);
        counts.schedules = del('DELETE FROM schedules WHERE dictionary_id = ?', id);
        counts.sync_history = del('DELETE FROM sync_history WHERE dictionary_id = ?', id);
        counts.breakout_log_entries = del('DELETE FROM breakout_log WHERE dictionary = ?', name);
        for (const j of ownJobs) counts.breakout_jobs += del('DELETE FROM jobs WHERE id = ?', j);
        counts.breakout_state = del('DELETE FROM breakout_state WHERE dictionary_id = ?', id);
        del('DELETE FROM breakout_follow_ups WHERE dictionary_id = ?', id);
        counts.webhook_events = del('DELETE FROM webhook_outbox WHERE dictionary_id = ?', id);
        counts.target = del('DELETE FROM targets WHERE dictionary_id = ?', id);
        del('DELETE FROM dictionaries WHERE id = ?', id);
        return { counts, scheduleLogs, jobIds: ownJobs };
      })
      .immediate();
  }

  async delete(id: number): Promise<void> {
    const tx = this.db.transaction(() => {
      this.db.prepare('DELETE FROM revisions WHERE dictionary_id = ?').run(id);
      this.db.prepare('DELETE FROM dictionaries WHERE id = ?').run(id);
    });
    tx.immediate();
  }
}
