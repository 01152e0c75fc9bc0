import type { Store } from '../../store/open-store.js';
import type { CaseWrite } from '../../store/cases-repo.js';
import type { NamedSyncPage, SyncCaseRow, SyncHistoryRow, SyncPage, SyncRange } from '../../store/sync-repo.js';
import type { StoreScope } from '../../store/store-contract.js';
import { AppError } from '../../shared/errors.js';
import { planChunk, type ChunkPlan } from '../../sync/chunk-plan.js';
import type { DownloadRequest, UploadRequest } from '../../sync/headers.js';
import { wireCaseJson } from '../../sync/case-wire.js';
import { pageCasesJson, parsedPageCase } from '../../sync/page-case-wire.js';
import { v3CaseJson, v3CasesJson } from '../../sync/case-json-v3.js';
import type { SyncApiVersion } from '../../sync/client-version.js';
import {
  requireDictionary,
  requireDictionaryRow,
  uploadDictionary,
  type UploadReply as UploadDictionaryReply,
  MAX_LABEL_LENGTH,
} from '../dictionaries/index.js';
import { parseDictionary } from '../../cspro/dictionary/parse-dictionary.js';
import { type MergeOutcome, writeUpload, deleteCaseOf } from '../cases/index.js';
import { limitsOf } from '../home/index.js';
import { inflateWhole } from './inflate-body.js';
import { INLINE_CHECKER, type UploadChecker, type UploadChecks } from './upload-checker.js';
import { DeferredSmallBody } from './upload-body.js';
import type { MemoryLease } from '../../shared/memory-budget.js';
import { DownloadTally } from './download-tally.js';

/**
 * `GET /api/server`: this server's device id in vector clocks, and the sync API version the
 * asking client gets (docs/sync.md#client-versions).
 */
export async function serverInfo(store: Store, apiVersion: SyncApiVersion): Promise<{ deviceId: string; apiVersion: SyncApiVersion }> {
  return { deviceId: await store.settings.serverDeviceId(), apiVersion };
}

export interface DownloadChunk extends ChunkPlan {
  cases: SyncCaseRow[];
  /** The dictionary the chunk was read from (its id and name), for what is sent with the chunk. */
  dictionary: { id: number; name: string };
  /** The chunk's cases that hold binary items, when the store read that with the page (SyncPage). */
  withBinaryItems?: string[];
}

/**
 * One chunk of the incremental download, as CSWeb serves it (docs/sync.md): the cases changed
 * after the revision the device holds (and after the guid cursor within it), at most
 * `x-csw-case-range-count` of them and at most the page byte budget (docs/limits.md), up to a snapshot
 * taken first so a chunk never mixes in a half-visible later write, minus the device's own
 * uploads and outside its universe. A device naming a revision newer than any of this store's
 * is told to sync in full (412). The chunk that completes the range is recorded in the device's
 * sync history. `prefetched`: the page's read, started by readDownloadPage with the same request.
 */
