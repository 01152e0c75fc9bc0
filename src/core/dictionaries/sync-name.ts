import type { StoreScope } from '../../store/store-contract.js';
import type { DictionaryRow } from '../../store/dictionaries-repo.js';
import type { Dictionary } from '../../cspro/dictionary/model.js';
import { AppError } from '../../shared/errors.js';

/**
 * The dictionary a route or command names, by its own name or by its syncable name
 * (docs/sync.md#syncable-names): the one place where a name given from outside is resolved.
 * Both are exact (names are case-sensitive); an upload keeps them apart whatever the case, so at
 * most one dictionary answers.
 */
export async function findDictionaryRow(store: StoreScope, name: string): Promise<DictionaryRow | undefined> {
  return store.dictionaries.resolve(name);
}

/** True when `name` names this dictionary, by its own name or its syncable name (a filter's test). */
export function answersTo(dict: Pick<DictionaryRow, 'name' | 'syncName'>, name: string): boolean {
  return dict.name === name || dict.syncName === name;
}

/** The name CSPro 8.1 clients use in URLs: the syncable name, or the dictionary's own name when it has none. */
export function urlName(dict: Pick<DictionaryRow, 'name' | 'syncName'>): string {
  return dict.syncName ?? dict.name;
}

const same = (a: string | null, b: string) => a !== null && a.toUpperCase() === b.toUpperCase();

/**
 * The syncable name an upload of `model` stores (docs/sync.md#syncable-names): the file's, or,
 * when the file sets none (the text form never does), the one already stored. Refused with
 * SYNC_NAME_LOCKED when it would change the syncable name of a dictionary that holds cases
 * (tablets and data sources of the old name would lose it, or the cases of one data set would mix
 * with another's), and with SYNC_NAME_TAKEN when the name or the syncable name is, whatever the
 * case, the name or syncable name of another dictionary: a URL would then name two dictionaries.
 */
export async function settleSyncName(
  store: StoreScope,
  model: Pick<Dictionary, 'name' | 'syncableName'>,
  existing: DictionaryRow | undefined,
): Promise<string | null> {
  const wanted = model.syncableName ?? existing?.syncName ?? null;
  // Only a file that sets one can change it: one without keeps the stored name.
  if (existing && model.syncableName !== undefined && model.syncableName !== existing.syncName) {
    const cases = await store.cases.count(existing.id);
    if (cases > 0) {
      const from =
        existing.syncName === null ? `has no syncable name (its URLs use ${existing.name})` : `has the syncable name ${existing.syncName}`;
      throw new AppError(
        'SYNC_NAME_LOCKED',
        `dictionary ${existing.name} ${from} and holds ${cases} cases; this file sets the syncable name ${model.syncableName}. ` +
          'A dictionary with cases keeps its syncable name: upload the file with the stored one, or delete the dictionary with its cases first',
        { dictionary: existing.name, sync_name: existing.syncName, requested: wanted, cases },
      );
    }
  }
  for (const other of await store.dictionaries.list()) {
    if (other.name === model.name) continue;
    if (wanted !== null && (same(other.name, wanted) || same(other.syncName, wanted))) {
      const what = same(other.name, wanted) ? 'the name' : 'the syncable name';
      throw new AppError(
        'SYNC_NAME_TAKEN',
        `the syncable name ${wanted} of dictionary ${model.name} is ${what} of dictionary ${other.name}; a URL would name both`,
        { dictionary: model.name, sync_name: wanted, taken_by: other.name },
      );
    }
    if (same(other.syncName, model.name)) {
      throw new AppError(
        'SYNC_NAME_TAKEN',
        `the name of dictionary ${model.name} is the syncable name of dictionary ${other.name}; a URL would name both`,
        { dictionary: model.name, sync_name: other.syncName, taken_by: other.name },
      );
    }
  }
  return wanted;
}
