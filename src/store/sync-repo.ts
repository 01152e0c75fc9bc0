import { CarriedTotals } from './carried-totals.js';
import type { Database, Statement } from 'better-sqlite3';
import { fitting } from './cases-repo.js';
import { nowIso } from './clock.js';
import type { DictionaryRow } from './dictionaries-repo.js';

export type SyncDirection = 'put' | 'get';

/** One row of the sync history: who synced which dictionary, which way, at which revision. */
export interface SyncHistoryRow {
  id: number;
  device: string;
  username: string;
  direction: SyncDirection;
  revision: number;
  universe: string;
  cases: number;
  createdAt: string;
}

/** One sync to record in the history (`universe` '' when absent). */
export interface SyncRecord {
  dictionaryId: number;
  device: string;
  username: string;
  direction: SyncDirection;
  revision: number;
  universe?: string;
  cases: number;
}

/** A message a device sent with CSPro's syncmessage (docs/sync.md#messages). */
export interface SyncMessage {
  device: string;
  username: string;
  name: string;
  /** The value's JSON text; null when the message had none. */
  value: string | null;
  /** The time the device gave, as it gave it ('' when none). */
  sentAt: string;
}

/** A kept message as read back: its id and the time the server received it. */
export interface StoredSyncMessage extends SyncMessage {
  id: number;
  receivedAt: string;
}

/** Which messages a read selects (every field optional); newest first by id. */
export interface SyncMessageFilter {
  /** Received at or after this ISO 8601 UTC time. */
  since?: string;
  device?: string;
  name?: string;
  /** Only ids below this one (keyset paging: the last id of the previous page). */
  before?: number;
}

/**
 * A case as a download page reads it: the stored text of every column, the JSON ones (`data`
 * = `level-1`, `clock`, `notes`, `partialSave`) included, unparsed, so the page is built from the
 * text as it is (docs/sync.md#how-a-page-is-built).
 */
export interface SyncCaseRow {
  guid: string;
  caseKey: string;
  label: string;
  data: string;
  verified: boolean;
  deleted: boolean;
  revision: number;
  clock: string;
  partialSave: string | null;
  notes: string;
  caseNote: string | null;
}

/** The columns of a SyncCaseRow: CASE_COLUMNS without the times, in the same order. */
export const PAGE_COLUMNS = 'guid, case_key, label, data, verified, deleted, revision, clock, partial_save, notes, case_note';

/** A row of PAGE_COLUMNS (or the first of CASE_COLUMNS) as an array, in that order. */
export type RawPageValues = [
  guid: string,
  caseKey: string,
  label: string,
  data: string,
  verified: number,
  deleted: number,
  revision: number,
  clock: string,
  partialSave: string | null,
  notes: string,
  caseNote: string | null,
];

/** A page's case from its row read as an array (also the PostgreSQL sync repo's). */
export function toPageRow(v: RawPageValues): SyncCaseRow {
  return {
    guid: v[0],
    caseKey: v[1],
    label: v[2],
    data: v[3],
    verified: v[4] === 1,
    deleted: v[5] === 1,
    revision: v[6],
    clock: v[7],
    partialSave: v[8],
    notes: v[9],
    caseNote: v[10],
  };
}

/** Which cases a download chunk reads: after the cursor, up to the snapshot, minus filters. */
export interface SyncRange {
  after: { revision: number; guid: string };
  upTo: number;
  /** Case-key prefix (`x-csw-universe`); '' for all. */
  universe: string;
  /** Revisions to skip (`x-csw-exclude-revisions`: the device's own uploads). */
  excludeRevisions: number[];
}

/**
 * A download page read in one statement (`snapshotPage`): the snapshot it was read up to, its
 * cases, how many the range held up to the page's count (`seen`) and in all (`total`).
 */
export interface SyncPage {
  snapshot: number;
  cases: SyncCaseRow[];
  seen: number;
  total: number;
  /**
   * The guids of the page's cases that hold binary items, when the store read that with the page
   * (PostgreSQL: no second round trip for a page without any); undefined when it did not.
   */
  withBinaryItems?: string[];
}

/**
 * A download page read with the dictionary it was asked of (`snapshotPage`): null when no
 * dictionary has the name (own or syncable).
 */
export type NamedSyncPage = { dictionary: DictionaryRow; page: SyncPage } | null;