export async function downloadCases(
  store: Store,
  dictionaryName: string,
  req: DownloadRequest,
  username: string,
  prefetched?: Promise<NamedSyncPage | undefined>,
): Promise<DownloadChunk> {
  const budget = limitsOf(store).pageBytes;
  const range = rangeOf(req);
  // A store that reads the dictionary and its page in one statement (PostgreSQL: one round trip
  // instead of a lookup and a read transaction of several) answers here; the same figures as the
  // read transaction below.
  const named = await (prefetched ?? readDownloadPage(store, dictionaryName, req));
  // The row is enough: a download never reads the model, whose JSON is costly to parse per page.
  // No dictionary of that name (null): requireDictionaryRow refuses it, naming close matches.
  const dict = named ? named.dictionary : await requireDictionaryRow(store, dictionaryName);
  const chunk = named
    ? await planDownloadChunk(store, dict, req, { ...range, upTo: named.page.snapshot }, named.page)
    : await store.readTransaction(async (tx) => {
        const snapshot = await tx.sync.maxRevision();
        refuseUnknownRevision(req.lastRevision, snapshot);
        const upTo = { ...range, upTo: snapshot };
        // Bounded by bytes as well as by count (docs/limits.md): a chunk cut short by the budget is a
        // 206 like a full one, and the client resumes after its last case.
        const { cases, seen } = await tx.sync.chunkWithin(dict.id, upTo, req.count, budget);
        // Counting is only needed when the read reached the count: a shorter range ends in it.
        const total = seen < req.count ? seen : await tx.sync.count(dict.id, dict.createdAt, upTo);
        return planDownloadChunk(tx, dict, req, upTo, { snapshot, cases, seen, total });
      });
  const tally = tallyOf(store);
  // The first page of a download has no cursor: nothing was sent before it.
  const earlier = req.startAfter === '' ? 0 : tally.take(dict.id, dict.createdAt, req.device, range);
  const last = chunk.cases.at(-1);
  if (chunk.status === 206 && last && earlier !== undefined) {
    const next = { ...range, after: { revision: last.revision, guid: last.guid } };
    tally.remember(dict.id, dict.createdAt, req.device, next, earlier + chunk.cases.length);
  }
  if (chunk.status === 200) {
    const cases =
      earlier !== undefined
        ? earlier + chunk.cases.length
        : await casesSincePreviousDownload(store, dict, req, range, chunk.chunkMaxRevision);
    // One write, atomic on its own on both stores: no transaction around it (on PostgreSQL that
    // would be two more round trips per completed download).
    await store.sync.record({
      dictionaryId: dict.id,
      device: req.device,
      username,
      direction: 'get',
      revision: chunk.chunkMaxRevision,
      universe: req.universe,
      cases,
    });
  }
  // A page never sends a write that a power cut could still take back (docs/durability.md#group-commit).
  await store.durable();
  return chunk;
}

const tallies = new WeakMap<Store, DownloadTally>();

function tallyOf(store: Store): DownloadTally {
  let t = tallies.get(store);
  if (!t) tallies.set(store, (t = new DownloadTally()));
  return t;
}

/**
 * The cases of a completed download whose earlier pages this process did not serve (another
 * node, a restart): those of its range since the revision the device's previous download ended
 * at, which is where an incremental download starts (docs/supervision.md#the-reports).
 */
async function casesSincePreviousDownload(
  store: Store,
  dict: { id: number; createdAt: string },
  req: DownloadRequest,
  range: Omit<SyncRange, 'upTo'>,
  snapshot: number,
): Promise<number> {
  const previous = await store.sync.lastOfDevice(req.device, dict.id, 'get');
  const from = { ...range, after: { revision: previous?.revision ?? 0, guid: '~' }, upTo: snapshot };
  return store.sync.count(dict.id, dict.createdAt, from);
}

/** The range a download request asks for: after its cursor, within its universe, without its exclusions. */
function rangeOf(req: DownloadRequest): Omit<SyncRange, 'upTo'> {
  return {
    // Without a cursor the client holds all of `lastRevision`: '~' sorts after every guid.
    after: { revision: req.lastRevision, guid: req.startAfter || '~' },
    universe: req.universe,
    excludeRevisions: req.excludeRevisions,
  };
}

/**
 * The read of a download page, on a store that reads the dictionary and its page in one
 * statement (undefined on one that does not: downloadCases reads it then). It changes nothing, so
 * it can start before the caller is known to hold the right, and be dropped if they do not
 * (docs/decisions.md, "A download page beside its account"); `downloadCases` takes its promise.
 */
export function readDownloadPage(store: Store, dictionaryName: string, req: DownloadRequest): Promise<NamedSyncPage | undefined> {
  return store.sync.snapshotPage(dictionaryName, rangeOf(req), req.count, limitsOf(store).pageBytes);
}

/** SYNC_REVISION_UNKNOWN (412) when the device names a revision newer than the snapshot. */
function refuseUnknownRevision(lastRevision: number, snapshot: number): void {
  if (lastRevision > snapshot) {
    throw new AppError('SYNC_REVISION_UNKNOWN', `revision ${lastRevision} is newer than this server's latest (${snapshot}); sync in full`, {
      revision: lastRevision,
      latest: snapshot,
    });
  }
}

/**
 * The chunk of a page read up to `range.upTo`: the total carried to the page the client asks for
 * next, and the chunk's status and revisions.
 */
