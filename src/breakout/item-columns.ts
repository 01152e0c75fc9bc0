/**
 * How dictionary items become columns (docs/breakout.md). The planner uses it to name and type the
 * columns, the flattener to know which JSON key and occurrence feeds each one, so the two can
 * never disagree about the order.
 */
import type { ColumnType } from './plan-model.js';
import type { DictItem } from '../cspro/dictionary/model.js';
import { AppError } from '../shared/errors.js';

/** How a value of the item is converted for its column. */
type ItemValueKind = 'integer' | 'decimal' | 'alpha' | 'binary';

/** The columns of one item: one per occurrence, in occurrence order. */
export interface ItemColumns {
  item: DictItem;
  /** Occurrences in the case JSON: the item's own times its parent's for a subitem (docs/cspro-formats.md#item-values). */
  occurrences: number;
  kind: ItemValueKind;
  type: ColumnType;
  /** Unshortened column names: `name` or `name_1 … name_n`. */
  names: string[];
}

/** Content types whose data is not in the case JSON: only a descriptor (signature, metadata). */
const BINARY_TYPES = new Set(['image', 'audio', 'document', 'geometry']);

/**
 * Columns of a list of items (a record's items or a level's id items), in dictionary order,
 * so a subitem's columns come right after its parent's. A subitem's parent is the nearest
 * preceding non-subitem item of the same list.
 */
export function itemColumns(items: readonly DictItem[]): ItemColumns[] {
  const out: ItemColumns[] = [];
  let parentOccurrences = 1;
  for (const item of items) {
    const own = Math.max(1, item.occurrences);
    const occurrences = item.subitem ? own * parentOccurrences : own;
    if (!item.subitem) parentOccurrences = own;
    const { kind, type } = columnTypeOf(item);
    const base = item.name.toLowerCase();
    const names: string[] = [];
    if (occurrences === 1) names.push(base);
    else for (let k = 1; k <= occurrences; k++) names.push(`${base}_${k}`);
    out.push({ item, occurrences, kind, type, names });
  }
  return out;
}

/**
 * Column type of one occurrence. Numeric: precision = item length (sign and, with a decimal
 * mark, the mark included — a safe upper bound). Binary items (image, audio, document,
 * geometry) get a text column holding their descriptor JSON as the case carries it
 * (`{"length":…,"signature":…,"metadata":…}`); the content itself stays in the store.
 */
function columnTypeOf(item: DictItem): { kind: ItemValueKind; type: ColumnType } {
  if (item.contentType === 'numeric') {
    if (item.decimals > 0) {
      return { kind: 'decimal', type: { kind: 'decimal', precision: Math.max(item.length, item.decimals), scale: item.decimals } };
    }
    return { kind: 'integer', type: { kind: 'integer', digits: item.length } };
  }
  if (item.contentType === 'alpha') return { kind: 'alpha', type: { kind: 'varchar', length: item.length } };
  if (BINARY_TYPES.has(item.contentType)) return { kind: 'binary', type: { kind: 'text' } };
  throw new AppError('DICT_INVALID', `Item ${item.name} has an unknown content type ${String(item.contentType)}`, { item: item.name });
}
