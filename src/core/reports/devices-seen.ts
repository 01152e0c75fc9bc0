import type { Store } from '../../store/open-store.js';

/** The window of the devices-seen gauge (docs/metrics.md). */
const DEVICES_SEEN_WINDOW_MS = 24 * 3600 * 1000;

/**
 * Per dictionary, how many distinct devices synced it in the 24 hours before `nowMs` (0 for a
 * dictionary none synced): `sds_sync_devices_seen_24h`, counted in the store by one grouped read.
 */
export async function devicesSeen(store: Store, nowMs: number): Promise<Record<string, number>> {
  const since = new Date(nowMs - DEVICES_SEEN_WINDOW_MS).toISOString();
  const out: Record<string, number> = {};
  for (const r of await store.syncReports.devicesSeenSince(since)) out[r.dictionary] = r.devices;
  return out;
}
