/**
 * Where the store's cases are written (docs/architecture.md#where-cases-are-written): every
 * write of a case row goes through `putCase` (or, for a sync upload written in one statement on
 * PostgreSQL, `writeUpload`), and every path that writes compares content with
 * `sameContent` (content.ts). The merge of sync uploads and imports is here; the tombstones of
 * delete.ts and the CSWeb import's "replace as it is" (replace.ts) call `putCase` too.
 */
import type { Store } from '../../store/open-store.js';
import type { StoreScope } from '../../store/store-contract.js';
import type { CaseAtRevision, CaseWrite } from '../../store/cases-repo.js';
import { nowIso } from '../../store/clock.js';
import { checkCaseFields, type CaseLimits } from '../../cspro/case/case-limits.js';
import { mergeCaseWrite, type MergeOutcome } from './merge.js';
import { binaryItemsToRecord, recordBinaryItemsOfCases } from './binary-items.js';
import { inStoredForm } from './stored-text.js';
import { newRevision } from './revisions.js';

/**
 * Writes one case row at `revision` (inserted, or replacing the stored one; its creation time and
 * position are kept). With `putCases`, the only call of the store's case upsert: callers decide what to write.
 * Call inside the store transaction of the write.
 */
export async function putCase(store: StoreScope, dictionaryId: number, write: CaseWrite, revision: number, now = nowIso()): Promise<void> {
  await store.cases.upsert(dictionaryId, write, revision, now);
}

/**
 * Writes a batch of case rows, each at its revision, as `putCase` one after the other would (a
 * guid given twice ends as its last write), in one call to the store: one statement per batch on
 * a store over the network (docs/decisions.md, "Queries written per database").
 */
async function putCases(store: StoreScope, dictionaryId: number, rows: readonly CaseAtRevision[], now = nowIso()): Promise<void> {
  if (rows.length > 0) await store.cases.upsertMany(dictionaryId, rows, now);
}

/**
 * The merge path: merges a batch with the stored cases (vector clocks, merge.ts) and writes what
 * changed at the revision `revision()` gives (asked only when something changes). Import and the
 * sync upload both write through here, inside their own `store.transaction`, so every case they
 * bring follows one rule; a case over a limit of docs/limits.md (`limits`, the store's: limitsOf)
 * throws CASE_TOO_LARGE and the transaction stores nothing. Text a UTF-8 column cannot hold is put in its stored form first
 * (stored-text.ts), so it compares equal to what was stored from it. Each written case's
 * binary-item rows are replaced with the descriptors it holds.
 */
export async function writeMergedCases(
  store: StoreScope,
  dictionaryId: number,
  cases: CaseWrite[],
  serverDeviceId: string,
  revision: () => number | Promise<number>,
  tally: Record<MergeOutcome, number>,
  limits: CaseLimits,
): Promise<void> {
  // The backstop of every path (docs/limits.md): callers check each case first to name it in
  // their own way; nothing over a limit reaches the store whoever calls.
  const guids = new Set<string>();
  for (const c of cases) {
    checkCaseFields(c, limits);
    guids.add(c.guid);
  }
  const existing = await store.cases.getMany(dictionaryId, [...guids]);
  const stored = new Set(existing.keys());
  // Only a guid that comes again later in the batch needs this write remembered.
  const repeats = guids.size < cases.length;
  const now = nowIso();
  const batch: CaseAtRevision[] = [];
  for (const c of cases) {
    const { outcome, write } = mergeCaseWrite(inStoredForm(c), existing.get(c.guid), serverDeviceId);
    tally[outcome] += 1;
    if (!write) continue;
    const r = await revision();
    batch.push({ write, revision: r });
    // A case repeated later in the same batch must compare against this version.
    if (repeats) existing.set(c.guid, { ...write, revision: r, createdAt: '', modifiedAt: '' });
  }
  // The batch in one call to the store, then its binary items: each case's rows now name the
  // descriptors of the version written (the items refer to their case, so cases come first).
  await putCases(store, dictionaryId, batch, now);
  await recordBinaryItemsOfCases(
    store,
    dictionaryId,
    batch.map((b) => b.write),
    now,
    (guid) => stored.has(guid),
  );
}

/** Cases merged per statement batch inside one upload transaction. */
const BATCH = 500;

/**
 * A sync upload's cases merged and written at one new revision, with its sync history row, all
 * or nothing; the revision. On a store that offers it (PostgreSQL: cases.readForUpload), an
 * upload of at most one batch, each guid once, is decided from a read made before any
 * transaction and written in one statement that first checks, under the case-write lock, that
 * nothing it read has changed (cases.writeUploadIfUnchanged); if something has, or on SQLite, it
 * is written in one transaction, batch after batch, through writeMergedCases as import is.
 * `serverDeviceId` is asked for only when the read did not bring the store's device id.
 * Either way every case follows the merge rule of writeMergedCases against the cases stored when
 * the revision is drawn.
 */
export async function writeUpload(
  store: Store,
  dictionaryId: number,
  cases: CaseWrite[],
  serverDeviceId: () => Promise<string>,
  history: { origin: string; device: string; username: string },
  tally: Record<MergeOutcome, number>,
  limits: CaseLimits,
): Promise<number> {
  const guids = new Set(cases.map((c) => c.guid));
  if (cases.length <= BATCH && guids.size === cases.length) {
    const read = await store.cases.readForUpload(dictionaryId, [...guids]);
    if (read) {
      const deviceId = read.serverDeviceId ?? (await serverDeviceId());
      const decided: Record<MergeOutcome, number> = { inserted: 0, updated: 0, unchanged: 0, older: 0 };
      const now = nowIso();
      const rows: CaseWrite[] = [];
      for (const c of cases) {
        checkCaseFields(c, limits);
        const { outcome, write } = mergeCaseWrite(inStoredForm(c), read.cases.get(c.guid), deviceId);
        decided[outcome] += 1;
        if (write) rows.push(write);
      }
      const revision = await store.cases.writeUploadIfUnchanged({
        dictionaryId,
        origin: history.origin,
        now,
        read: read.versions,
        rows,
        items: binaryItemsToRecord(rows, now, (guid) => read.cases.has(guid)),
        history: { device: history.device, username: history.username, cases: cases.length },
      });
      if (revision !== undefined) {
        for (const k of Object.keys(decided) as MergeOutcome[]) tally[k] += decided[k];
        return revision;
      }
    }
  }
  const deviceId = await serverDeviceId();
  return store.transaction(async (tx) => {
    const r = await newRevision(tx, dictionaryId, history.origin);
    for (let i = 0; i < cases.length; i += BATCH) {
      await writeMergedCases(tx, dictionaryId, cases.slice(i, i + BATCH), deviceId, () => r, tally, limits);
    }
    await tx.sync.record({
      dictionaryId,
      device: history.device,
      username: history.username,
      direction: 'put',
      revision: r,
      cases: cases.length,
    });
    return r;
  });
}
