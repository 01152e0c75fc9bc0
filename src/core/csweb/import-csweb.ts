import { readFileSync } from 'node:fs';
import type { Connection } from 'mysql2/promise';
import type { Store } from '../../store/open-store.js';
import { AppError, toAppError } from '../../shared/errors.js';
import { parseDictionary } from '../../cspro/dictionary/parse-dictionary.js';
import type { Dictionary } from '../../cspro/dictionary/model.js';
import { checkCswebSchema, currentDatabase, missingDictionaryTables } from '../../csweb/schema-check.js';
import { countCswebCases, readCswebDictionaries, readHighestRevision, type CswebDictionary } from '../../csweb/case-reader.js';
import { checkTimeZone, timeZoneFromConfigPhp } from '../../csweb/wall-time.js';
import { settleSyncName, uploadDictionary } from '../dictionaries/index.js';
import { limitsOf } from '../home/index.js';
import { keepRevision } from '../cases/index.js';
import { checkSource, claimSource, readCursor } from './import-state.js';
import { mapLabel } from './import-label.js';
import { ReportEntries, type CswebImportReport, type DictionaryImport } from './import-report.js';
import { importDictionaryCases, type CasesContext } from './import-cases.js';
import { importCswebFiles } from './files.js';
import { importCswebUsers } from './users.js';
import { importCswebMessages } from './messages.js';

/** Report entries listed in a report; the others are counted. */
const DETAIL_LIMIT = 1000;

export interface CswebImportOptions {
  /** Only these dictionaries (CSWeb names, any case); all when absent. */
  dictionaries?: string[];
  /** IANA zone of CSWeb's note times (its DEFAULT_TIMEZONE). */
  timeZone?: string;
  /** CSWeb's config.php, read for DEFAULT_TIMEZONE when no zone is given. */
  cswebConfig?: string;
  /** Read and decode everything, write nothing. */
  dryRun?: boolean;
  /** Queue webhook events for the imported changes (off by default). */
  emitEvents?: boolean;
  /** Cases handled so far and the number the run will read. */
  onProgress?: (done: number, total: number) => void;
  /** Aborted (Ctrl-C): the run stops after the page it is writing. */
  signal?: AbortSignal;
  detailLimit?: number;
  /** Import CSWeb's accounts too (default true; docs/migrating-from-csweb.md#users-and-roles). */
  users?: boolean;
  /** CSWeb's files folder: its synced files and app packages are imported too (docs/migrating-from-csweb.md#files-and-app-packages). */
  filesDir?: string;
}

/** The zone of note times: the option, else config.php's DEFAULT_TIMEZONE, else CSWEB_TIMEZONE_REQUIRED. */
export function resolveTimeZone(opts: Pick<CswebImportOptions, 'timeZone' | 'cswebConfig'>): string {
  if (opts.timeZone !== undefined) return checkTimeZone(opts.timeZone, 'the time zone given');
  if (opts.cswebConfig !== undefined) {
    let text: string;
    try {
      text = readFileSync(opts.cswebConfig, 'utf8');
    } catch (err) {
      throw new AppError('IO_ERROR', `cannot read CSWeb's configuration ${opts.cswebConfig}: ${(err as Error).message}`, {
        file: opts.cswebConfig,
      });
    }
    const zone = timeZoneFromConfigPhp(text);
    if (zone === undefined) {
      throw new AppError(
        'CSWEB_TIMEZONE_REQUIRED',
        `${opts.cswebConfig} defines no DEFAULT_TIMEZONE; give the zone of CSWeb's note times`,
        {
          file: opts.cswebConfig,
        },
      );
    }
    return checkTimeZone(zone, `DEFAULT_TIMEZONE of ${opts.cswebConfig}`);
  }
  throw new AppError(
    'CSWEB_TIMEZONE_REQUIRED',
    'CSWeb stores note times as wall time in its own zone (DEFAULT_TIMEZONE of its config.php): give that zone, or the config.php',
    {},
  );
}

/**
 * Imports a CSWeb 8.0 or 8.1 database into the store (docs/migrating-from-csweb.md): every dictionary as
 * CSWeb stored it, and every case changed after the last run's cursor with its CSWeb revision,
 * so tablets keep syncing incrementally. Refuses a database that is not CSWeb 8's before
 * writing anything. A case that cannot be decoded is a report entry and the others go on; the
 * caller makes CSWEB_IMPORT_PARTIAL of `failed`. Each page commits with its cursor, so a rerun
 * brings only changes and an interrupted run resumes without duplicates.
 */