async function planDownloadChunk(
  scope: StoreScope,
  dict: { id: number; name: string; createdAt: string },
  req: DownloadRequest,
  range: SyncRange,
  page: SyncPage,
): Promise<DownloadChunk> {
  refuseUnknownRevision(req.lastRevision, page.snapshot);
  const { cases, total } = page;
  const last = cases.at(-1);
  if (last && total > cases.length) {
    // The client asks next for the cases after the last one sent, within the same snapshot
    // unless something was written meanwhile: that range holds exactly the rest of this one.
    await scope.sync.carry(
      dict.id,
      dict.createdAt,
      { ...range, after: { revision: last.revision, guid: last.guid } },
      total - cases.length,
    );
  }
  return {
    cases,
    dictionary: { id: dict.id, name: dict.name },
    withBinaryItems: page.withBinaryItems,
    ...planChunk(
      cases.map((c) => c.revision),
      total,
      page.snapshot,
    ),
  };
}

export interface UploadReply {
  revision: number;
  cases: number;
  tally: Record<MergeOutcome, number>;
  /** Whether any of its cases were read or checked in a check thread (docs/production.md#check-threads). */
  threaded: boolean;
}

/**
 * A sync upload, its cases in batches as the body reader yields them: every case of the body is
 * read and checked first, by `opts.checker` (on this thread, or in the server's check threads,
 * which charge their copies to `opts.memory`), a malformed one refusing the whole request,
 * naming the case and the problem, and nothing is stored; then all are merged
 * and written in one transaction through the same path as import, at one new revision, which
 * is recorded in the device's sync history and returned. An upload always gets its own
 * revision, even when nothing changed, because the client excludes its own upload revisions from
 * its next download: a revision shared with another writer would hide that writer's cases.
 */
export async function uploadCases(
  store: Store,
  dictionaryName: string,
  batches: AsyncIterable<unknown[] | DeferredSmallBody>,
  req: UploadRequest,
  username: string,
  opts: { checker?: UploadChecker; memory?: MemoryLease } = {},
): Promise<UploadReply> {
  const checks = (opts.checker ?? INLINE_CHECKER).begin(opts.memory);
  try {
    return { ...(await uploadCasesChecked(store, dictionaryName, batches, req, username, checks)), threaded: checks.threaded };
  } finally {
    checks.end();
  }
}

async function uploadCasesChecked(
  store: Store,
  dictionaryName: string,
  batches: AsyncIterable<unknown[] | DeferredSmallBody>,
  req: UploadRequest,
  username: string,
  checks: UploadChecks,
): Promise<Omit<UploadReply, 'threaded'>> {
  const dict = await requireDictionary(store, dictionaryName);
  if (req.ifRevisionExists !== undefined && req.ifRevisionExists > (await store.sync.maxRevision())) {
    const last = await store.sync.lastOfDevice(req.device, dict.id);
    throw new AppError('SYNC_REVISION_UNKNOWN', `revision ${req.ifRevisionExists} is not known to this server; sync in full`, {
      revision: req.ifRevisionExists,
      last_sync: last ? lastSyncBody(last, dict.name) : {},
    });
  }
  const limits = limitsOf(store);
  const writes: CaseWrite[] = [];
  let index = 0;
  for await (const batch of batches) {
    if (batch instanceof DeferredSmallBody) {
      // Read and checked whole in a check thread, or, when not taken, read here as the next batches.
      const whole = await checks.checkBody(batch, dict.model, limits);
      if (whole) {
        batch.taken = true;
        for (const w of whole) writes.push(w);
        index += whole.length;
      }
      continue;
    }
    for (const w of await checks.check(batch, dict.model, index, limits)) writes.push(w);
    index += batch.length;
  }
  const tally: Record<MergeOutcome, number> = { inserted: 0, updated: 0, unchanged: 0, older: 0 };
  const revision = await writeUpload(
    store,
    dict.id,
    writes,
    () => store.settings.serverDeviceId(),
    { origin: `sync:${req.device}`, device: req.device, username },
    tally,
    limits,
  );
  return { revision, cases: writes.length, tally };
}

/** CSWeb's 412 body for an upload: the device's last sync of this dictionary. */
function lastSyncBody(h: SyncHistoryRow, dictionary: string): Record<string, unknown> {
  return { revisionNumber: h.revision, device: h.device, dictionary, universe: h.universe, direction: h.direction, dateTime: h.createdAt };
}

