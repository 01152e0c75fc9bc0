import type { Store } from '../../store/open-store.js';
import { csproVersionText } from '../../sync/client-version.js';

/**
 * Notes the CSPro version a device synced with, from its User-Agent, for the reports' "last app
 * version" (docs/supervision.md#sync-history-and-reports). Read first and written only when it
 * changed, so a sync adds no write in the usual case; a device the store does not know yet (its
 * sync failed before it was recorded) and a client that is not CSPro are left alone.
 */
export async function noteAppVersion(store: Store, device: string, userAgent: string | undefined): Promise<void> {
  const version = csproVersionText(userAgent);
  if (version === undefined) return;
  const known = await store.syncReports.appVersion(device);
  if (known === undefined || known === version) return;
  await store.syncReports.setAppVersion(device, version);
}
