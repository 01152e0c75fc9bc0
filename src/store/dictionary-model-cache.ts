/**
 * Parsed dictionary models kept between requests (docs/decisions.md, "Dictionary models read
 * once"): every sync request needs its dictionary's model, and parsing its JSON per request costs
 * more than the lookup. An entry is only reused while the stored row is the one it was parsed
 * from — its `version`: the model text itself on SQLite (read in process, compared cheaply, and
 * read at all only when the table may have changed: sqlite-table-changes.ts), the row version
 * (`xmin` and `ctid`) on PostgreSQL, where the text is then not even sent. One cache
 * per open store, so two stores in one process never share entries.
 */
import type { Dictionary } from '../cspro/dictionary/model.js';

/** Frozen, so a caller that changed a shared model would fail loudly instead of corrupting the next request's. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export class DictionaryModelCache {
  private readonly entries = new Map<number, { version: string; model: Dictionary }>();

  /** The model of dictionary `id` parsed from the row at `version`, if it is the one held. */
  get(id: number, version: string): Dictionary | undefined {
    const e = this.entries.get(id);
    return e && e.version === version ? e.model : undefined;
  }

  /** Parses `text`, the model of dictionary `id` at `version`, and keeps it in place of an older one. */
  put(id: number, version: string, text: string): Dictionary {
    const model = deepFreeze(JSON.parse(text) as Dictionary);
    this.entries.set(id, { version, model });
    return model;
  }

  /** The versions held, for a query that skips sending a model the cache has. */
  versions(): string[] {
    return [...this.entries.values()].map((e) => e.version);
  }
}
