import { basename } from 'node:path';
import { parseDictionary } from '../../cspro/dictionary/parse-dictionary.js';
import { labelOf } from '../../cspro/dictionary/model.js';
import type { StoreScope } from '../../store/store-contract.js';
import type { DictionaryRecord, DictionaryRow } from '../../store/dictionaries-repo.js';
import { AppError } from '../../shared/errors.js';
import { tablePrefix, validateLabel } from './label.js';
import { planBreakout } from '../../breakout/plan.js';
import { getDialect } from '../../breakout/dialects/index.js';
import { pendingRebuild, type RebuildReason } from '../../breakout/table-rebuild.js';
import { findDictionaryRow, settleSyncName, urlName } from './sync-name.js';

/** Item of the dictionary list (docs/http-api.md#routes, list form). */
export interface DictionaryListItem {
  /** The name in URLs: the syncable name, or the dictionary's own name when it has none (docs/sync.md#syncable-names). */
  name: string;
  label: string;
  version: string;
  created_at: string;
  /** Cases not deleted, as CSWeb's list reports them to the data-collection client. */
  caseCount: number;
  /** The dictionary's own name, which CSPro 8.1 reads apart from the name in URLs (docs/sync.md#syncable-names). */
  dictionaryName: string;
  /** When the dictionary was last uploaded, RFC 3339 to the second (CSPro 8.1 reads it; docs/sync.md#dictionaries). */
  modifiedTime: string;
}

/** Dictionary detail (docs/http-api.md#routes). */
export interface DictionaryDetail {
  name: string;
  /** The syncable name of a CSPro 8.1 dictionary, null when it has none (docs/sync.md#syncable-names). */
  sync_name: string | null;
  label: string;
  version: string;
  description: string;
  levels: { name: string; label: string }[];
  records: { name: string; label: string }[];
  created_at: string;
  updated_at: string;
}

/** The spec's shorter detail form. */
export type DictionaryShort = Pick<DictionaryDetail, 'name' | 'label' | 'levels' | 'records'>;

/**
 * The drop and rebuild a replaced dictionary makes the next breakout do (docs/breakout.md#destructive-changes),
 * from what the last breakout recorded: the target is not asked, so the tables are dropped only
 * if it still holds them.
 */
export interface BreakoutRebuildNotice {
  reason: Extract<RebuildReason, 'label' | 'structure'>;
  /** Why, e.g. the old and new table prefix. */
  detail: string;
  message: string;
  /** The target the tables were recorded in, without its password. */
  target: string;
  tables_dropped: string[];
  tables_created: string[];
}

export interface UploadReply {
  message: string;
  name: string;
  /** The syncable name stored with it, null when none (docs/sync.md#syncable-names). */
  sync_name: string | null;
  label: string;
  created: boolean;
  /** Null when the next breakout keeps the tables (or none was made yet). */
  breakout_rebuild: BreakoutRebuildNotice | null;
}

/**
 * Parses and stores a dictionary file. The name is the one inside the file; the label is checked
 * and must not be used by another dictionary, since it prefixes that dictionary's tables. An
 * upload under an existing name replaces its file and label (as CSWeb does); an invalid file
 * changes nothing. A syncable name the file sets is stored with it and checked by
 * `settleSyncName` (docs/sync.md#syncable-names). The checks and the save are one transaction
 * (a savepoint when `store` is one), so no other upload comes between them.
 */
export async function uploadDictionary(
  store: StoreScope,
  input: {
    source: Buffer;
    label: unknown;
    file?: string;
    /** A syncable name known beside the file (CSWeb 8.1's `name`), taken when the file sets none. */
    syncName?: string;
  },
): Promise<UploadReply> {
  const label = validateLabel(input.label);
  const model = parseDictionary(input.source, { file: input.file });
  const format = firstSignificantChar(input.source) === '[' ? 'text' : 'json';
  return store.transaction(async (tx) => {
    await tx.dictionaries.lockForChanges();
    const clash = (await tx.dictionaries.list()).find((d) => d.name !== model.name && tablePrefix(d.label) === tablePrefix(label));
    if (clash) {
      throw new AppError('CONFLICT', `label "${label}" is already used by dictionary ${clash.name}; breakout tables would collide`, {
        label,
        dictionary: clash.name,
      });
    }
    const wanted = { name: model.name, syncableName: model.syncableName ?? input.syncName };
    const syncName = await settleSyncName(tx, wanted, await tx.dictionaries.find(model.name));
    const { row, created } = await tx.dictionaries.save({
      name: model.name,
      label,
      version: model.version,
      description: labelOf(model),
      source: input.source,
      sourceFormat: format,
      syncName,
      model,
    });
    const notice = created ? null : await rebuildNotice(tx, row.id, row.name, model, label);
    const message = created ? `Dictionary ${row.name} uploaded` : `Dictionary ${row.name} replaced`;
    return {
      message: notice ? `${message}; ${notice.message}` : message,
      name: row.name,
      sync_name: row.syncName,
      label: row.label,
      created,
      breakout_rebuild: notice,
    };
  });
}

/**
 * What the next incremental breakout will drop and create because of this upload: the pure
 * planner against the breakout state, on the dialect of the target the state was recorded in.
 */
