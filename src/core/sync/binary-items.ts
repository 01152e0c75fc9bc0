import type { Store } from '../../store/open-store.js';
import { AppError } from '../../shared/errors.js';
import { requireDictionaryRow } from '../dictionaries/index.js';
import { openBinaryContent, storeBinaryContent } from '../cases/index.js';
import { cssyncHead, cssyncItemHead } from '../../sync/cssync-container.js';
import type { DownloadChunk } from './sync.js';
import type { BinaryItemSink } from './upload-body.js';
import type { SyncApiVersion } from '../../sync/client-version.js';

/**
 * Where the binary items of a sync upload's `cssync` container go (docs/sync.md#binary-items):
 * each content is stored under its signature as it streams in, its md5 checked
 * (BINARY_ITEM_SIGNATURE_MISMATCH) and its size bounded (`binary_item_bytes`, docs/limits.md),
 * before any case of the upload is written.
 */
export function binaryItemSink(store: Store, dictionaryName: string): BinaryItemSink {
  let name: string | undefined;
  return async (header, content) => {
    name ??= (await requireDictionaryRow(store, dictionaryName)).name;
    await storeBinaryContent(store, name, header.signature, content);
  };
}

/** A binary item of a download chunk whose content this server holds. */
interface ChunkItem {
  header: Record<string, unknown>;
  size: number;
  open: () => AsyncIterable<Buffer>;
}

/**
 * The binary items of a download chunk's cases whose content is stored, each signature once
 * (docs/sync.md#binary-items). Every item of the chunk is sent, whether or not the device had it
 * (docs/decisions.md, "Binary items in sync downloads"); an item whose content is not stored
 * is left out and its case goes with the descriptor alone. Each item's header names its case as
 * the client's version does: `{caseid, signature, length}` (2), `{uuid, signature}` (3).
 */
export async function chunkBinaryItems(store: Store, chunk: DownloadChunk, apiVersion: SyncApiVersion = 2): Promise<ChunkItem[]> {
  if (chunk.cases.length === 0) return [];
  // The dictionary the chunk was read from: no second read of its row.
  const dict = chunk.dictionary;
  // Read with the page when the store could (PostgreSQL): a page without binary items asks nothing more.
  const holding = chunk.withBinaryItems ?? chunk.cases.map((c) => c.guid);
  if (holding.length === 0) return [];
  const rows = await store.binaryItems.forCases(dict.id, holding);
  const out: ChunkItem[] = [];
  const seen = new Set<string>();
  for (const c of chunk.cases) {
    for (const r of rows.get(c.guid) ?? []) {
      if (seen.has(r.signature)) continue;
      const content = await openBinaryContent(store, dict.name, r.signature);
      if (!content) continue;
      seen.add(r.signature);
      const header =
        apiVersion === 3 ? { uuid: c.guid, signature: r.signature } : { caseid: c.guid, signature: r.signature, length: content.size };
      out.push({ header, size: content.size, open: content.open });
    }
  }
  return out;
}

/** A download chunk in the `cssync` container: the case JSON, then each item's content streamed from its file. */
export async function* chunkContainer(casesJson: string, items: readonly ChunkItem[]): AsyncGenerator<Buffer> {
  const json = Buffer.from(casesJson, 'utf8');
  yield cssyncHead(json.length);
  yield json;
  for (const item of items) {
    yield cssyncItemHead(item.header, item.size);
    let sent = 0;
    for await (const part of item.open()) {
      sent += part.length;
      yield part;
    }
    // The length is promised before the bytes: a file changed in between would corrupt the body.
    if (sent !== item.size) {
      const signature = String(item.header.signature);
      throw new AppError(
        'BINARY_ITEM_CONTENT_CHANGED',
        `binary item ${signature}: its content file had ${item.size} bytes when the download began and gave ${sent} (docs/sync.md#binary-items)`,
        { signature },
      );
    }
  }
}
