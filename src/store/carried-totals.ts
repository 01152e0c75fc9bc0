/**
 * The totals a download page carries to the next page of the same download (docs/sync.md#speed,
 * "Download total"), for the sync repositories of both stores: keyed by the dictionary (its id and
 * creation time, `scope`), the cursor and the filters, each with the snapshot revision it holds
 * for; the oldest forgotten first beyond MAX_CARRIED downloads.
 */

/** Downloads in progress whose next page's total is remembered (a few bytes each). */
export const MAX_CARRIED = 1000;

/** What a carried total is keyed by: a download range but its snapshot. */
export interface CarriedRange {
  after: { revision: number; guid: string };
  universe: string;
  excludeRevisions: number[];
}

/** A carried total and the snapshot revision it was counted at. */
export interface CarriedTotal {
  upTo: number;
  total: number;
}

export class CarriedTotals {
  private readonly totals = new Map<string, CarriedTotal>();

  /** The total carried for `range` of the dictionary, with its snapshot; undefined when none. */
  get(dictionaryId: number, scope: string, range: CarriedRange): CarriedTotal | undefined {
    return this.totals.get(keyOf(dictionaryId, scope, range));
  }

  /** Remembers `total` for `range` at the snapshot `upTo`, the latest carry winning. */
  remember(dictionaryId: number, scope: string, range: CarriedRange, upTo: number, total: number): void {
    const key = keyOf(dictionaryId, scope, range);
    this.totals.delete(key);
    this.totals.set(key, { upTo, total });
    // A Map iterates in insertion order: drop the oldest downloads' entries.
    if (this.totals.size > MAX_CARRIED) this.totals.delete(this.totals.keys().next().value!);
  }
}

function keyOf(dictionaryId: number, scope: string, r: CarriedRange): string {
  return `${dictionaryId}\u0000${scope}\u0000${r.after.revision}\u0000${r.after.guid}\u0000${r.universe}\u0000${r.excludeRevisions.join(',')}`;
}
