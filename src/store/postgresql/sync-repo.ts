/**
 * The sync repository on PostgreSQL (docs/architecture.md#the-store-contract): the SQLite
 * SyncRepo's download reads, history and messages over a PgRunner.
 */
import { CarriedTotals, MAX_CARRIED } from '../carried-totals.js';
import { nowIso } from '../clock.js';
import type { RepoContract } from '../store-contract.js';
import {
  HISTORY_COLUMNS,
  MESSAGE_COLUMNS,
  messageWhere,
  PAGE_COLUMNS,
  ROW_BYTES,
  toHistory,
  toPageRow,
  toMessage,
  type RawHistory,
  type RawMessage,
  type StoredSyncMessage,
  type SyncCaseRow,
  type SyncDirection,
  type SyncHistoryRow,
  type SyncMessage,
  type SyncMessageFilter,
  type NamedSyncPage,
  type RawPageValues,
  type SyncRange,
  type SyncRecord,
  type SyncRepo,
} from '../sync-repo.js';
import type { PgRunner } from './pg-runner.js';
import { toDictionaryRow, type RawDictionary } from '../dictionaries-repo.js';

/**
 * The FROM and WHERE of a download range and their values, $1… in order: filters appear only when
 * asked for, so the common request is a plain seek into cases_by_revision (as on SQLite).
 */
function range(dictionaryId: number, r: SyncRange): { sql: string; params: unknown[] } {
  const params: unknown[] = [dictionaryId, r.after.revision, r.after.guid, r.upTo];
  let sql = 'FROM cases WHERE dictionary_id = $1 AND (revision, guid) > ($2, $3) AND revision <= $4';
  if (r.universe !== '') {
    params.push(r.universe);
    sql += ` AND substr(case_key, 1, length($${params.length}::text)) = $${params.length}::text`;
  }
  if (r.excludeRevisions.length > 0) {
    params.push(r.excludeRevisions);
    sql += ` AND revision <> ALL($${params.length}::bigint[])`;
  }
  return { sql, params };
}

/**
 * Totals carried from one download page to the next. The PostgreSQL store makes new repositories
 * for each transaction, so the memory is the process's rather than one repository's.
 */
const carried = new CarriedTotals();

/** The dictionary a name resolved to last (its id and creation time: the key of its carried totals). */
const resolvedNames = new Map<string, { id: number; createdAt: string }>();

/** The dictionary's fields at the start of a row of sds_sync_page_named, in its column order. */
const DICTIONARY_FIELDS = ['id', 'name', 'label', 'version', 'description', 'source_format', 'sync_name', 'created_at', 'updated_at'];

/**
 * Where things are in a row of sds_sync_page_named: the dictionary's fields, then the snapshot, the
 * total and the count seen, then the page's columns in PAGE_COLUMNS order (`caseFrom` to
 * `caseTo`, absent on the one row of a page without cases), then whether it has binary items
 * (migration 0038).
 */
const NAMED_PAGE = { snapshot: 9, total: 10, seen: 11, caseFrom: 12, caseTo: 23 } as const;

/** Where `seen` stands in a row of chunkWithin: after the page's columns (RawPageValues). */
const SEEN_AT = PAGE_COLUMNS.split(',').length;

/** The sync protocol's reads and its history on PostgreSQL. */
export class PgSyncRepo implements RepoContract<SyncRepo> {
  constructor(private readonly db: PgRunner) {}

  /**
   * The newest revision of the whole store, 0 when empty. A download uses it as its snapshot:
   * sound only while no lower revision can commit after it, which the store-wide case-write
   * advisory lock taken by nextRevision (./cases-repo.ts) ensures (docs/decisions.md, "Concurrent
   * writers on the PostgreSQL store").
   */
  async maxRevision(): Promise<number> {
    return (await this.db.row<{ r: number | null }>('SELECT max(revision) AS r FROM revisions'))!.r ?? 0;
  }

  /**
   * Turns bitmap scans off for the rest of the transaction (a statement of its own: a statement
   * is planned before it runs). A page of the range is a walk of cases_by_revision in its order
   * that stops after `limit` rows; when the statistics of `cases` are missing or stale (a new
   * store, a burst of uploads before autovacuum analyzes it) the planner expects a few rows and
   * reads the whole rest of the range in a bitmap scan, then sorts it, for every page: a download
   * became quadratic (bench/README.md, "The two stores side by side"). Not set back, to spare a
   * round trip per page: a download's read transaction ends after its count, which walks the same
   * index. Outside a transaction it lasts for this one statement and does nothing.
   */
  private async inIndexOrder(): Promise<void> {
    await this.db.run("SELECT set_config('enable_bitmapscan', 'off', true)");
  }

  /** Up to `limit` cases of the range, by revision then guid. */
  async chunk(dictionaryId: number, r: SyncRange, limit: number): Promise<SyncCaseRow[]> {
    await this.inIndexOrder();
    const { sql, params } = range(dictionaryId, r);
    const rows = await this.db.arrays(`SELECT ${PAGE_COLUMNS} ${sql} ORDER BY revision, guid LIMIT $${params.length + 1}`, [
      ...params,
      limit,
    ]);
    return rows.map((r) => toPageRow(r as RawPageValues));
  }