export async function importFromCsweb(store: Store, conn: Connection, opts: CswebImportOptions = {}): Promise<CswebImportReport> {
  const zone = resolveTimeZone(opts);
  const database = await currentDatabase(conn);
  const source = await checkCswebSchema(conn, database);
  const entries = new ReportEntries(opts.detailLimit ?? DETAIL_LIMIT);
  const dryRun = opts.dryRun === true;
  // An unknown --dictionary is refused before the home is tied to the source.
  const wanted = selectDictionaries(await readCswebDictionaries(conn, source.layout), opts.dictionaries);
  if (dryRun) await checkSource(store, source.serverDeviceId);
  else {
    const claim = await store.transaction((tx) => claimSource(tx, source.serverDeviceId));
    if (claim.replacedDeviceId !== undefined) {
      entries.add({
        level: 'warn',
        code: 'CSWEB_DEVICE_ID_REPLACED',
        message: `sds's server device id ${claim.replacedDeviceId} was replaced by CSWeb's ${source.serverDeviceId}, so tablets see the same server`,
      });
    }
  }
  // The snapshot: cases written to CSWeb after this are left for the next run.
  const highest = await readHighestRevision(conn);
  const limits = limitsOf(store);

  // Accounts first: a tablet pointed at sds logs in before it syncs.
  const users = opts.users === false ? undefined : await importCswebUsers(store, conn, { dryRun, layout: source.layout });
  for (const e of users?.report ?? []) entries.add(e);

  const plans: { csweb: CswebDictionary; total: number }[] = [];
  for (const d of wanted) {
    const existing = await store.dictionaries.find(d.name);
    const after = existing ? await readCursor(store, source.serverDeviceId, d.name, existing.id) : { revision: 0, guid: '' };
    const missing = await missingDictionaryTables(conn, d.table, source.layout);
    plans.push({ csweb: d, total: missing.length === 0 ? await countCswebCases(conn, source.layout, d.table, after, highest) : 0 });
  }
  const grandTotal = plans.reduce((a, p) => a + p.total, 0);
  let done = 0;
  opts.onProgress?.(0, grandTotal);

  const results: DictionaryImport[] = [];
  for (const { csweb } of plans) {
    if (opts.signal?.aborted) break;
    const result = await importOne(store, conn, csweb, {
      source: source.serverDeviceId,
      layout: source.layout,
      highest,
      zone,
      dryRun,
      emitEvents: opts.emitEvents === true,
      pageSize: limits.cswebPageCases,
      ...(opts.filesDir !== undefined ? { filesDir: opts.filesDir } : {}),
      entries,
      signal: opts.signal,
      onCases: (n) => {
        done += n;
        opts.onProgress?.(done, grandTotal);
      },
    });
    results.push(result);
  }
  if (!dryRun && !opts.signal?.aborted) {
    // The counter continues above CSWeb's highest revision, even one that wrote no case (docs/migrating-from-csweb.md#revisions-and-tablets).
    if (highest > 0) await store.transaction((tx) => keepRevision(tx, highest, 0, 'csweb'));
  }
  const messages =
    !source.layout.messages || opts.signal?.aborted
      ? undefined
      : await importCswebMessages(store, conn, source.serverDeviceId, { dryRun, signal: opts.signal });
  for (const e of messages?.report ?? []) entries.add(e);
  const files =
    opts.filesDir === undefined || opts.signal?.aborted ? undefined : await importCswebFiles(store, conn, opts.filesDir, { dryRun });
  for (const e of files?.report ?? []) entries.add(e);
  const total = { read: 0, written: 0, unchanged: 0, failed: 0 };
  for (const r of results) for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += r[k];
  return {
    source: { database, serverDeviceId: source.serverDeviceId, highestRevision: highest },
    dryRun,
    dictionaries: results,
    total,
    schemaVersion: source.schemaVersion,
    ...(users ? { users: { added: users.added, updated: users.updated, unchanged: users.unchanged, skipped: users.skipped } } : {}),
    ...(users?.rights81 ? { rights81: users.rights81 } : {}),
    ...(messages ? { messages: { imported: messages.imported } } : {}),
    ...(files ? { files: { files: files.files, apps: files.apps, binaryItems: files.binaryItems, appUpdates: files.appUpdates } } : {}),
    errors: entries.errors,
    entries: entries.list,
    entriesNotListed: entries.notListed,
    ...(opts.signal?.aborted ? { stopped: true as const } : {}),
  };
}

/**
 * The model with CSWeb 8.1's syncable name (its `name` column) when the file itself sets none, so
 * the name 8.1 tablets use in their URLs keeps working (docs/sync.md#syncable-names).
 */
function withSyncName(model: Dictionary, csweb: CswebDictionary): Pick<Dictionary, 'name' | 'syncableName'> {
  return { name: model.name, syncableName: model.syncableName ?? csweb.syncName };
}

