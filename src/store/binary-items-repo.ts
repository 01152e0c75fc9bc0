import type { Database, Statement } from 'better-sqlite3';

/** A binary item a stored case holds (migration 0018). */
export interface BinaryItemRow {
  caseGuid: string;
  signature: string;
  /** The content's length as the descriptor or CSWeb gave it; null when neither did. */
  size: number | null;
  modifiedTime: string;
}

interface RawRow {
  case_guid: string;
  signature: string;
  size: number | null;
  modified_time: string;
}

const toRow = (r: RawRow): BinaryItemRow => ({
  caseGuid: r.case_guid,
  signature: r.signature,
  size: r.size,
  modifiedTime: r.modified_time,
});

/** Which case holds which binary item; the content files are the caller's (core/cases/binary-items.ts). */
export class BinaryItemsRepo {
  private readonly deleteStmt: Statement<[number, string]>;
  private readonly insertStmt: Statement<[number, string, string, number | null, string]>;
  private readonly forCaseStmt: Statement<[number, string], RawRow>;
  private readonly usedStmt: Statement<[number, string], { n: number }>;

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

  /** The rows of one case, by signature. */
  async forCase(dictionaryId: number, guid: string): Promise<BinaryItemRow[]> {
    return this.forCaseStmt.all(dictionaryId, guid).map(toRow);
  }

  /** The rows of several cases (one query), keyed by case guid. */
  async forCases(dictionaryId: number, guids: readonly string[]): Promise<Map<string, BinaryItemRow[]>> {
    const out = new Map<string, BinaryItemRow[]>();
    if (guids.length === 0) return out;
    const rows = this.db
      .prepare<unknown[], RawRow>(
        `SELECT case_guid, signature, size, modified_time FROM case_binary_items
          WHERE dictionary_id = ? AND case_guid IN (${guids.map(() => '?').join(',')}) ORDER BY case_guid, signature`,
      )
      .all(dictionaryId, ...guids);
    for (const r of rows) {
      const list = out.get(r.case_guid) ?? [];
      list.push(toRow(r));
      out.set(r.case_guid, list);
    }
    return out;
  }

  /** How many cases of the dictionary hold `signature`. */
  async casesHolding(dictionaryId: number, signature: string): Promise<number> {
    return this.usedStmt.get(dictionaryId, signature)!.n;
  }
}
