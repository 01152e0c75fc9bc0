/**
 * Which case holds which binary item, on the PostgreSQL store: the SQLite repository's
 * statements (../binary-items-repo.ts), each write one statement over arrays so a batch of cases
 * costs one round trip however many items they hold.
 */
import {
  byCase,
  toBinaryItem,
  type BinaryItemRow,
  type BinaryItemsRepo,
  type CaseBinaryItems,
  type RawBinaryItem,
} from '../binary-items-repo.js';
import type { RepoContract } from '../store-contract.js';
import type { PgRunner } from './pg-runner.js';

const COLUMNS = 'case_guid, signature, size, modified_time';

// Several cases in one statement: the rows of the listed cases that their new lists no longer
// name go; the others are inserted or updated. A case listed twice keeps its last list (the
// caller dedups), a signature listed twice in one list its last values.
const REPLACE_FOR_CASES = `WITH items AS (
    SELECT DISTINCT ON (case_guid, signature) case_guid, signature, size, modified_time
      FROM unnest($2::text[], $3::text[], $4::bigint[], $5::text[]) WITH ORDINALITY AS t(case_guid, signature, size, modified_time, n)
     ORDER BY case_guid, signature, n DESC
  ), gone AS (
    DELETE FROM case_binary_items b WHERE b.dictionary_id = $1 AND b.case_guid = ANY($6::text[])
       AND NOT EXISTS (SELECT 1 FROM items i WHERE i.case_guid = b.case_guid AND i.signature = b.signature)
  )
  INSERT INTO case_binary_items (dictionary_id, case_guid, signature, size, modified_time)
  SELECT $1, case_guid, signature, size, modified_time FROM items
  ON CONFLICT (dictionary_id, case_guid, signature) DO UPDATE SET size = excluded.size, modified_time = excluded.modified_time`;

/** Which case holds which binary item, on PostgreSQL; the content is the caller's. */
export class PgBinaryItemsRepo implements RepoContract<BinaryItemsRepo> {
  constructor(private readonly db: PgRunner) {}

  /** Replaces the rows of one case (call inside the transaction that writes the case); one statement. */
  async replaceForCase(dictionaryId: number, guid: string, items: readonly Omit<BinaryItemRow, 'caseGuid'>[]): Promise<void> {
    await this.replaceForCases(dictionaryId, [{ guid, items }]);
  }

  /** Replaces the rows of several cases, each with its own list, in one statement (a case listed twice keeps its last list). */
  async replaceForCases(dictionaryId: number, cases: readonly CaseBinaryItems[]): Promise<void> {
    if (cases.length === 0) return;
    const last = new Map(cases.map((c) => [c.guid, c.items]));
    const rows = [...last].flatMap(([guid, items]) => items.map((i) => ({ guid, ...i })));
    await this.db.run(REPLACE_FOR_CASES, [
      dictionaryId,
      rows.map((r) => r.guid),
      rows.map((r) => r.signature),
      rows.map((r) => r.size),
      rows.map((r) => r.modifiedTime),
      [...last.keys()],
    ]);
  }

  /** The rows of one case, by signature. */
  async forCase(dictionaryId: number, guid: string): Promise<BinaryItemRow[]> {
    return (
      await this.db.rows<RawBinaryItem>(
        `SELECT ${COLUMNS} FROM case_binary_items WHERE dictionary_id = $1 AND case_guid = $2 ORDER BY signature`,
        [dictionaryId, guid],
      )
    ).map(toBinaryItem);
  }

  /** The rows of several cases (one statement, one array parameter), keyed by case guid. */
  async forCases(dictionaryId: number, guids: readonly string[]): Promise<Map<string, BinaryItemRow[]>> {
    if (guids.length === 0) return new Map();
    return byCase(
      await this.db.rows<RawBinaryItem>(
        `SELECT ${COLUMNS} FROM case_binary_items WHERE dictionary_id = $1 AND case_guid = ANY($2::text[]) ORDER BY case_guid, signature`,
        [dictionaryId, guids],
      ),
    );
  }

  /** How many cases of the dictionary hold `signature`. */
  async casesHolding(dictionaryId: number, signature: string): Promise<number> {
    return (await this.db.row<{ n: number }>('SELECT count(*) AS n FROM case_binary_items WHERE dictionary_id = $1 AND signature = $2', [
      dictionaryId,
      signature,
    ]))!.n;
  }
}