/** A sync_history row as the database returns it (also read by the PostgreSQL sync repo). */
export interface RawHistory {
  id: number;
  device_id: string;
  username: string;
  direction: SyncDirection;
  revision: number;
  universe: string;
  cases: number;
  created_at: string;
}

/** The columns of a history row, in the order of RawHistory. */
export const HISTORY_COLUMNS = 'id, device_id, username, direction, revision, universe, cases, created_at';

/** A history row from its database row. */
export const toHistory = (r: RawHistory): SyncHistoryRow => ({
  id: r.id,
  device: r.device_id,
  username: r.username,
  direction: r.direction,
  revision: r.revision,
  universe: r.universe,
  cases: r.cases,
  createdAt: r.created_at,
});

// Filters appear only when asked for, so the common request (no universe, no exclusions) is a
// plain seek into cases_by_revision; one prepared statement per shape.
function rangeSql(universe: boolean, exclude: boolean): string {
  return `FROM cases WHERE dictionary_id = @dict AND (revision, guid) > (@afterRevision, @afterGuid) AND revision <= @upTo
    ${universe ? 'AND substr(case_key, 1, length(@universe)) = @universe' : ''}
    ${exclude ? 'AND revision NOT IN (SELECT value FROM json_each(@exclude))' : ''}`;
}

/** Bytes of stored text of a case row, as SQL (the byte budget of a page; docs/limits.md). */
export const ROW_BYTES =
  'octet_length(guid) + octet_length(case_key) + octet_length(label) + octet_length(data) + octet_length(clock) + octet_length(notes) + coalesce(octet_length(partial_save), 0) + coalesce(octet_length(case_note), 0)';

/**
 * What the cases changed after `@from` did to a range's total up to `@upTo`, in two reads of
 * indexes alone: `added`, those now in it (cases_by_revision), and from the changed cases only
 * (cases_changed, migration 0038) `removed`, those it held at `@from` by their previous revision,
 * and `unknown` when one changed twice since `@from` (its revision at `@from` is lost: the caller
 * counts). One shape per filter of exclusions; a universe filter is never moved (a changed key
 * may enter or leave it).
 */
export function movedSql(exclude: boolean): { added: string; removed: string } {
  const kept = (column: string) => (exclude ? ` AND ${column} NOT IN (SELECT value FROM json_each(@exclude))` : '');
  return {
    added: `SELECT count(*) AS n FROM cases WHERE dictionary_id = @dict AND revision > @from AND revision <= @upTo${kept('revision')}`,
    removed: `SELECT coalesce(sum((prev_revision, guid) > (@afterRevision, @afterGuid)${kept('prev_revision')}), 0) AS n,
         coalesce(max(prev_revision > @from), 0) AS unknown
    FROM cases WHERE dictionary_id = @dict AND revision > @from AND prev_revision IS NOT NULL`,
  };
}

/** The sync protocol's reads and its history: devices, per-device sync rows, download chunks. */
export class SyncRepo {
  private readonly recordBoth: (entry: SyncRecord) => void;
  private readonly touchDevice: Statement<{ device: string; user: string; now: string }>;
  private readonly insertHistory: Statement<unknown[]>;
  private readonly historyStmt: Statement<[number, number], RawHistory>;
  private readonly lastOfDeviceStmt: Statement<[string, number], RawHistory>;
  private readonly lastOfDeviceInStmt: Statement<[string, number, SyncDirection], RawHistory>;
  private readonly maxRevisionStmt: Statement<[], { r: number | null }>;
  private readonly chunkStmts = new Map<string, Statement<Record<string, unknown>, RawPageValues>>();
  private readonly countStmts = new Map<string, Statement<Record<string, unknown>, { n: number }>>();
  private readonly sizeStmts = new Map<string, Statement<Record<string, unknown>, { size: number }>>();
  private readonly movedStmts = new Map<
    boolean,
    {
      added: Statement<Record<string, unknown>, { n: number }>;
      removed: Statement<Record<string, unknown>, { n: number; unknown: number }>;
    }
  >();
  /** Totals carried from one download page to the next. */
  private readonly carried = new CarriedTotals();