  /**
   * Up to `limit` cases of the range whose stored text adds up to at most `budget` bytes, and
   * always at least one; `seen` is how many cases the range holds up to `limit`. One statement:
   * the page's rows with their running size, cut by the budget before they are sent (a TOASTed
   * text is read whole only for the rows that are sent; its octet_length reads its stored length).
   */
  async chunkWithin(dictionaryId: number, r: SyncRange, limit: number, budget: number): Promise<{ cases: SyncCaseRow[]; seen: number }> {
    const { sql, params } = range(dictionaryId, r);
    const n = params.length;
    await this.inIndexOrder();
    const rows = await this.db.arrays(
      `SELECT ${PAGE_COLUMNS}, seen FROM (
           SELECT page.*, count(*) OVER () AS seen,
                  sum(${ROW_BYTES}) OVER (ORDER BY revision, guid ROWS UNBOUNDED PRECEDING) AS upto,
                  row_number() OVER (ORDER BY revision, guid) AS k
             FROM (SELECT * ${sql} ORDER BY revision, guid LIMIT $${n + 1}) page
         ) w WHERE upto <= $${n + 2} OR k = 1 ORDER BY revision, guid`,
      [...params, limit, Number.isFinite(budget) ? budget : Number.MAX_SAFE_INTEGER],
    );
    return { cases: rows.map((r) => toPageRow(r as RawPageValues)), seen: Number(rows[0]?.[SEEN_AT] ?? 0) };
  }

  /**
   * How many cases the whole range holds; a total carried from the previous page answers without
   * counting, moved by the cases changed since its snapshot as on SQLite (SyncRepo.count).
   */
  async count(dictionaryId: number, scope: string, r: SyncRange): Promise<number> {
    const c = carried.get(dictionaryId, scope, r);
    if (c !== undefined && c.upTo === r.upTo) return c.total;
    const moved = c !== undefined && c.upTo < r.upTo && r.universe === '' ? await this.movedSince(dictionaryId, r, c.upTo) : null;
    if (moved !== null) return c!.total + moved;
    const { sql, params } = range(dictionaryId, r);
    return (await this.db.row<{ n: number }>(`SELECT count(*) AS n ${sql}`, params))!.n;
  }

  /** What the cases changed after revision `from` did to the range's total (sds_moved_total, migration 0038). */
  private async movedSince(dictionaryId: number, r: SyncRange, from: number): Promise<number | null> {
    const row = await this.db.row<{ moved: string | null }>('SELECT sds_moved_total($1, $2, $3, $4, $5, $6::bigint[]) AS moved', [
      dictionaryId,
      from,
      r.upTo,
      r.after.revision,
      r.after.guid,
      r.excludeRevisions,
    ]);
    return row!.moved === null ? null : Number(row!.moved);
  }

  /** Remembers the total of `range` for the page that asks for it next (see SyncRepo.carry). */
  async carry(dictionaryId: number, scope: string, r: SyncRange, total: number): Promise<void> {
    carried.remember(dictionaryId, scope, r, r.upTo, total);
  }

  /**
   * A download page of the dictionary named `name` (own or syncable name) in one statement and
   * one round trip, outside any transaction: the function sds_sync_page_named (migration 0038)
   * finds the dictionary, takes the newest revision as the snapshot, reads the page as chunkWithin
   * does, and the total as count does (the carried one when it was carried for that dictionary,
   * moved by the cases changed since its snapshot: migration 0038), all in the statement's one
   * snapshot, with which of the page's cases hold binary items (docs/decisions.md, "Queries
   * written per database").
   */
  async snapshotPage(name: string, r: Omit<SyncRange, 'upTo'>, limit: number, budget: number): Promise<NamedSyncPage> {
    // The carried total is keyed by the dictionary's id and creation time, which the statement
    // only returns: the ones this name resolved to last time find it (the statement checks the id).
    const last = resolvedNames.get(name);
    const c = last && carried.get(last.id, last.createdAt, r);
    // Rows as arrays: a page's hundred rows parsed without an object each (NAMED_PAGE columns).
    const rows = await this.db.arrays('SELECT * FROM sds_sync_page_named($1, $2, $3, $4, $5::bigint[], $6, $7, $8, $9, $10)', [
      name,
      r.after.revision,
      r.after.guid,
      r.universe,
      r.excludeRevisions,
      limit,
      Number.isFinite(budget) ? budget : Number.MAX_SAFE_INTEGER,
      c ? last.id : null,
      c?.upTo ?? null,
      c?.total ?? null,
    ]);
    const first = rows[0];
    if (!first) return null;
    // The head (the dictionary, the snapshot, the total, the count seen) is on the first row only (migration 0037).
    const head = first.slice(0, NAMED_PAGE.caseFrom);
    const dictionary = toDictionaryRow(Object.fromEntries(DICTIONARY_FIELDS.map((f, i) => [f, head[i]])) as unknown as RawDictionary);
    resolvedNames.delete(name);
    resolvedNames.set(name, { id: dictionary.id, createdAt: dictionary.createdAt });
    if (resolvedNames.size > MAX_CARRIED) resolvedNames.delete(resolvedNames.keys().next().value!);
    const cases: SyncCaseRow[] = [];
    const withBinaryItems: string[] = [];
    for (const row of rows) {
      // A page without cases is one row of its head alone.
      if (row[NAMED_PAGE.caseFrom] === null) continue;
      // The function returns the page's columns (PAGE_COLUMNS, migration 0038): RawPageValues.
      const values = row.slice(NAMED_PAGE.caseFrom, NAMED_PAGE.caseTo) as RawPageValues;
      cases.push(toPageRow(values));
      if (row[NAMED_PAGE.caseTo] === true) withBinaryItems.push(values[0]);
    }
    return {
      dictionary,
      page: {
        snapshot: Number(head[NAMED_PAGE.snapshot]),
        cases,
        seen: Number(head[NAMED_PAGE.seen]),
        total: Number(head[NAMED_PAGE.total]),
        withBinaryItems,
      },
    };
  }

