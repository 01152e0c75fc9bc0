import type { Database, Statement } from 'better-sqlite3';
import type { CaseNote, ClockEntry, PartialSave } from '../cspro/case/model.js';
import { nowIso } from './clock.js';
import type { CaseBinaryItems } from './binary-items-repo.js';

/** A case as stored: `data` is the `level-1` JSON text, kept as written so reads need no re-encode. */
export interface StoredCase {
  guid: string;
  caseKey: string;
  label: string;
  data: string;
  verified: boolean;
  deleted: boolean;
  revision: number;
  clock: ClockEntry[];
  partialSave: PartialSave | null;
  notes: CaseNote[];
  /** The case note (CSPro 8.1 clients only: docs/sync.md#v3-case-json); absent when the case has none. */
  caseNote?: string;
  createdAt: string;
  modifiedAt: string;
}

export type CaseWrite = Omit<StoredCase, 'revision' | 'createdAt' | 'modifiedAt'>;

/** A case write and the revision it is written at (`upsertMany`). */
export interface CaseAtRevision {
  write: CaseWrite;
  revision: number;
}

/**
 * The stored cases an upload merges with, read before the write without any lock, each with a
 * token of its row version (`readForUpload`).
 */
export interface CasesRead {
  cases: Map<string, StoredCase>;
  /** Every guid asked for, with its row version when stored, null when not. */
  versions: { guid: string; version: string | null }[];
  /** The store's device id in vector clocks (settings.serverDeviceId), read with the cases; undefined before it is made. */
  serverDeviceId?: string;
}

/**
 * A sync upload decided from a `CasesRead`, to be written at one new revision with its sync
 * history row (`writeUploadIfUnchanged`).
 */
export interface UploadWrite {
  dictionaryId: number;
  /** Who wrote (`sync:<device>`), as for nextRevision. */
  origin: string;
  now: string;
  read: CasesRead['versions'];
  /** The cases to write, in order, each guid once. */
  rows: readonly CaseWrite[];
  /** The binary-item rows to replace, as binaryItems.replaceForCases takes them. */
  items: readonly CaseBinaryItems[];
  history: { device: string; username: string; cases: number };
}

export interface CaseSummaryRow {
  guid: string;
  label: string;
  caseKey: string;
  modifiedAt: string;
  verified: boolean;
  deleted: boolean;
}

/** A case row as SQLite returns it (also read by the sync repo). */
export interface RawCase {
  guid: string;
  case_key: string;
  label: string;
  data: string;
  verified: number;
  deleted: number;
  revision: number;
  clock: string;
  partial_save: string | null;
  notes: string;
  case_note: string | null;
  created_at: string;
  modified_at: string;
}

/** A case-list row as the database returns it. */
export type RawSummary = Pick<RawCase, 'guid' | 'case_key' | 'label' | 'modified_at' | 'verified' | 'deleted'>;

/** Every column of a stored case, in the order of RawCase. */
export const CASE_COLUMNS =
  'guid, case_key, label, data, verified, deleted, revision, clock, partial_save, notes, case_note, created_at, modified_at';

/**
 * What a write of a stored case replaces (all but the guid, position and creation time): the
 * `DO UPDATE SET` of the case upsert on both stores. `prev_revision` keeps the revision being
 * replaced (every SET expression reads the row as it was), so that a download's total moves by
 * the cases changed since its last page (docs/decisions.md, "A download's total across new uploads").
 */
export const CASE_UPSERT_SET = `prev_revision = cases.revision, case_key = excluded.case_key, label = excluded.label, data = excluded.data, verified = excluded.verified,
         deleted = excluded.deleted, revision = excluded.revision, clock = excluded.clock,
         partial_save = excluded.partial_save, notes = excluded.notes, case_note = excluded.case_note, modified_at = excluded.modified_at`;

/** A case as the breakout reads it: no clock, partial-save state or creation time. */
export type ChangedCase = Pick<
  StoredCase,
  'guid' | 'caseKey' | 'label' | 'data' | 'verified' | 'deleted' | 'revision' | 'notes' | 'modifiedAt'
>;