  constructor(private readonly db: Database) {
    // IMMEDIATE as every write transaction of this store; a savepoint when one is in progress.
    this.recordBoth = db.transaction((entry: SyncRecord) => this.recordBothOnce(entry)).immediate;
    this.touchDevice = db.prepare(
      `INSERT INTO sync_devices (device_id, last_user, first_seen, last_seen) VALUES (@device, @user, @now, @now)
       ON CONFLICT (device_id) DO UPDATE SET last_user = excluded.last_user, last_seen = excluded.last_seen`,
    );
    this.insertHistory = db.prepare(
      'INSERT INTO sync_history (dictionary_id, device_id, username, direction, revision, universe, cases, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.historyStmt = db.prepare(`SELECT ${HISTORY_COLUMNS} FROM sync_history WHERE dictionary_id = ? ORDER BY id DESC LIMIT ?`);
    this.lastOfDeviceStmt = db.prepare(
      `SELECT ${HISTORY_COLUMNS} FROM sync_history WHERE device_id = ? AND dictionary_id = ? ORDER BY id DESC LIMIT 1`,
    );
    this.lastOfDeviceInStmt = db.prepare(
      `SELECT ${HISTORY_COLUMNS} FROM sync_history WHERE device_id = ? AND dictionary_id = ? AND direction = ? ORDER BY id DESC LIMIT 1`,
    );
    this.maxRevisionStmt = db.prepare('SELECT max(revision) AS r FROM revisions');
    for (const u of [false, true]) {
      for (const x of [false, true]) {
        const shape = `${u}${x}`;
        this.countStmts.set(shape, db.prepare(`SELECT count(*) AS n ${rangeSql(u, x)}`));
      }
    }
  }

  /** The newest revision of the whole store (the counter is global, as CSWeb's), 0 when empty. */
  async maxRevision(): Promise<number> {
    return this.maxRevisionStmt.get()!.r ?? 0;
  }

  private params(dictionaryId: number, range: SyncRange): Record<string, unknown> {
    const p: Record<string, unknown> = {
      dict: dictionaryId,
      afterRevision: range.after.revision,
      afterGuid: range.after.guid,
      upTo: range.upTo,
    };
    if (range.universe !== '') p.universe = range.universe;
    if (range.excludeRevisions.length > 0) p.exclude = JSON.stringify(range.excludeRevisions);
    return p;
  }

  private shape(range: SyncRange): string {
    return `${range.universe !== ''}${range.excludeRevisions.length > 0}`;
  }

  /**
   * The chunk statement of a range's shape, prepared on first use: it names columns of the latest
   * migration, which a server started on a store that still needs migrating does not have yet.
   */
  private chunkStmt(range: SyncRange): Statement<Record<string, unknown>, RawPageValues> {
    const shape = this.shape(range);
    let stmt = this.chunkStmts.get(shape);
    if (!stmt) {
      // Rows as arrays (raw): half the cost of reading a page's rows as objects.
      stmt = this.db
        .prepare<Record<string, unknown>, RawPageValues>(
          `SELECT ${PAGE_COLUMNS} ${rangeSql(range.universe !== '', range.excludeRevisions.length > 0)} ORDER BY revision, guid LIMIT @limit`,
        )
        .raw(true);
      this.chunkStmts.set(shape, stmt);
    }
    return stmt;
  }

  /** The sizes statement of a range's shape, prepared on first use (as chunkStmt). */
  private sizeStmt(range: SyncRange): Statement<Record<string, unknown>, { size: number }> {
    const shape = this.shape(range);
    let stmt = this.sizeStmts.get(shape);
    if (!stmt) {
      // octet_length of a column reads the record header only, not the text (SQLite ≥ 3.43).
      stmt = this.db.prepare(
        `SELECT ${ROW_BYTES} AS size ${rangeSql(range.universe !== '', range.excludeRevisions.length > 0)} ORDER BY revision, guid LIMIT @limit`,
      );
      this.sizeStmts.set(shape, stmt);
    }
    return stmt;
  }

  /** Up to `limit` cases of the range, by revision then guid. */
  async chunk(dictionaryId: number, range: SyncRange, limit: number): Promise<SyncCaseRow[]> {
    return this.chunkStmt(range)
      .all({ ...this.params(dictionaryId, range), limit })
      .map(toPageRow);
  }

  /**
   * A download page of the dictionary named `name` (own or syncable name) with its row, in one
   * statement, its snapshot taken by the statement itself: not on SQLite, whose page reads make no
   * round trips (undefined: the caller finds the dictionary and reads the page in a read
   * transaction with maxRevision, chunkWithin and count).
   */
  async snapshotPage(_name: string, _range: Omit<SyncRange, 'upTo'>, _limit: number, _budget: number): Promise<NamedSyncPage | undefined> {
    return undefined;
  }

  /**
   * Up to `limit` cases of the range whose stored text adds up to at most `budget` bytes, and
   * always at least one (so a download moves on past a case larger than the budget): the sizes
   * are read first, without the text, then only the cases that fit. `seen` is how many cases
   * the range holds up to `limit`: when it is below `limit`, the range ends within this read.
   */
  async chunkWithin(
    dictionaryId: number,
    range: SyncRange,
    limit: number,
    budget: number,
  ): Promise<{ cases: SyncCaseRow[]; seen: number }> {
    const params = this.params(dictionaryId, range);
    const sizes = this.sizeStmt(range).all({ ...params, limit });
    const n = fitting(sizes, budget);
    const cases =
      n === 0
        ? []
        : this.chunkStmt(range)
            .all({ ...params, limit: n })
            .map(toPageRow);
    return { cases, seen: sizes.length };
  }

  /**
   * How many cases the whole range holds (this chunk and the ones after it). A total carried
   * from the previous page of the same download (`carry`) answers without counting: counting
   * every page walks the rest of the range, quadratic over a whole download. When cases were
   * written since that page (a newer snapshot), the carried total moves by what they changed
   * (`movedSince`), so a download beside uploads does not count again either. `scope` tells
   * apart dictionaries that reuse an id after a delete.
   */
  async count(dictionaryId: number, scope: string, range: SyncRange): Promise<number> {
    const carried = this.carried.get(dictionaryId, scope, range);
    if (carried !== undefined && carried.upTo === range.upTo) return carried.total;
    const moved = carried !== undefined && carried.upTo < range.upTo ? this.movedSince(dictionaryId, range, carried.upTo) : undefined;
    if (moved !== undefined) return carried!.total + moved;
    return this.countStmts.get(this.shape(range))!.get(this.params(dictionaryId, range))!.n;
  }

  /**
   * By how much the cases written after revision `from` (up to `range.upTo`) changed the range's
   * total; undefined when that cannot be told from their previous revisions (a universe filter, a
   * case changed twice since `from`). Every change of a case takes a revision newer than all
   * before it (the sync protocol rests on it), so the range at `from` differs from the range now
   * only by those cases: each is in it now or not, and was in it at `from` by its previous
   * revision or not (docs/decisions.md, "A download's total across new uploads").
   */
  private movedSince(dictionaryId: number, range: SyncRange, from: number): number | undefined {
    if (range.universe !== '') return undefined;
    const exclude = range.excludeRevisions.length > 0;
    let stmts = this.movedStmts.get(exclude);
    if (!stmts) {
      const sql = movedSql(exclude);
      this.movedStmts.set(exclude, (stmts = { added: this.db.prepare(sql.added), removed: this.db.prepare(sql.removed) }));
    }
    const params = { ...this.params(dictionaryId, range), from };
    const removed = stmts.removed.get(params)!;
    return removed.unknown ? undefined : stmts.added.get(params)!.n - removed.n;
  }

  /**
   * Remembers the total of `range` for the page that asks for it next, with the snapshot it holds
   * for (`range.upTo`): a request that sees that snapshot takes it as it is, one that sees a newer
   * one moves it by the cases written since (`count`).
   */
  async carry(dictionaryId: number, scope: string, range: SyncRange, total: number): Promise<void> {
    this.carried.remember(dictionaryId, scope, range, range.upTo, total);
  }

  /**
   * Records a sync of `device` (created on first sight) in the history: the device row and its
   * history row together, inside a transaction (a savepoint of it) or outside (one of its own), as
   * the PostgreSQL store's one statement does.
   */
  async record(entry: SyncRecord): Promise<void> {
    this.recordBoth(entry);
  }

  private recordBothOnce(entry: SyncRecord): void {
    const now = nowIso();
    this.touchDevice.run({ device: entry.device, user: entry.username, now });
    this.insertHistory.run(
      entry.dictionaryId,
      entry.device,
      entry.username,
      entry.direction,
      entry.revision,
      entry.universe ?? '',
      entry.cases,
      now,
    );
  }

  /** The newest history rows of a dictionary, newest first. */
  async history(dictionaryId: number, limit: number): Promise<SyncHistoryRow[]> {
    return this.historyStmt.all(dictionaryId, limit).map(toHistory);
  }

  /** The last sync of a device for a dictionary (the 412 body of an upload), or its last in one direction. */
  async lastOfDevice(device: string, dictionaryId: number, direction?: SyncDirection): Promise<SyncHistoryRow | undefined> {
    const r = direction ? this.lastOfDeviceInStmt.get(device, dictionaryId, direction) : this.lastOfDeviceStmt.get(device, dictionaryId);
    return r && toHistory(r);
  }

  /** Keeps a message a device sent, received at `receivedAt` (default now); returns its id. */
  async recordMessage(m: SyncMessage, receivedAt = nowIso()): Promise<number> {
    return Number(
      this.db
        .prepare('INSERT INTO sync_messages (device_id, username, name, value, sent_at, received_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(m.device, m.username, m.name, m.value, m.sentAt, receivedAt).lastInsertRowid,
    );
  }

  /**
   * Kept messages that `filter` selects, newest (highest id) first, `offset` skipped, at most
   * `limit`. The table is bounded by retention (docs/logs.md#retention), so the filters need no
   * index: the newest rows are read first and the read stops at `limit`.
   */
  async messages(filter: SyncMessageFilter, page: { limit: number; offset: number }): Promise<StoredSyncMessage[]> {
    const { where, params } = namedMessageWhere(filter);
    const rows = this.db
      .prepare(`SELECT ${MESSAGE_COLUMNS} FROM sync_messages ${where} ORDER BY id DESC LIMIT @limit OFFSET @offset`)
      .all({ ...params, ...page }) as RawMessage[];
    return rows.map(toMessage);
  }

  /** How many kept messages `filter` selects. */
  async countMessages(filter: SyncMessageFilter): Promise<number> {
    const { where, params } = namedMessageWhere(filter);
    return (this.db.prepare(`SELECT count(*) AS n FROM sync_messages ${where}`).get(params) as { n: number }).n;
  }
}

/** A sync_messages row as the database returns it (also read by the PostgreSQL sync repo). */
export interface RawMessage {
  id: number;
  device_id: string;
  username: string;
  name: string;
  value: string | null;
  sent_at: string;
  received_at: string;
}

/** The columns of a message row, in the order of RawMessage. */
export const MESSAGE_COLUMNS = 'id, device_id, username, name, value, sent_at, received_at';

/** A kept message from its database row. */
export function toMessage(r: RawMessage): StoredSyncMessage {
  return {
    id: r.id,
    device: r.device_id,
    username: r.username,
    name: r.name,
    value: r.value,
    sentAt: r.sent_at,
    receivedAt: r.received_at,
  };
}

/** The conditions a message filter can ask for, in the order they are written: its field, and the SQL before its value. */
const MESSAGE_CONDITIONS = [
  ['since', 'received_at >='],
  ['device', 'device_id ='],
  ['name', 'name ='],
  ['before', 'id <'],
] as const satisfies readonly (readonly [keyof SyncMessageFilter, string])[];

/**
 * The WHERE clause of a message filter, with only the conditions asked for, and their values in
 * order; `placeholder` writes a value's place from its field and its 1-based position (SQLite
 * names them, PostgreSQL numbers them).
 */
export function messageWhere(
  f: SyncMessageFilter,
  placeholder: (field: string, position: number) => string,
): { where: string; values: (readonly [string, unknown])[] } {
  const conds: string[] = [];
  const values: (readonly [string, unknown])[] = [];
  for (const [field, sql] of MESSAGE_CONDITIONS) {
    if (f[field] === undefined) continue;
    values.push([field, f[field]]);
    conds.push(`${sql} ${placeholder(field, values.length)}`);
  }
  return { where: conds.length > 0 ? `WHERE ${conds.join(' AND ')}` : '', values };
}

/** A message filter's WHERE clause with SQLite's named parameters. */
function namedMessageWhere(f: SyncMessageFilter): { where: string; params: Record<string, unknown> } {
  const { where, values } = messageWhere(f, (field) => `@${field}`);
  return { where, params: Object.fromEntries(values) };
}