/** The dictionaries asked for (any case, by their name or 8.1 syncable name), or all; an unknown name is NOT_FOUND listing those there are. */
export function selectDictionaries(all: CswebDictionary[], names: string[] | undefined): CswebDictionary[] {
  if (names === undefined || names.length === 0) return all;
  const byName = new Map(all.flatMap((d) => [[d.table.toUpperCase(), d] as const, [d.name.toUpperCase(), d] as const]));
  const unknown = names.filter((n) => !byName.has(n.toUpperCase()));
  if (unknown.length > 0) {
    throw new AppError(
      'NOT_FOUND',
      `the CSWeb database has no dictionary ${unknown.join(', ')}; it has ${all.map((d) => d.name).join(', ') || 'none'}`,
      {
        dictionary: unknown[0]!,
      },
    );
  }
  return [...new Set(names.map((n) => byName.get(n.toUpperCase())!))];
}

async function importOne(store: Store, conn: Connection, csweb: CswebDictionary, ctx: CasesContext): Promise<DictionaryImport> {
  const result: DictionaryImport = {
    name: csweb.name,
    label: '',
    dictionary: 'skipped',
    read: 0,
    written: 0,
    unchanged: 0,
    failed: 0,
    textForm: 0,
    cursor: { revision: 0, guid: '' },
  };
  const fail = (code: string, message: string) => ctx.entries.add({ level: 'error', code, dictionary: csweb.name, message });
  const missing = await missingDictionaryTables(conn, csweb.table, ctx.layout);
  if (missing.length > 0) {
    fail(
      'CSWEB_SCHEMA_UNKNOWN',
      `dictionary ${csweb.name} lacks the CSWeb tables or columns ${missing.join(', ')}; its cases were not imported`,
    );
    return result;
  }
  let model: Dictionary;
  try {
    model = parseDictionary(Buffer.from(csweb.content, 'utf8'), { file: csweb.name });
  } catch (err) {
    fail(
      'DICT_INVALID',
      `dictionary ${csweb.name} as CSWeb stored it cannot be read: ${toAppError(err).message}; its cases were not imported`,
    );
    return result;
  }
  const existing = await store.dictionaries.find(csweb.name);
  const taken = new Set((await store.dictionaries.list()).filter((d) => d.name !== csweb.name).map((d) => d.label.toLowerCase()));
  const label = existing?.label ?? mapLabel(csweb.label, csweb.name, taken);
  result.label = label;
  if (!existing && label !== csweb.label) {
    ctx.entries.add({
      level: 'warn',
      code: 'CSWEB_LABEL_MAPPED',
      dictionary: csweb.name,
      message: `CSWeb's label "${csweb.label}" is not a valid label (a table prefix: a letter, then letters, digits or _); the dictionary is labelled ${label}`,
    });
  }
  const source = Buffer.from(csweb.content, 'utf8');
  const stored = existing ? await store.dictionaries.source(csweb.name) : undefined;
  const changed = !existing || stored === undefined || !stored.equals(source);
  if (changed) {
    // A syncable name the stored file carries (a CSPro 8.1 JSON dictionary) goes with it; one the
    // upload would refuse is reported now, in a dry run too (docs/sync.md#syncable-names).
    try {
      await settleSyncName(store, withSyncName(model, csweb), existing);
    } catch (err) {
      const e = toAppError(err);
      if (e.code !== 'SYNC_NAME_TAKEN' && e.code !== 'SYNC_NAME_LOCKED') throw e;
      fail(e.code, `dictionary ${csweb.name} as CSWeb stored it: ${e.message}; its cases were not imported`);
      return result;
    }
  }
  result.dictionary = !existing ? 'created' : changed ? 'replaced' : 'unchanged';
  let dictionaryId = existing?.id ?? 0;
  if (changed && !ctx.dryRun) {
    const reply = await store.transaction(async (tx) => {
      const mark = await tx.webhookQueue.lastOutboxId();
      const r = await uploadDictionary(tx, {
        source,
        label,
        file: csweb.name,
        ...(csweb.syncName !== undefined ? { syncName: csweb.syncName } : {}),
      });
      if (!ctx.emitEvents) await tx.webhookQueue.discardCapturesAfter(mark);
      return r;
    });
    if (reply.breakout_rebuild) result.breakoutRebuild = reply.breakout_rebuild.message;
    dictionaryId = (await store.dictionaries.find(csweb.name))!.id;
  }
  const after = existing ? await readCursor(store, ctx.source, csweb.name, existing.id) : { revision: 0, guid: '' };
  result.cursor = after;
  // sds must not have written this dictionary itself since the last import: its revisions would
  // interleave with CSWeb's (docs/migrating-from-csweb.md#running-beside-csweb).
  const localMax = existing ? await store.cases.maxRevision(existing.id) : 0;
  if (localMax > after.revision) {
    fail(
      'CSWEB_LOCAL_CHANGES',
      `sds holds cases of ${csweb.name} at revision ${localMax}, written after the last import from CSWeb (revision ${after.revision}); ` +
        'its CSWeb cases were not imported. sds must not receive uploads of a dictionary while CSWeb is the field server',
    );
    return result;
  }
  await importDictionaryCases(store, conn, { name: csweb.name, table: csweb.table, id: dictionaryId, model }, after, result, ctx);
  return result;
}