/** One case in the wire form of the client's sync API version: `level-1` as a JSON string (2), CSPro 8.1's case JSON (3). */
export async function getSyncCaseJson(store: Store, dictionaryName: string, guid: string, apiVersion: SyncApiVersion = 2): Promise<string> {
  const dict = await requireDictionary(store, dictionaryName);
  const c = await store.cases.get(dict.id, guid.toLowerCase());
  if (!c) throw new AppError('NOT_FOUND', `case ${guid} not found in dictionary ${dict.name}`, { dictionary: dict.name, case: guid });
  return apiVersion === 3 ? v3CaseJson(c, dict.model) : wireCaseJson(c);
}

/**
 * Deletes a case for a sync client: the same soft delete as `sds cases delete` (a tombstone at
 * a new revision, so devices and the incremental breakout see it), recorded as a `put` of the
 * device in the same transaction.
 */
export async function deleteSyncedCase(
  store: Store,
  dictionaryName: string,
  guid: string,
  device: string,
  username: string,
): Promise<{ revision: number }> {
  const dict = await requireDictionary(store, dictionaryName);
  const limits = limitsOf(store);
  return store.transaction(async (tx) => {
    const r = await deleteCaseOf(tx, dict, guid.toLowerCase(), limits);
    await tx.sync.record({ dictionaryId: dict.id, device, username, direction: 'put', revision: r.revision, cases: 1 });
    return { revision: r.revision };
  });
}

/** The newest sync history rows of a dictionary (device, direction, revision, time), newest first. */
export async function syncHistory(
  store: Store,
  dictionaryName: string,
  limit = 100,
): Promise<{ dictionary: string; history: SyncHistoryRow[] }> {
  const dict = await requireDictionary(store, dictionaryName);
  return { dictionary: dict.name, history: await store.sync.history(dict.id, limit) };
}

/**
 * Wire JSON of a download chunk's cases in the client's sync API version: the older form (2),
 * assembled from the stored text as it is (docs/sync.md#how-a-page-is-built), or CSPro 8.1's case
 * JSON (3), rebuilt from it against the dictionary (docs/sync.md#v3-case-json).
 */
export async function chunkJson(
  store: Store,
  dictionaryName: string,
  chunk: DownloadChunk,
  apiVersion: SyncApiVersion = 2,
): Promise<string> {
  if (apiVersion === 3) return v3CasesJson(chunk.cases.map(parsedPageCase), (await requireDictionary(store, dictionaryName)).model);
  return pageCasesJson(chunk.cases);
}

/** A label for a dictionary first uploaded without one: its name, lower case, without `_DICT`. */
function labelFor(name: string): string {
  const base = name
    .toLowerCase()
    .replace(/_dict$/, '')
    .replace(/[^a-z0-9_]/g, '_');
  const label = /^[a-z]/.test(base) ? base : `d_${base}`;
  return label.slice(0, MAX_LABEL_LENGTH);
}

/**
 * A dictionary uploaded as CSWeb takes it: the raw `.dcf` text as the body (CSPro 8.1 sends the
 * JSON form, zlib-compressed: inflated first, at most `maxBytes`; docs/sync.md#compressed-bodies),
 * creating it or replacing an existing one (which keeps its label). A new dictionary gets a label
 * derived from its name unless one is given. With `expectedName` (PUT to a named URL) a file
 * holding another dictionary is refused. The label is read and the file stored in one transaction.
 */
export async function uploadRawDictionary(
  store: Store,
  body: Buffer,
  opts: { expectedName?: string; label?: string; maxBytes?: number } = {},
): Promise<UploadDictionaryReply> {
  const source = inflateWhole(body, opts.maxBytes ?? Number.MAX_SAFE_INTEGER, 'the dictionary');
  const model = parseDictionary(source);
  // The URL may name the dictionary by its syncable name, as CSPro 8.1 does (docs/sync.md#syncable-names).
  if (opts.expectedName !== undefined && model.name !== opts.expectedName && model.syncableName !== opts.expectedName) {
    throw new AppError('USAGE', `the file holds dictionary ${model.name}, not ${opts.expectedName} named in the URL`, {
      dictionary: opts.expectedName,
    });
  }
  return store.transaction(async (tx) => {
    const existing = await tx.dictionaries.find(model.name);
    return uploadDictionary(tx, { source, label: opts.label ?? existing?.label ?? labelFor(model.name) });
  });
}
