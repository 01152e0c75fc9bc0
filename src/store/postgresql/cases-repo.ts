/**
 * Cases of all dictionaries and the revision counter on the PostgreSQL store: the SQLite
 * repository's statements (../cases-repo.ts), with the one lock that stands in for SQLite's one
 * writer where case writes are ordered (docs/decisions.md, "Concurrent writers on the PostgreSQL
 * store").
 */
import {
  CASE_COLUMNS,
  CASE_UPSERT_SET,
  CHANGED_COLUMNS,
  caseWriteValues,
  fitting,
  toChanged,
  toStored,
  toSummary,
  type CaseAtRevision,
  type CasesRepo,
  type CaseSummaryRow,
  type CasesRead,
  type CaseWrite,
  type ChangedCase,
  type RawCase,
  type RawChanged,
  type RawSummary,
  type StoredCase,
  type UploadWrite,
} from '../cases-repo.js';
import { nowIso } from '../clock.js';
import type { RepoContract } from '../store-contract.js';
import type { PgRunner } from './pg-runner.js';

/**
 * The key of the transaction-scoped advisory lock that orders the store's case writes: the ASCII
 * bytes of "sdsrevis" as a 64-bit integer (advisory locks are per database).
 */
const CASE_WRITE_LOCK_KEY = '8314897747198503283';

/**
 * Waits for, then holds until the transaction ends, the lock every case write takes before it
 * allocates or records a revision and before it reads the cases it merges with
 * (docs/decisions.md, "Concurrent writers on the PostgreSQL store"). Revisions then commit in the
 * order they were given, so a download that read the store up to revision N never misses a
 * revision below N committed later; new cases take their dictionary's positions one writer at a
 * time; and a merge reads what the writer before it committed. A statement of its own: under
 * READ COMMITTED each later statement takes a snapshot that sees the commits it waited for, which
 * a statement that waited inside itself would not.
 */
export async function lockCaseWrites(db: PgRunner): Promise<void> {
  await db.lockForTransaction(CASE_WRITE_LOCK_KEY);
}

const UPSERT = `INSERT INTO cases (dictionary_id, guid, case_key, label, data, verified, deleted, revision, clock, partial_save, notes, case_note, created_at, modified_at, position)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, (SELECT coalesce(max(position), 0) + 1 FROM cases WHERE dictionary_id = $1))
  ON CONFLICT (dictionary_id, guid) DO UPDATE SET ${CASE_UPSERT_SET}`;

// SQLite's AUTOINCREMENT counter continues above a number inserted explicitly; an identity
// sequence does not move by itself, so it is set past the number.
const RECORD_REVISION = `WITH recorded AS (
    INSERT INTO revisions (revision, dictionary_id, origin, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (revision) DO NOTHING
  )
  SELECT setval(s.seq, $1::bigint) FROM (SELECT pg_get_serial_sequence('revisions', 'revision')::regclass AS seq) s
  WHERE $1::bigint > coalesce(pg_sequence_last_value(s.seq), 0)`;

// A batch in one statement: one array per column (14 parameters however many rows, far below
// the 65,535 bound). New guids take the dictionary's next positions in the order given, as one
// upsert after the other gives them; the rows are inserted in that order, so the capture
// triggers see them as SQLite's do. Which guids are new is one index probe per row (a LATERAL
// with LIMIT, which the planner cannot turn into a join): as NOT EXISTS, a table whose
// statistics are missing or stale was hashed whole for every batch (bench/README.md, "The two
// stores side by side").
const UPSERT_MANY = `WITH input AS (
    SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::smallint[], $7::smallint[], $8::bigint[],
                         $9::text[], $10::text[], $11::text[], $12::text[]) WITH ORDINALITY
      AS t(guid, case_key, label, data, verified, deleted, revision, clock, partial_save, notes, case_note, n)
  ), fresh AS (
    SELECT i.n, row_number() OVER (ORDER BY i.n) AS k FROM input i
      LEFT JOIN LATERAL (SELECT 1 AS stored FROM cases c WHERE c.dictionary_id = $1 AND c.guid = i.guid LIMIT 1) s ON true
     WHERE s.stored IS NULL
  ), top AS (
    SELECT coalesce(max(position), 0) AS p FROM cases WHERE dictionary_id = $1
  )
  INSERT INTO cases (dictionary_id, guid, case_key, label, data, verified, deleted, revision, clock, partial_save, notes, case_note, created_at, modified_at, position)
  SELECT $1, i.guid, i.case_key, i.label, i.data, i.verified, i.deleted, i.revision, i.clock, i.partial_save, i.notes, i.case_note, $13, $13,
         coalesce(top.p + f.k, 0)
    FROM input i LEFT JOIN fresh f USING (n) CROSS JOIN top
   ORDER BY i.n
  ON CONFLICT (dictionary_id, guid) DO UPDATE SET ${CASE_UPSERT_SET}`;

