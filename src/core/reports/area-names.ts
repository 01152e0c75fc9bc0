import type { Store } from '../../store/open-store.js';
import { requireDictionaryRow } from '../dictionaries/index.js';
import { areaKey, parseAreaNames } from './area-names-csv.js';

/** What storing an area names file did. */
export interface AreaNamesReply {
  dictionary: string;
  /** Areas the dictionary now has names for (those of the file; earlier ones are replaced). */
  areas: number;
  message: string;
}

/**
 * Stores the area names of a dictionary from the text of a code/label CSV
 * (docs/supervision.md#area-names), replacing those it had, in one transaction; the file is checked
 * whole first (AREA_NAMES_INVALID lists every bad line and nothing is kept). `header` skips the
 * first line.
 */
export async function storeAreaNames(store: Store, dictionaryName: string, csv: string, header = false): Promise<AreaNamesReply> {
  const dict = await requireDictionaryRow(store, dictionaryName);
  const areas = parseAreaNames(csv, header);
  const rows = areas.map((a) => ({ codes: areaKey(a.codes), label: a.label }));
  const n = await store.transaction((tx) => tx.syncReports.replaceAreaNames(dict.id, rows));
  return { dictionary: dict.name, areas: n, message: `${n} area name(s) stored for ${dict.name}` };
}