/** A breakout row as the database returns it. */
export type RawChanged = Pick<
  RawCase,
  'guid' | 'case_key' | 'label' | 'data' | 'verified' | 'deleted' | 'revision' | 'notes' | 'modified_at'
>;

/** The columns of a ChangedCase, in the order of RawChanged. */
export const CHANGED_COLUMNS = 'guid, case_key, label, data, verified, deleted, revision, notes, modified_at';

/** A case's stored notes (JSON text); most cases have none: the stored empty array is not parsed. */
export function storedNotes(text: string): CaseNote[] {
  return text === '[]' ? [] : (JSON.parse(text) as CaseNote[]);
}

// Each read shape extends the smaller one: summary (case list) < changed (breakout) < stored.
/** A case-list row from its database row (also the PostgreSQL store's). */
export function toSummary(r: RawSummary): CaseSummaryRow {
  return {
    guid: r.guid,
    caseKey: r.case_key,
    label: r.label,
    modifiedAt: r.modified_at,
    verified: r.verified === 1,
    deleted: r.deleted === 1,
  };
}

/** A breakout row from its database row (also the PostgreSQL store's). */
export function toChanged(r: RawChanged): ChangedCase {
  // One object literal, not toSummary spread into another: a breakout builds one per case.
  return {
    guid: r.guid,
    caseKey: r.case_key,
    label: r.label,
    modifiedAt: r.modified_at,
    verified: r.verified === 1,
    deleted: r.deleted === 1,
    data: r.data,
    revision: r.revision,
    notes: storedNotes(r.notes),
  };
}

/** A row of CHANGED_COLUMNS as an array, in that order (better-sqlite3's raw mode). */
type RawChangedValues = [
  guid: string,
  caseKey: string,
  label: string,
  data: string,
  verified: number,
  deleted: number,
  revision: number,
  notes: string,
  modifiedAt: string,
];

/**
 * A changed case from its row read as an array: the breakout and the export read every case this
 * way, and raw rows spare better-sqlite3 an object with named keys per row (bench/README.md,
 * "Breakout nearer the loaders").
 */
function toChangedFromValues(v: RawChangedValues): ChangedCase {
  return {
    guid: v[0],
    caseKey: v[1],
    label: v[2],
    modifiedAt: v[8],
    verified: v[4] === 1,
    deleted: v[5] === 1,
    data: v[3],
    revision: v[6],
    notes: storedNotes(v[7]),
  };
}

/**
 * A stored case from its row. One object literal rather than the summary and changed shapes
 * spread into each other: the spreads were a tenth of a download page's CPU when pages were read
 * this way (docs/decisions.md, "Less CPU per sync request").
 */
export function toStored(r: RawCase): StoredCase {
  const stored: StoredCase = {
    guid: r.guid,
    caseKey: r.case_key,
    label: r.label,
    modifiedAt: r.modified_at,
    verified: r.verified === 1,
    deleted: r.deleted === 1,
    data: r.data,
    revision: r.revision,
    notes: storedNotes(r.notes),
    clock: JSON.parse(r.clock) as ClockEntry[],
    partialSave: r.partial_save === null ? null : (JSON.parse(r.partial_save) as PartialSave),
    createdAt: r.created_at,
  };
  if (r.case_note !== null) stored.caseNote = r.case_note;
  return stored;
}

/**
 * The stored values of a case write, in the column order of the upsert from `guid` to
 * `case_note` (both stores write them alike).
 */
export function caseWriteValues(c: CaseWrite, revision: number): unknown[] {
  return [
    c.guid,
    c.caseKey,
    c.label,
    c.data,
    c.verified ? 1 : 0,
    c.deleted ? 1 : 0,
    revision,
    JSON.stringify(c.clock),
    c.partialSave ? JSON.stringify(c.partialSave) : null,
    c.notes.length === 0 ? '[]' : JSON.stringify(c.notes),
    c.caseNote ?? null,
  ];
}

/** How many of the leading rows fit in `budget` bytes: at least one when there is any (pure). */
export function fitting(sizes: readonly { size: number }[], budget: number): number {
  let total = 0;
  for (let i = 0; i < sizes.length; i++) {
    total += sizes[i]!.size;
    if (total > budget) return Math.max(i, 1);
  }
  return sizes.length;
}

