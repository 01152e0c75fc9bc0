/**
 * Stored dictionaries on the PostgreSQL store: the SQLite repository's statements
 * (../dictionaries-repo.ts), with the locks that stand in for SQLite's one writer where a
 * check and the write after it must not be split (docs/decisions.md, "Concurrent writers on the
 * PostgreSQL store").
 */
import type { DictionaryModelCache } from '../dictionary-model-cache.js';
import { nowIso } from '../clock.js';
import {
  busyJob,
  DICTIONARY_COLUMNS,
  PURGE_DELETES,
  PURGE_READS,
  purgeArgs,
  purgeCounts,
  toDictionaryRow,
  type DictionariesRepo,
  type DictionaryGps,
  type DictionaryRecord,
  type DictionaryRow,
  type NewDictionary,
  type PurgeResult,
  type RawDictionary,
  type UnfinishedJob,
} from '../dictionaries-repo.js';
import type { RepoContract } from '../store-contract.js';
import { numbered } from './case-query-sql.js';
import { lockCaseWrites } from './cases-repo.js';
import type { PgRunner } from './pg-runner.js';

const UPDATE = `UPDATE dictionaries SET label = $2, version = $3, description = $4, source = $5, source_format = $6, sync_name = $7, model = $8, updated_at = $9
  WHERE name = $1 RETURNING ${DICTIONARY_COLUMNS}`;
const INSERT = `INSERT INTO dictionaries (name, label, version, description, source, source_format, sync_name, model, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) ON CONFLICT (name) DO NOTHING RETURNING ${DICTIONARY_COLUMNS}`;

/**
 * The version of a dictionary row: a new row version (any update) has a new `xmin` or, within
 * one transaction, a new `ctid`, so the pair names the model text exactly.
 */
const ROW_VERSION = `(id::text || ':' || xmin::text || ':' || ctid::text)`;

/** Stored dictionaries on PostgreSQL: original bytes, parsed model and metadata. */
/** The key of the advisory lock of dictionary changes: the ASCII bytes of "sdsdicts" as a 64-bit integer. */
const DICTIONARY_LOCK_KEY = String(BigInt.asIntN(64, BigInt('0x' + Buffer.from('sdsdicts').toString('hex'))));

export class PgDictionariesRepo implements RepoContract<DictionariesRepo> {
  constructor(
    private readonly db: PgRunner,
    private readonly models: DictionaryModelCache,
  ) {}

  private async one(where: string, value: string): Promise<DictionaryRow | undefined> {
    const r = await this.db.row<RawDictionary>(`SELECT ${DICTIONARY_COLUMNS} FROM dictionaries WHERE ${where} = $1`, [value]);
    return r && toDictionaryRow(r);
  }

  /**
   * Holds, until the transaction ends, the lock that serialises changes to the set of
   * dictionaries: a label or syncable-name check and the save that depends on it
   * (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
   */
  async lockForChanges(): Promise<void> {
    await this.db.run(`SELECT pg_advisory_xact_lock(${DICTIONARY_LOCK_KEY})`);
  }

  async find(name: string): Promise<DictionaryRow | undefined> {
    return this.one('name', name);
  }

  /** The dictionary named `name` by its own name, or else by its syncable name (exact, both): one round trip. */
  async resolve(name: string): Promise<DictionaryRow | undefined> {
    const r = await this.db.row<RawDictionary>(
      `SELECT ${DICTIONARY_COLUMNS} FROM dictionaries WHERE name = $1 OR sync_name = $1 ORDER BY name = $1 DESC LIMIT 1`,
      [name],
    );
    return r && toDictionaryRow(r);
  }

  async findWithModel(name: string): Promise<DictionaryRecord | undefined> {
    return this.withModel('name = $1', name);
  }

  /**
   * The dictionary named `name`, by its own name or else by its syncable name, with its model:
   * one round trip, and the model sent and parsed only when it changed (dictionary-model-cache.ts).
   */
  async resolveWithModel(name: string): Promise<DictionaryRecord | undefined> {
    return this.withModel('name = $1 OR sync_name = $1', name);
  }

  private async withModel(where: string, name: string, skip = this.models.versions()): Promise<DictionaryRecord | undefined> {
    const r = await this.db.row<RawDictionary & { row_version: string; model: string | null }>(
      `SELECT ${DICTIONARY_COLUMNS}, ${ROW_VERSION} AS row_version, CASE WHEN ${ROW_VERSION} = ANY($2::text[]) THEN NULL ELSE model END AS model
       FROM dictionaries WHERE ${where} ORDER BY name = $1 DESC LIMIT 1`,
      [name, skip],
    );
    if (!r) return undefined;
    const model = r.model === null ? this.models.get(r.id, r.row_version) : this.models.put(r.id, r.row_version, r.model);
    // Another request replaced the entry between the query and here: read the text this time.
    return model ? { ...toDictionaryRow(r), model } : this.withModel(where, name, []);
  }