/**
 * `rows` cut where a guid comes again, so that no statement writes one row twice (PostgreSQL's
 * ON CONFLICT DO UPDATE refuses that); in order (pure).
 */
function withoutRepeats<T>(rows: readonly T[], key: (row: T) => string): T[][] {
  const runs: T[][] = [];
  let run: T[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    if (seen.has(key(row))) {
      runs.push(run);
      run = [];
      seen.clear();
    }
    seen.add(key(row));
    run.push(row);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

/** The column arrays of UPSERT_MANY ($2 to $12) for `rows`. */
function columnsOf(rows: readonly CaseAtRevision[]): unknown[][] {
  const columns: unknown[][] = Array.from({ length: 11 }, () => []);
  for (const r of rows) caseWriteValues(r.write, r.revision).forEach((v, i) => columns[i]!.push(v));
  return columns;
}

const CHANGED_RANGE = 'FROM cases WHERE dictionary_id = $1 AND (revision, guid) > ($2, $3) AND revision <= $4';
const PAGE_ORDER = 'FROM cases WHERE dictionary_id = $1 ORDER BY case_key, guid LIMIT $2 OFFSET $3';

/** Cases of all dictionaries, and the revision counter that orders their changes, on PostgreSQL. */
export class PgCasesRepo implements RepoContract<CasesRepo> {
  constructor(private readonly db: PgRunner) {}

  async get(dictionaryId: number, guid: string): Promise<StoredCase | undefined> {
    const r = await this.db.row<RawCase>(`SELECT ${CASE_COLUMNS} FROM cases WHERE dictionary_id = $1 AND guid = $2`, [dictionaryId, guid]);
    return r && toStored(r);
  }

  /**
   * Existing cases among `guids`, keyed by guid, in one statement whatever their number (an
   * array, not one parameter each). The read a merge decides on: it takes the case-write lock
   * first (lockCaseWrites), so it sees the writes committed before this one.
   */
  async getMany(dictionaryId: number, guids: string[]): Promise<Map<string, StoredCase>> {
    const out = new Map<string, StoredCase>();
    if (guids.length === 0) return out;
    await lockCaseWrites(this.db);
    const rows = await this.db.rows<RawCase>(
      `SELECT ${CASE_COLUMNS} FROM cases WHERE dictionary_id = $1 AND guid = ANY($2::text[]) ORDER BY guid`,
      [dictionaryId, guids],
    );
    for (const r of rows) out.set(r.guid, toStored(r));
    return out;
  }

  /**
   * The stored cases among `guids`, each with its row version (xmin), read on their own, outside
   * any transaction and without the case-write lock: what an upload decides on before
   * writeUploadIfUnchanged checks, under the lock, that they are still the row versions read.
   */
  async readForUpload(dictionaryId: number, guids: string[]): Promise<CasesRead> {
    // The store's device id comes with the cases (a round trip less): a row even when no case is stored.
    const rows = await this.db.rows<
      (RawCase & { version: string }) | (Record<keyof RawCase | 'version', null> & { device: string | null })
    >(
      `SELECT (SELECT value FROM settings WHERE name = 'server_device_id') AS device, c.*
         FROM (SELECT 1) one LEFT JOIN LATERAL (
           SELECT ${CASE_COLUMNS}, xmin::text AS version FROM cases WHERE dictionary_id = $1 AND guid = ANY($2::text[])) c ON true`,
      [dictionaryId, guids],
    );
    const cases = new Map<string, StoredCase>();
    const versions = new Map<string, string>();
    for (const r of rows) {
      if (r.guid === null) continue;
      cases.set(r.guid, toStored(r as RawCase));
      versions.set(r.guid, r.version!);
    }
    const device = (rows[0] as { device: string | null } | undefined)?.device ?? undefined;
    return {
      cases,
      versions: guids.map((guid) => ({ guid, version: versions.get(guid) ?? null })),
      ...(device !== undefined ? { serverDeviceId: device } : {}),
    };
  }

  /**
   * Writes an upload decided from readForUpload in one statement, the function sds_write_upload
   * (migration 0025): under the case-write lock, taken before the revision is drawn and held until
   * the statement's transaction commits, it checks that every case read is still the row version
   * read, then draws the revision, upserts the cases and their binary items and records the sync
   * history. The lock is held for that one statement instead of a transaction of several round
   * trips (docs/decisions.md, "Concurrent writers on the PostgreSQL store"). The revision, or
   * undefined when a case read had changed: nothing is written then. Outside a transaction only.
   */
  async writeUploadIfUnchanged(u: UploadWrite): Promise<number | undefined> {
    const columns: unknown[][] = Array.from({ length: 11 }, () => []);
    for (const w of u.rows) caseWriteValues(w, 0).forEach((v, i) => columns[i]!.push(v));
    columns.splice(6, 1); // the revision is drawn by the function
    const items = u.items.flatMap((c) => c.items.map((i) => ({ guid: c.guid, ...i })));
    const r = await this.db.row<{ revision: string | number | null }>(
      `SELECT sds_write_upload($1, $2, $3, $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::smallint[],
                               $11::smallint[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[],
                               $18::text[], $19::bigint[], $20::text[], $21, $22, $23) AS revision`,
      [
        u.dictionaryId,
        u.origin,
        u.now,
        u.read.map((x) => x.guid),
        u.read.map((x) => x.version),
        ...columns,
        u.items.map((c) => c.guid),
        items.map((i) => i.guid),
        items.map((i) => i.signature),
        items.map((i) => i.size),
        items.map((i) => i.modifiedTime),
        u.history.device,
        u.history.username,
        u.history.cases,
      ],
    );
    const revision = r?.revision;
    return revision === null || revision === undefined ? undefined : Number(revision);
  }

  /**
   * Allocates the next revision number under the case-write lock (lockCaseWrites), held until
   * the transaction ends; call inside the write transaction that uses it. A number of a
   * transaction that rolls back is not given again.
   */
  async nextRevision(dictionaryId: number, origin: string): Promise<number> {
    // The lock and the number in one round trip: the number is drawn once the lock is held (the
    // row is made from the lock's row), and the insert reads nothing that the snapshot it took
    // before the wait could hide. The statements after it take their snapshots once it has
    // returned, the lock held, so the reads that need the lock (getMany) skip their own statement.
    const r = await this.db.row<{ revision: number }>(
      `WITH locked AS (SELECT pg_advisory_xact_lock(${CASE_WRITE_LOCK_KEY}))
       INSERT INTO revisions (dictionary_id, origin, created_at) SELECT $1, $2, $3 FROM locked RETURNING revision`,
      [dictionaryId, origin, nowIso()],
    );
    this.db.heldForTransaction(CASE_WRITE_LOCK_KEY);
    return r!.revision;
  }

  /**
   * Records a revision number chosen elsewhere (docs/migrating-from-csweb.md#revisions-and-tablets)
   * under the case-write lock; the counter then continues above it. A number already recorded is
   * left as it is. Call inside the write transaction.
   */
  async recordRevision(revision: number, dictionaryId: number, origin: string): Promise<void> {
    await lockCaseWrites(this.db);
    await this.db.run(RECORD_REVISION, [revision, dictionaryId, origin, nowIso()]);
  }

  /**
   * Inserts or replaces a case at `revision`; keeps the original created_at and position. A new
   * case's position is its dictionary's next: call after nextRevision or recordRevision in the
   * same transaction, whose lock keeps two writers from taking the same one.
   */
  async upsert(dictionaryId: number, c: CaseWrite, revision: number, now = nowIso()): Promise<void> {
    await this.db.run(UPSERT, [dictionaryId, ...caseWriteValues(c, revision), now]);
  }

  /**
   * Upserts a batch of cases in the order given, as `upsert` one after the other would, in one
   * statement (more only where a guid comes again). Call after nextRevision or recordRevision in
   * the same transaction, as `upsert`.
   */
  async upsertMany(dictionaryId: number, rows: readonly CaseAtRevision[], now = nowIso()): Promise<void> {
    for (const run of withoutRepeats(rows, (r) => r.write.guid)) {
      await this.db.run(UPSERT_MANY, [dictionaryId, ...columnsOf(run), now]);
    }
  }

  async count(dictionaryId: number): Promise<number> {
    return (await this.db.row<{ n: number }>('SELECT coalesce((SELECT total FROM case_counts WHERE dictionary_id = $1), 0) AS n', [
      dictionaryId,
    ]))!.n;
  }

  async countActive(dictionaryId: number): Promise<number> {
    return (await this.db.row<{ n: number }>('SELECT count(*) AS n FROM cases WHERE dictionary_id = $1 AND deleted = 0', [dictionaryId]))!
      .n;
  }

  /**
   * One page of case summaries ordered by case key: up to `limit`, and only as many as fit in
   * `budget` bytes of stored text (always at least one; docs/limits.md).
   */
  async page(dictionaryId: number, limit: number, offset: number, budget = Number.POSITIVE_INFINITY): Promise<CaseSummaryRow[]> {
    const n =
      budget === Number.POSITIVE_INFINITY
        ? limit
        : fitting(
            await this.db.rows<{ size: number }>(
              `SELECT octet_length(guid) + octet_length(case_key) + octet_length(label) + octet_length(modified_at) AS size ${PAGE_ORDER}`,
              [dictionaryId, limit, offset],
            ),
            budget,
          );
    if (n === 0) return [];
    return (
      await this.db.rows<RawSummary>(`SELECT guid, case_key, label, modified_at, verified, deleted ${PAGE_ORDER}`, [
        dictionaryId,
        n,
        offset,
      ])
    ).map(toSummary);
  }

  async maxRevision(dictionaryId: number): Promise<number> {
    return (
      (await this.db.row<{ r: number | null }>('SELECT max(revision) AS r FROM cases WHERE dictionary_id = $1', [dictionaryId]))!.r ?? 0
    );
  }

  /** One keyset page of the cases changed after `after` (by revision, then guid) up to revision `upTo`. */
  async changedPage(
    dictionaryId: number,
    after: { revision: number; guid: string },
    upTo: number,
    limit: number,
    activeOnly: boolean,
  ): Promise<ChangedCase[]> {
    const rows = await this.db.rows<RawChanged>(
      `SELECT ${CHANGED_COLUMNS} ${CHANGED_RANGE} ${activeOnly ? 'AND deleted = 0' : ''} ORDER BY revision, guid LIMIT $5`,
      [dictionaryId, after.revision, after.guid, upTo, limit],
    );
    return rows.map(toChanged);
  }

  /**
   * One keyset page of the cases changed after revision `since` up to `upTo`, in case-key order
   * (then guid), starting after `after`; walks cases_by_key (text is COLLATE "C", so the order
   * is SQLite's byte order).
   */
  async keyOrderPage(
    dictionaryId: number,
    after: { caseKey: string; guid: string },
    since: number,
    upTo: number,
    limit: number,
    activeOnly: boolean,
  ): Promise<ChangedCase[]> {
    const rows = await this.db.rows<RawChanged>(
      `SELECT ${CHANGED_COLUMNS} FROM cases
       WHERE dictionary_id = $1 AND (case_key, guid) > ($2, $3) AND revision > $4 AND revision <= $5 ${activeOnly ? 'AND deleted = 0' : ''}
       ORDER BY case_key, guid LIMIT $6`,
      [dictionaryId, after.caseKey, after.guid, since, upTo, limit],
    );
    return rows.map(toChanged);
  }

  /** The last case in (revision, guid) order at or below revision `upTo`: where a complete pass ends. */
  async lastChanged(dictionaryId: number, upTo: number): Promise<{ revision: number; guid: string } | undefined> {
    return this.db.row<{ revision: number; guid: string }>(
      'SELECT revision, guid FROM cases WHERE dictionary_id = $1 AND revision <= $2 ORDER BY revision DESC, guid DESC LIMIT 1',
      [dictionaryId, upTo],
    );
  }

  /** How many cases `changedPage` would return in all. */
  async countChanged(dictionaryId: number, after: { revision: number; guid: string }, upTo: number, activeOnly: boolean): Promise<number> {
    return (await this.db.row<{ n: number }>(`SELECT count(*) AS n ${CHANGED_RANGE} ${activeOnly ? 'AND deleted = 0' : ''}`, [
      dictionaryId,
      after.revision,
      after.guid,
      upTo,
    ]))!.n;
  }
}