/** Cases of all dictionaries, and the revision counter that orders their changes. */
export class CasesRepo {
  // Prepared on first use: they name columns of the latest migration, and a server started on a
  // store that still needs migrating must come up to say so (docs/upgrading.md#why-commands-refuse-an-old-store).
  private getOneStmt?: Statement<[number, string], RawCase>;
  private readonly insertRevision: Statement<[number, string, string]>;
  private upsertStmtCache?: Statement<unknown[]>;
  private readonly countStmt: Statement<[number], { n: number }>;
  private readonly countActiveStmt: Statement<[number], { n: number }>;
  private readonly pageStmt: Statement<[number, number, number], RawSummary>;
  private readonly pageSizesStmt: Statement<[number, number, number], { size: number }>;
  private readonly maxRevisionStmt: Statement<[number], { r: number | null }>;
  private readonly getManyStmts = new Map<number, Statement<unknown[], RawCase>>();
  private readonly changedAllStmt: Statement<[number, number, string, number, number], RawChangedValues>;
  private readonly changedActiveStmt: Statement<[number, number, string, number, number], RawChangedValues>;
  private readonly countChangedAllStmt: Statement<[number, number, string, number], { n: number }>;
  private readonly countChangedActiveStmt: Statement<[number, number, string, number], { n: number }>;
  private readonly lastChangedStmt: Statement<[number, number], { revision: number; guid: string }>;
  private readonly keyOrderAllStmt: Statement<[number, string, string, number, number, number], RawChangedValues>;
  private readonly keyOrderActiveStmt: Statement<[number, string, string, number, number, number], RawChangedValues>;

  constructor(private readonly db: Database) {
    this.insertRevision = db.prepare('INSERT INTO revisions (dictionary_id, origin, created_at) VALUES (?, ?, ?)');
    // Kept by triggers (migration 0006): a count(*) would walk a whole index on every list page.
    this.countStmt = db.prepare('SELECT coalesce((SELECT total FROM case_counts WHERE dictionary_id = ?), 0) AS n');
    this.countActiveStmt = db.prepare('SELECT count(*) AS n FROM cases WHERE dictionary_id = ? AND deleted = 0');
    // Summary columns only: the list never shows case data, and skipping the kilobytes of JSON
    // per row lets OFFSET walk the key index alone.
    this.pageStmt = db.prepare(
      'SELECT guid, case_key, label, modified_at, verified, deleted FROM cases WHERE dictionary_id = ? ORDER BY case_key, guid LIMIT ? OFFSET ?',
    );
    // The sizes of a page's summaries, without their text (octet_length reads the record header).
    this.pageSizesStmt = db.prepare(
      'SELECT octet_length(guid) + octet_length(case_key) + octet_length(label) + octet_length(modified_at) AS size FROM cases WHERE dictionary_id = ? ORDER BY case_key, guid LIMIT ? OFFSET ?',
    );
    this.maxRevisionStmt = db.prepare('SELECT max(revision) AS r FROM cases WHERE dictionary_id = ?');
    const changed = (filter: string) =>
      db
        .prepare<[number, number, string, number, number], RawChangedValues>(
          `SELECT ${CHANGED_COLUMNS} FROM cases
         WHERE dictionary_id = ? AND (revision, guid) > (?, ?) AND revision <= ? ${filter}
         ORDER BY revision, guid LIMIT ?`,
        )
        .raw(true);
    this.changedAllStmt = changed('');
    this.changedActiveStmt = changed('AND deleted = 0');
    const countChanged = (filter: string) =>
      db.prepare<[number, number, string, number], { n: number }>(
        `SELECT count(*) AS n FROM cases WHERE dictionary_id = ? AND (revision, guid) > (?, ?) AND revision <= ? ${filter}`,
      );
    this.countChangedAllStmt = countChanged('');
    this.countChangedActiveStmt = countChanged('AND deleted = 0');
    // Walks cases_by_key (dictionary_id, case_key, guid): the export's rows in case-key order.
    const keyOrder = (filter: string) =>
      db
        .prepare<[number, string, string, number, number, number], RawChangedValues>(
          `SELECT ${CHANGED_COLUMNS} FROM cases
         WHERE dictionary_id = ? AND (case_key, guid) > (?, ?) AND revision > ? AND revision <= ? ${filter}
         ORDER BY case_key, guid LIMIT ?`,
        )
        .raw(true);
    this.keyOrderAllStmt = keyOrder('');
    this.keyOrderActiveStmt = keyOrder('AND deleted = 0');
    this.lastChangedStmt = db.prepare(
      'SELECT revision, guid FROM cases WHERE dictionary_id = ? AND revision <= ? ORDER BY revision DESC, guid DESC LIMIT 1',
    );
  }