  /**
   * Records a sync of `device` (created on first sight) in the history: one statement, so the
   * device row and its history row are written together inside or outside a transaction, and two
   * syncs of a new device at once both land (docs/decisions.md, "Concurrent writers on the
   * PostgreSQL store").
   */
  async record(entry: SyncRecord): Promise<void> {
    await this.db.run(
      `WITH device AS (
         INSERT INTO sync_devices (device_id, last_user, first_seen, last_seen) VALUES ($1, $2, $3, $3)
         ON CONFLICT (device_id) DO UPDATE SET last_user = excluded.last_user, last_seen = excluded.last_seen
         RETURNING device_id)
       INSERT INTO sync_history (dictionary_id, device_id, username, direction, revision, universe, cases, created_at)
       SELECT $4::bigint, device_id, $2, $5::text, $6::bigint, $7::text, $8::bigint, $3 FROM device`,
      [entry.device, entry.username, nowIso(), entry.dictionaryId, entry.direction, entry.revision, entry.universe ?? '', entry.cases],
    );
  }

  /** The newest history rows of a dictionary, newest first. */
  async history(dictionaryId: number, limit: number): Promise<SyncHistoryRow[]> {
    const rows = await this.db.rows<RawHistory>(
      `SELECT ${HISTORY_COLUMNS} FROM sync_history WHERE dictionary_id = $1 ORDER BY id DESC LIMIT $2`,
      [dictionaryId, limit],
    );
    return rows.map(toHistory);
  }

  /** The last sync of a device for a dictionary (the 412 body of an upload). */
  async lastOfDevice(device: string, dictionaryId: number, direction?: SyncDirection): Promise<SyncHistoryRow | undefined> {
    const r = await this.db.row<RawHistory>(
      direction
        ? `SELECT ${HISTORY_COLUMNS} FROM sync_history WHERE device_id = $1 AND dictionary_id = $2 AND direction = $3 ORDER BY id DESC LIMIT 1`
        : `SELECT ${HISTORY_COLUMNS} FROM sync_history WHERE device_id = $1 AND dictionary_id = $2 ORDER BY id DESC LIMIT 1`,
      direction ? [device, dictionaryId, direction] : [device, dictionaryId],
    );
    return r && toHistory(r);
  }

  /** Keeps a message a device sent, received at `receivedAt` (default now); returns its id. */
  async recordMessage(m: SyncMessage, receivedAt = nowIso()): Promise<number> {
    const r = await this.db.row<{ id: number }>(
      'INSERT INTO sync_messages (device_id, username, name, value, sent_at, received_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
      [m.device, m.username, m.name, m.value, m.sentAt, receivedAt],
    );
    return r!.id;
  }

  /** Kept messages that `filter` selects, newest (highest id) first, `offset` skipped, at most `limit`. */
  async messages(filter: SyncMessageFilter, page: { limit: number; offset: number }): Promise<StoredSyncMessage[]> {
    const { where, params } = numberedMessageWhere(filter);
    const n = params.length;
    const rows = await this.db.rows<RawMessage>(
      `SELECT ${MESSAGE_COLUMNS} FROM sync_messages ${where} ORDER BY id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, page.limit, page.offset],
    );
    return rows.map(toMessage);
  }

  /** How many kept messages `filter` selects. */
  async countMessages(filter: SyncMessageFilter): Promise<number> {
    const { where, params } = numberedMessageWhere(filter);
    return (await this.db.row<{ n: number }>(`SELECT count(*) AS n FROM sync_messages ${where}`, params))!.n;
  }
}

/** A message filter's WHERE clause with PostgreSQL's numbered parameters. */
function numberedMessageWhere(f: SyncMessageFilter): { where: string; params: unknown[] } {
  const { where, values } = messageWhere(f, (_field, position) => `$${position}`);
  return { where, params: values.map(([, value]) => value) };
}
