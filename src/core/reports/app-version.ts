import type { Store } from '../../store/open-store.js';
import { csproVersionText } from '../../sync/client-version.js';

/** Devices whose noted version this process remembers, per store (a few bytes each). */
const MAX_REMEMBERED = 10000;
const remembered = new WeakMap<Store, Map<string, string>>();

/**
 * Notes the CSPro version a device synced with, from its User-Agent, for the reports' "last app
 * version" (docs/supervision.md#sync-history-and-reports). A version this process already noted
 * for the device costs nothing; otherwise it is read and written only when it changed, so a sync
 * adds no write in the usual case and no statement once the device is known. A device the store
 * does not know (its sync failed before it was recorded) and a client that is not CSPro are left
 * alone.
 */
export async function noteAppVersion(store: Store, device: string, userAgent: string | undefined): Promise<void> {
  const version = csproVersionText(userAgent);
  if (version === undefined) return;
  let known = remembered.get(store);
  if (!known) remembered.set(store, (known = new Map()));
  if (known.get(device) === version) return;
  const stored = await store.syncReports.appVersion(device);
  if (stored === undefined) return;
  if (stored !== version) await store.syncReports.setAppVersion(device, version);
  known.delete(device);
  known.set(device, version);
  // A Map iterates in insertion order: forget the device noted longest ago.
  if (known.size > MAX_REMEMBERED) known.delete(known.keys().next().value!);
}