  private get getOne(): Statement<[number, string], RawCase> {
    return (this.getOneStmt ??= this.db.prepare(`SELECT ${CASE_COLUMNS} FROM cases WHERE dictionary_id = ? AND guid = ?`));
  }

  private get upsertStmt(): Statement<unknown[]> {
    return (this.upsertStmtCache ??= this.db.prepare(
      // A new case takes the next position of its dictionary (migration 0020); an update keeps its own.
      `INSERT INTO cases (dictionary_id, guid, case_key, label, data, verified, deleted, revision, clock, partial_save, notes, case_note, created_at, modified_at, position)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(position), 0) + 1 FROM cases WHERE dictionary_id = ?))
       ON CONFLICT (dictionary_id, guid) DO UPDATE SET ${CASE_UPSERT_SET}`,
    ));
  }

  async get(dictionaryId: number, guid: string): Promise<StoredCase | undefined> {
    const r = this.getOne.get(dictionaryId, guid);
    return r && toStored(r);
  }

  /** Existing cases among `guids`, keyed by guid (one query per call; callers batch). */
  async getMany(dictionaryId: number, guids: string[]): Promise<Map<string, StoredCase>> {
    const out = new Map<string, StoredCase>();
    if (guids.length === 0) return out;
    const rows = this.getManyStatement(guids.length).all(dictionaryId, ...guids);
    for (const r of rows) out.set(r.guid, toStored(r));
    return out;
  }

  /**
   * An upload's read outside its transaction, to write it in one statement after
   * (writeUploadIfUnchanged): not on SQLite, whose one writer makes the transaction as short
   * (undefined: the caller writes the upload in its transaction).
   */
  async readForUpload(_dictionaryId: number, _guids: string[]): Promise<CasesRead | undefined> {
    return undefined;
  }

  /** Not on SQLite (readForUpload reads nothing): writes nothing, undefined. */
  async writeUploadIfUnchanged(_upload: UploadWrite): Promise<number | undefined> {
    return undefined;
  }

  /** Imports ask for the same batch size again and again: keep one statement per size. */
  private getManyStatement(n: number): Statement<unknown[], RawCase> {
    let stmt = this.getManyStmts.get(n);
    if (!stmt) {
      if (this.getManyStmts.size >= 8) this.getManyStmts.clear();
      stmt = this.db.prepare<unknown[], RawCase>(
        `SELECT ${CASE_COLUMNS} FROM cases WHERE dictionary_id = ? AND guid IN (${Array(n).fill('?').join(',')})`,
      );
      this.getManyStmts.set(n, stmt);
    }
    return stmt;
  }

  /** Allocates the next revision number; call inside the write transaction that uses it. */
  async nextRevision(dictionaryId: number, origin: string): Promise<number> {
    return Number(this.insertRevision.run(dictionaryId, origin, nowIso()).lastInsertRowid);
  }

  /**
   * Records a revision number chosen elsewhere (a CSWeb import keeps CSWeb's numbers:
   * docs/migrating-from-csweb.md#revisions-and-tablets); the AUTOINCREMENT counter then continues
   * above it. A number already recorded is left as it is. Call inside the write transaction.
   */
  async recordRevision(revision: number, dictionaryId: number, origin: string): Promise<void> {
    this.db
      .prepare('INSERT OR IGNORE INTO revisions (revision, dictionary_id, origin, created_at) VALUES (?, ?, ?, ?)')
      .run(revision, dictionaryId, origin, nowIso());
  }