async function rebuildNotice(
  store: StoreScope,
  dictionaryId: number,
  name: string,
  model: ReturnType<typeof parseDictionary>,
  label: string,
): Promise<BreakoutRebuildNotice | null> {
  const state = await store.breakoutState.get(dictionaryId);
  if (!state) return null;
  let rebuild;
  try {
    const dialect = getDialect(state.target.split(' ')[0]!);
    rebuild = pendingRebuild(state, planBreakout(model, label, { maxIdentifierLength: dialect.capabilities.maxIdentifierLength }));
  } catch {
    // A dictionary the planner refuses (NAME_COLLISION) fails its next breakout with that error; the upload itself stands.
    return null;
  }
  if (!rebuild || (rebuild.reason !== 'label' && rebuild.reason !== 'structure')) return null;
  const target = publicTarget(state.target);
  return {
    reason: rebuild.reason,
    detail: rebuild.detail,
    message:
      `${rebuild.detail}. The next breakout of ${name} drops ${rebuild.drop.length} tables in ${target} if the target still holds them ` +
      `(${rebuild.drop.join(', ')}) and creates ${rebuild.create.length} (${rebuild.create.join(', ')}), loading every case again`,
    target,
    tables_dropped: rebuild.drop,
    tables_created: rebuild.create,
  };
}

/** A recorded target as a reply may show it: a SQLite file by its name only, never the server's path. */
function publicTarget(identity: string): string {
  return identity.startsWith('sqlite ') ? `sqlite ${basename(identity.slice('sqlite '.length))}` : identity;
}

function firstSignificantChar(source: Buffer): string {
  const text = source
    .subarray(0, 64)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  return text.charAt(0);
}

/**
 * All dictionaries in the list form of the spec, by dictionary name. As CSWeb 8.1 lists them,
 * `name` is the name in URLs (the syncable name when there is one) and `dictionaryName` the
 * dictionary's own.
 */
export async function listDictionaries(store: StoreScope): Promise<DictionaryListItem[]> {
  const out: DictionaryListItem[] = [];
  for (const d of await store.dictionaries.list()) {
    out.push({
      name: urlName(d),
      label: d.label,
      version: d.version,
      created_at: d.createdAt,
      caseCount: await store.cases.countActive(d.id),
      dictionaryName: d.name,
      modifiedTime: d.updatedAt.replace(/\.\d+Z$/, 'Z'),
    });
  }
  return out;
}

/**
 * Loads a dictionary with its model, named by its own name or its syncable name
 * (docs/sync.md#syncable-names), or fails with DICTIONARY_NOT_FOUND naming close matches. Callers
 * go on with the record's `name`, never the name they were given.
 */
export async function requireDictionary(store: StoreScope, name: string): Promise<DictionaryRecord> {
  return (await store.dictionaries.resolveWithModel(name)) ?? notFound(store, name);
}

/** The dictionary's row without its model (no JSON to parse), named and refused as above. */
export async function requireDictionaryRow(store: StoreScope, name: string): Promise<DictionaryRow> {
  return (await findDictionaryRow(store, name)) ?? notFound(store, name);
}

async function notFound(store: StoreScope, name: string): Promise<never> {
  const near = (await store.dictionaries.list())
    .flatMap((d) => (d.syncName === null ? [d.name] : [d.name, d.syncName]))
    .filter((n) => n.toLowerCase() === name.toLowerCase() || n.toLowerCase().includes(name.toLowerCase()));
  const hint = near.length ? ` (names are case-sensitive; did you mean ${near.join(', ')}?)` : '';
  throw new AppError('DICTIONARY_NOT_FOUND', `dictionary ${name} not found${hint}`, { dictionary: name });
}

/**
 * The dictionary file as it was uploaded, byte for byte (text or JSON form): what CSPro clients
 * download, since they parse it as a dictionary (docs/sync.md#dictionaries).
 */
export async function dictionarySource(store: StoreScope, name: string): Promise<{ source: Buffer; format: 'text' | 'json' }> {
  const row = await requireDictionaryRow(store, name);
  const source = await store.dictionaries.source(row.name);
  if (!source) return notFound(store, name);
  return { source, format: row.sourceFormat };
}

/** The detail form of a dictionary (docs/http-api.md#routes), or the short form with `short`. */
export async function getDictionary(
  store: StoreScope,
  name: string,
  opts: { short?: boolean } = {},
): Promise<DictionaryDetail | DictionaryShort> {
  const d = await requireDictionary(store, name);
  const levels = d.model.levels.map((l) => ({ name: l.name, label: labelOf(l) }));
  const records = d.model.levels.flatMap((l) => l.records.map((r) => ({ name: r.name, label: labelOf(r) })));
  if (opts.short) return { name: d.name, label: d.label, levels, records };
  return {
    name: d.name,
    sync_name: d.syncName,
    label: d.label,
    version: d.version,
    description: d.description,
    levels,
    records,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
  };
}

/**
 * Deletes a dictionary that has no cases and no breakout tables: deleting it would otherwise
 * orphan data analysts rely on. The checks and the delete are one transaction, so no case
 * written meanwhile is deleted with it.
 */
export async function deleteDictionary(store: StoreScope, given: string): Promise<{ message: string; name: string }> {
  return store.transaction(async (tx) => {
    const d = await requireDictionary(tx, given);
    const name = d.name;
    const cases = await tx.cases.count(d.id);
    if (cases > 0) {
      throw new AppError('DICT_IN_USE', `dictionary ${name} has ${cases} cases; it can be deleted only without cases and breakout tables`, {
        dictionary: name,
        cases,
      });
    }
    const state = await tx.breakoutState.get(d.id);
    if (state) {
      throw new AppError('DICT_IN_USE', `dictionary ${name} has breakout tables in ${state.target}; drop them first`, {
        dictionary: name,
        tables: state.tables,
      });
    }
    await tx.dictionaries.delete(d.id);
    return { message: `Dictionary ${name} deleted`, name };
  });
}
