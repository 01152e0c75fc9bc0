/**
 * Binary case items (docs/sync.md#binary-items): their content, one per md5 and dictionary in
 * the file store's `binary-items` area (`files/binary-items/<dictionary, lower case>/` of a
 * local store), written atomically and durably like media files, and the rows saying which case
 * holds which (migration 0018).
 */
import { Readable } from 'node:stream';
import type { Store } from '../../store/open-store.js';
import type { StoreScope } from '../../store/store-contract.js';
import { putFileInStore } from '../../store/file-store-contract.js';
import type { CaseWrite } from '../../store/cases-repo.js';
import type { BinaryItemRow } from '../../store/binary-items-repo.js';
import { binaryRefsOf } from '../../cspro/case/binary-descriptor.js';
import { AppError } from '../../shared/errors.js';
import { limitsOf } from '../home/index.js';

const MD5 = /^[0-9a-f]{32}$/;

/** The name of a content in the file store's binary-items area: `<dictionary, lower case>/<md5>`. */
function nameOf(dictionaryName: string, signature: string): string {
  const sig = signature.toLowerCase();
  if (!MD5.test(sig)) throw new AppError('USAGE', `"${signature}" is not a binary item signature (32 hex digits of an md5)`, { signature });
  return `${dictionaryName.toLowerCase()}/${sig}`;
}

/** Whether the content of `signature` is stored for the dictionary. */
export async function hasBinaryContent(store: Store, dictionaryName: string, signature: string): Promise<boolean> {
  const st = await store.fileStore.stat('binary-items', nameOf(dictionaryName, signature));
  return st !== undefined && st !== 'directory';
}

/** The bytes of a stored content, opened when the stream is first read. */
async function* contentOf(store: Store, name: string): AsyncGenerator<Buffer> {
  const snapshot = await store.fileStore.open('binary-items', name);
  if (snapshot === undefined || snapshot === 'directory') throw new AppError('NOT_FOUND', `binary item ${name} is no longer stored`);
  yield* snapshot.stream();
}

/**
 * The stored content of `signature` (its size, and a stream opened only when read: a download
 * names every content of a chunk before it sends the first), or undefined when it is not stored.
 * A content is named by its md5, so the size read now is that of the bytes streamed later.
 */
export async function openBinaryContent(
  store: Store,
  dictionaryName: string,
  signature: string,
): Promise<{ size: number; open: () => Readable } | undefined> {
  const name = nameOf(dictionaryName, signature);
  const st = await store.fileStore.stat('binary-items', name);
  if (st === undefined || st === 'directory') return undefined;
  return { size: st.size, open: () => Readable.from(contentOf(store, name), { objectMode: false }) };
}

/**
 * Stores one binary item's content under its signature: refused with
 * BINARY_ITEM_SIGNATURE_MISMATCH when its md5 is not the signature, PAYLOAD_TOO_LARGE past the
 * limit `binary_item_bytes` (docs/limits.md). Content already stored is read and checked but not
 * written again: it is named by its md5, so it can only be the same bytes.
 */
export async function storeBinaryContent(
  store: Store,
  dictionaryName: string,
  signature: string,
  content: AsyncIterable<Buffer>,
): Promise<{ size: number; written: boolean }> {
  const name = nameOf(dictionaryName, signature);
  const sig = signature.toLowerCase();
  const file = `binary item ${sig}`;
  try {
    const { staged, written } = await putFileInStore(store.fileStore, 'binary-items', name, content, {
      file,
      maxBytes: limitsOf(store).binaryItemBytes,
      expectedMd5: sig,
      keepExisting: true,
    });
    return { size: staged.size, written };
  } catch (err) {
    if (err instanceof AppError && err.code === 'CHECKSUM_MISMATCH') {
      throw new AppError('BINARY_ITEM_SIGNATURE_MISMATCH', `the content sent for binary item ${sig} has another md5; nothing was stored`, {
        signature: sig,
      });
    }
    throw err;
  }
}

/**
 * Replaces the binary-item rows of a batch of cases just written with the descriptors each one's
 * data holds (the descriptor's length, and `now`), in one call to the store (one statement per
 * batch on a store over the network); a case written twice keeps the rows of its last write. With
 * `wasStored` (whether a guid had a stored case before the batch), a case that was new and holds
 * no descriptor is left out, since no row can name it (the rows belong to their case); a batch
 * of such cases, the usual upload, calls the store not at all. Call inside the transaction that
 * writes them.
 */
export async function recordBinaryItemsOfCases(
  store: StoreScope,
  dictionaryId: number,
  writes: readonly Pick<CaseWrite, 'guid' | 'data'>[],
  now: string,
  wasStored?: (guid: string) => boolean,
): Promise<void> {
  const cases = binaryItemsToRecord(writes, now, wasStored);
  if (cases.length > 0) await store.binaryItems.replaceForCases(dictionaryId, cases);
}

/** The rows recordBinaryItemsOfCases replaces, as replaceForCases takes them (pure). */
export function binaryItemsToRecord(
  writes: readonly Pick<CaseWrite, 'guid' | 'data'>[],
  now: string,
  wasStored?: (guid: string) => boolean,
): { guid: string; items: Omit<BinaryItemRow, 'caseGuid'>[] }[] {
  const last = new Map<string, Pick<CaseWrite, 'guid' | 'data'>>();
  for (const w of writes) last.set(w.guid, w);
  const cases: { guid: string; items: Omit<BinaryItemRow, 'caseGuid'>[] }[] = [];
  for (const w of last.values()) {
    const items = binaryItemRows(w, now);
    if (items.length > 0 || wasStored === undefined || wasStored(w.guid)) cases.push({ guid: w.guid, items });
  }
  return cases;
}

/** The binary-item rows of a case's data: its descriptors, sized and timed (pure). */
function binaryItemRows(write: Pick<CaseWrite, 'data'>, now: string): Omit<BinaryItemRow, 'caseGuid'>[] {
  return binaryRefsOf(write.data).map((r) => ({ signature: r.signature, size: r.length ?? null, modifiedTime: now }));
}