  async list(): Promise<DictionaryRow[]> {
    return (await this.db.rows<RawDictionary>(`SELECT ${DICTIONARY_COLUMNS} FROM dictionaries ORDER BY name`)).map(toDictionaryRow);
  }

  async source(name: string): Promise<Buffer | undefined> {
    return (await this.db.row<{ source: Buffer }>('SELECT source FROM dictionaries WHERE name = $1', [name]))?.source;
  }

  /**
   * Inserts a new dictionary or replaces the file, model and label of an existing one. Race-free
   * without a lock: an update, else an insert that yields to one committed meanwhile
   * (ON CONFLICT DO NOTHING), then the update of the row that won.
   */
  async save(d: NewDictionary): Promise<{ row: DictionaryRow; created: boolean }> {
    const now = nowIso();
    const fields = [d.label, d.version, d.description, d.source, d.sourceFormat, d.syncName, JSON.stringify(d.model), now];
    const update = () => this.db.row<RawDictionary>(UPDATE, [d.name, ...fields]);
    const updated = await update();
    if (updated) return { row: toDictionaryRow(updated), created: false };
    const inserted = await this.db.row<RawDictionary>(INSERT, [d.name, ...fields]);
    if (inserted) return { row: toDictionaryRow(inserted), created: true };
    return { row: toDictionaryRow((await update())!), created: false };
  }

  /**
   * Removes a dictionary and everything the store keeps for it in one transaction
   * (docs/decisions.md, "Purging a dictionary"); refused (`busy`) while a breakout job of it is
   * pending or running. Where SQLite's IMMEDIATE transaction kept every other writer out, this
   * one takes the case-write lock (no upload or import of the dictionary is half done) and locks
   * `jobs` against writes (no job is queued or started between the check and the deletes) until
   * it commits (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
   */
  async purge(id: number, name: string): Promise<PurgeResult> {
    return this.db.atomic(async (r): Promise<PurgeResult> => {
      await lockCaseWrites(r);
      await r.run('LOCK TABLE jobs IN SHARE ROW EXCLUSIVE MODE');
      const job = busyJob(await r.rows<UnfinishedJob & Record<string, unknown>>(PURGE_READS.unfinishedJobs), name);
      if (job) return job;
      const scheduleLogs = (await r.rows<{ f: string }>(numbered(PURGE_READS.scheduleLogs), [id])).map((x) => x.f);
      const ownJobs = (await r.rows<{ id: string }>(numbered(PURGE_READS.ownJobs), [JSON.stringify([name])])).map((j) => j.id);
      const counts = purgeCounts(
        (await r.row<{ total: number }>(numbered(PURGE_READS.total), [id]))?.total ?? 0,
        (await r.row<{ n: number }>(numbered(PURGE_READS.deleted), [id]))!.n,
      );
      for (const step of PURGE_DELETES) {
        for (const arg of purgeArgs(step, id, name, ownJobs)) {
          const n = await r.run(numbered(step.sql), [arg]);
          if (step.counts) counts[step.counts] += n;
        }
      }
      return { counts, scheduleLogs, jobIds: ownJobs };
    });
  }

  /** The GPS items set for the dictionary `id`, or undefined when none are. */
  async gps(id: number): Promise<DictionaryGps | undefined> {
    const r = await this.db.row<{ latitude_item: string; longitude_item: string; updated_at: string }>(
      'SELECT latitude_item, longitude_item, updated_at FROM dictionary_gps WHERE dictionary_id = $1',
      [id],
    );
    return r && { latitude: r.latitude_item, longitude: r.longitude_item, updatedAt: r.updated_at };
  }

  /**
   * Sets (replacing) or, with null, clears the GPS items of the dictionary `id`; true when it had
   * some before. One statement each way, so two writers leave one setting or none, never both.
   */
  async setGps(id: number, gps: { latitude: string; longitude: string } | null): Promise<boolean> {
    if (!gps) return (await this.db.run('DELETE FROM dictionary_gps WHERE dictionary_id = $1', [id])) > 0;
    const r = await this.db.row<{ had: boolean }>(
      `WITH old AS (SELECT 1 FROM dictionary_gps WHERE dictionary_id = $1)
       INSERT INTO dictionary_gps (dictionary_id, latitude_item, longitude_item, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (dictionary_id) DO UPDATE SET latitude_item = excluded.latitude_item, longitude_item = excluded.longitude_item,
         updated_at = excluded.updated_at
       RETURNING EXISTS (SELECT 1 FROM old) AS had`,
      [id, gps.latitude, gps.longitude, nowIso()],
    );
    return r!.had;
  }

  /** Removes a dictionary without cases and its revisions, both or neither. */
  async delete(id: number): Promise<void> {
    await this.db.atomic(async (r) => {
      await r.run('DELETE FROM revisions WHERE dictionary_id = $1', [id]);
      await r.run('DELETE FROM dictionaries WHERE id = $1', [id]);
    });
  }
}
