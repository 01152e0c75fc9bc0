import type { Database, Statement } from 'better-sqlite3';

/** A binary item a stored case holds (migration 0018). */
export interface BinaryItemRow {
  caseGuid: string;
  signature: string;
  /** The content's length as the descriptor or CSWeb gave it; null when neither did. */
  size: number | null;
  modifiedTime: string;
}

/** A binary-item row as the database returns it. */
export interface RawBinaryItem {
  case_guid: string;
  signature: string;
  size: number | null;
  modified_time: string;
}

/** A binary item from its database row. */
export const toBinaryItem = (r: RawBinaryItem): BinaryItemRow => ({
  caseGuid: r.case_guid,
  signature: r.signature,
  size: r.size,
  modifiedTime: r.modified_time,
});

/** The binary items one case holds (`replaceForCases`). */
export interface CaseBinaryItems {
  guid: string;
  items: readonly Omit<BinaryItemRow, 'caseGuid'>[];
}

/** Rows ordered by case guid, as lists keyed by case guid (the result of `forCases` on both stores). */
export function byCase(rows: readonly RawBinaryItem[]): Map<string, BinaryItemRow[]> {
  const out = new Map<string, BinaryItemRow[]>();
  for (const r of rows) {
    const list = out.get(r.case_guid) ?? [];
    list.push(toBinaryItem(r));
    out.set(r.case_guid, list);
  }
  return out;
}

/** Which case holds which binary item; the content files are the caller's (core/cases/binary-items.ts). */
export class BinaryItemsRepo {
  private readonly deleteStmt: Statement<[number, string]>;
  private readonly insertStmt: Statement<[number, string, string, number | null, string]>;
  private readonly forCaseStmt: Statement<[number, string], RawBinaryItem>;
  private readonly usedStmt: Statement<[number, string], { n: number }>;
  private forCasesStmt?: Statement<[number, string], RawBinaryItem>;

  constructor(private readonly db: Database) {
    this.deleteStmt = db.prepare('DELETE FROM case_binary_items WHERE dictionary_id = ? AND case_guid = ?');
    this.insertStmt = db.prepare(
      `INSERT INTO case_binary_items (dictionary_id, case_guid, signature, size, modified_time) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (dictionary_id, case_guid, signature) DO UPDATE SET size = excluded.size, modified_time = excluded.modified_time`,
    );
    this.forCaseStmt = db.prepare(
      'SELECT case_guid, signature, size, modified_time FROM case_binary_items WHERE dictionary_id = ? AND case_guid = ? ORDER BY signature',
    );
    this.usedStmt = db.prepare('SELECT count(*) AS n FROM case_binary_items WHERE dictionary_id = ? AND signature = ?');
  }

  /** Replaces the rows of one case (call inside the transaction that writes the case). */
  async replaceForCase(dictionaryId: number, guid: string, items: readonly Omit<BinaryItemRow, 'caseGuid'>[]): Promise<void> {
    this.deleteStmt.run(dictionaryId, guid);
    for (const i of items) this.insertStmt.run(dictionaryId, guid, i.signature, i.size, i.modifiedTime);
  }

  /**
   * Replaces the rows of several cases, each with its own list, as `replaceForCase` one case after
   * the other would (a case listed twice keeps its last list); for a batch of case writes.
   */
  async replaceForCases(dictionaryId: number, cases: readonly CaseBinaryItems[]): Promise<void> {
    for (const c of cases) await this.replaceForCase(dictionaryId, c.guid, c.items);
  }

  /** The rows of one case, by signature. */
  async forCase(dictionaryId: number, guid: string): Promise<BinaryItemRow[]> {
    return this.forCaseStmt.all(dictionaryId, guid).map(toBinaryItem);
  }

  /** The rows of several cases (one query), keyed by case guid. */
  async forCases(dictionaryId: number, guids: readonly string[]): Promise<Map<string, BinaryItemRow[]>> {
    if (guids.length === 0) return new Map();
    // One statement for any number of guids (a JSON array), prepared once: every download page
    // asks, and preparing a statement per page cost more than running it (bench/README.md,
    // "Pages from stored text").
    this.forCasesStmt ??= this.db.prepare<[number, string], RawBinaryItem>(
      `SELECT case_guid, signature, size, modified_time FROM case_binary_items
        WHERE dictionary_id = ? AND case_guid IN (SELECT value FROM json_each(?)) ORDER BY case_guid, signature`,
    );
    return byCase(this.forCasesStmt.all(dictionaryId, JSON.stringify(guids)));
  }

  /** How many cases of the dictionary hold `signature`. */
  async casesHolding(dictionaryId: number, signature: string): Promise<number> {
    return this.usedStmt.get(dictionaryId, signature)!.n;
  }
}