  /** Inserts or replaces a case at `revision`; keeps the original created_at. `now` lets a batch share one timestamp. */
  async upsert(dictionaryId: number, c: CaseWrite, revision: number, now = nowIso()): Promise<void> {
    this.upsertStmt.run(dictionaryId, ...caseWriteValues(c, revision), now, now, dictionaryId);
  }

  /**
   * Upserts a batch of cases in the order given, each at its own revision, as `upsert` one after
   * the other would (a guid given twice ends as its last write). One call per batch lets a store
   * over the network write the batch in a few statements (docs/decisions.md, "Concurrent writers
   * on the PostgreSQL store").
   */
  async upsertMany(dictionaryId: number, rows: readonly CaseAtRevision[], now = nowIso()): Promise<void> {
    for (const r of rows) this.upsertStmt.run(dictionaryId, ...caseWriteValues(r.write, r.revision), now, now, dictionaryId);
  }

  async count(dictionaryId: number): Promise<number> {
    return this.countStmt.get(dictionaryId)!.n;
  }

  async countActive(dictionaryId: number): Promise<number> {
    return this.countActiveStmt.get(dictionaryId)!.n;
  }

  /**
   * One page of case summaries ordered by case key: up to `limit`, and only as many as fit in
   * `budget` bytes of stored text (always at least one), so one huge stored label cannot make a
   * page too large to answer (docs/limits.md). The caller goes on at offset + the rows returned.
   */
  async page(dictionaryId: number, limit: number, offset: number, budget = Number.POSITIVE_INFINITY): Promise<CaseSummaryRow[]> {
    const n = budget === Number.POSITIVE_INFINITY ? limit : fitting(this.pageSizesStmt.all(dictionaryId, limit, offset), budget);
    if (n === 0) return [];
    return this.pageStmt.all(dictionaryId, n, offset).map(toSummary);
  }

  async maxRevision(dictionaryId: number): Promise<number> {
    return this.maxRevisionStmt.get(dictionaryId)!.r ?? 0;
  }

  /**
   * One page of the cases changed after `after` (by revision, then guid) up to revision `upTo`,
   * with only what the breakout needs. Keyset pages instead of one long iterator: the breakout
   * writes progress to the same store between pages, which an open better-sqlite3 iterator would
   * forbid. The row-value comparison lets SQLite seek straight into cases_by_revision.
   */
  async changedPage(
    dictionaryId: number,
    after: { revision: number; guid: string },
    upTo: number,
    limit: number,
    activeOnly: boolean,
  ): Promise<ChangedCase[]> {
    const stmt = activeOnly ? this.changedActiveStmt : this.changedAllStmt;
    return stmt.all(dictionaryId, after.revision, after.guid, upTo, limit).map(toChangedFromValues);
  }

  /**
   * One keyset page of the cases changed after revision `since` up to revision `upTo`, in case-key
   * order (then guid), starting after `after`: the same cases as `changedPage`, in the order an
   * analyst reads them (docs/export.md#row-order). Pages, not an iterator, for the same reason.
   */
  async keyOrderPage(
    dictionaryId: number,
    after: { caseKey: string; guid: string },
    since: number,
    upTo: number,
    limit: number,
    activeOnly: boolean,
  ): Promise<ChangedCase[]> {
    const stmt = activeOnly ? this.keyOrderActiveStmt : this.keyOrderAllStmt;
    return stmt.all(dictionaryId, after.caseKey, after.guid, since, upTo, limit).map(toChangedFromValues);
  }

  /** The last case in (revision, guid) order at or below revision `upTo`: where a complete pass ends. */
  async lastChanged(dictionaryId: number, upTo: number): Promise<{ revision: number; guid: string } | undefined> {
    return this.lastChangedStmt.get(dictionaryId, upTo);
  }

  /** How many cases `changedPage` would return in all. */
  async countChanged(dictionaryId: number, after: { revision: number; guid: string }, upTo: number, activeOnly: boolean): Promise<number> {
    const stmt = activeOnly ? this.countChangedActiveStmt : this.countChangedAllStmt;
    return stmt.get(dictionaryId, after.revision, after.guid, upTo)!.n;
  }
}
