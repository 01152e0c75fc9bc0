/**
 * Where a CSWeb import stands, kept in the store's settings so a second run brings only what
 * changed and an interrupted one resumes (docs/migrating-from-csweb.md#running-beside-csweb):
 * the CSWeb server this home mirrors, and per dictionary the last (revision, guid) imported.
 */
import type { StoreScope } from '../../store/store-contract.js';
import { AppError } from '../../shared/errors.js';

const SOURCE = 'csweb_source';

/** A dictionary's resume point; `dictionaryId` ties it to the sds dictionary it was written to. */
interface StoredCursor {
  dictionaryId: number;
  revision: number;
  guid: string;
}

const cursorKey = (source: string, dictionary: string) => `csweb_cursor:${source}:${dictionary}`;

/** The resume point of a dictionary: the start when never imported, or when the dictionary was deleted and made again. */
export async function readCursor(
  store: StoreScope,
  source: string,
  dictionary: string,
  dictionaryId: number,
): Promise<{ revision: number; guid: string }> {
  const raw = await store.settings.get(cursorKey(source, dictionary));
  if (raw === undefined) return { revision: 0, guid: '' };
  const c = JSON.parse(raw) as StoredCursor;
  return c.dictionaryId === dictionaryId ? { revision: c.revision, guid: c.guid } : { revision: 0, guid: '' };
}

/** Saves a resume point; call in the transaction that writes the page it ends. */
export async function saveCursor(store: StoreScope, source: string, dictionary: string, cursor: StoredCursor): Promise<void> {
  await store.settings.set(cursorKey(source, dictionary), JSON.stringify(cursor));
}

/**
 * Ties the home to one CSWeb server: the first import records its device id and makes it sds's
 * own (so tablets see the same server in their clocks); another server is CSWEB_OTHER_SOURCE.
 * Returns whether sds's device id changed.
 */
export async function claimSource(store: StoreScope, serverDeviceId: string): Promise<{ replacedDeviceId?: string }> {
  await checkSource(store, serverDeviceId);
  const own = await store.settings.get('server_device_id');
  await store.settings.set(SOURCE, serverDeviceId);
  await store.settings.set('server_device_id', serverDeviceId);
  return own !== undefined && own !== serverDeviceId ? { replacedDeviceId: own } : {};
}

/** Checks, without writing, that the home may mirror this server (for --dry-run). */
export async function checkSource(store: StoreScope, serverDeviceId: string): Promise<void> {
  const known = await store.settings.get(SOURCE);
  if (known !== undefined && known !== serverDeviceId) {
    throw new AppError(
      'CSWEB_OTHER_SOURCE',
      `this home mirrors the CSWeb server with device id ${known}; the database given is the one of server ${serverDeviceId}`,
      { mirrored: known, given: serverDeviceId },
    );
  }
}
