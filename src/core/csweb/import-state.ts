/**
 * Where a CSWeb import stands, kept in the store's settings so a second run brings only what
 * changed and an interrupted one resumes (docs/migrating-from-csweb.md#running-beside-csweb):
 * the CSWeb server this home mirrors, and per dictionary the last (revision, guid) imported.
 */
import type { Store } from '../../store/open-store.js';
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
export function readCursor(store: Store, source: string, dictionary: string, dictionaryId: number): { revision: number; guid: string } {
  const raw = store.settings.get(cursorKey(source, dictionary));
  if (raw === undefined) return { revision: 0, guid: '' };
  const c = JSON.parse(raw) as StoredCursor;
  return c.dictionaryId === dictionaryId ? { revision: c.revision, guid: c.guid } : { revision: 0, guid: '' };
}

/** Saves a resume point; call in the transaction that writes the page it ends. */
export function saveCursor(store: Store, source: string, dictionary: string, cursor: StoredCursor): void {
  store.settings.set(cursorKey(source, dictionary), JSON.stringify(cursor));
}

/**
 * Ties the home to one CSWeb server: the first import records its device id and makes it sds's
 * own (so tablets see the same server in their clocks); another server is CSWEB_OTHER_SOURCE.
 * Returns whether sds's device id changed.
 */
export function claimSource(store: Store, serverDeviceId: string): { replacedDeviceId?: string } {
  checkSource(store, serverDeviceId);
  const own = store.settings.get('server_device_id');
  store.settings.set(SOURCE, serverDeviceId);
  store.settings.set('server_device_id', serverDeviceId);
  return own !== undefined && own !== serverDeviceId ? { replacedDeviceId: own } : {};
}

/** Checks, without writing, that the home may mirror this server (for --dry-run). */
export function checkSource(store: Store, serverDeviceId: string): void {
  const known = store.settings.get(SOURCE);
  if (known !== undefined && known !== serverDeviceId) {
    throw new AppError(
      'CSWEB_OTHER_SOURCE',
      `this home mirrors the CSWeb server with device id ${known}; the database given is the one of server ${serverDeviceId}`,
      { mirrored: known, given: serverDeviceId },
    );
  }
}
