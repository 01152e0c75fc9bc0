/**
 * How many cases a download of several pages has sent so far, carried in memory from each page
 * to the next one the device asks for, so that the history row of the page that completes it
 * records the whole download's cases (docs/supervision.md#the-reports) without a write per page.
 * A page served by another node, or after a restart, finds nothing here: the caller then counts
 * the download from the device's previous one (see downloadCases).
 */
import type { SyncRange } from '../../store/sync-repo.js';

/** Downloads in progress remembered at once (a few bytes each); the oldest are forgotten first. */
const MAX_DOWNLOADS = 1000;

/** The key of the page that follows: who asks, for which dictionary, from which cursor, with which filters. */
function pageKey(dictionaryId: number, scope: string, device: string, r: Omit<SyncRange, 'upTo'>): string {
  return [dictionaryId, scope, device, r.after.revision, r.after.guid, r.universe, r.excludeRevisions.join(',')].join('\u0000');
}

/** Cases sent by the earlier pages of downloads in progress, by the page each device asks for next. */
export class DownloadTally {
  private readonly sent = new Map<string, number>();

  /** The cases the earlier pages of the download that asks for `range` sent, once (the entry is taken). */
  take(dictionaryId: number, scope: string, device: string, range: Omit<SyncRange, 'upTo'>): number | undefined {
    const key = pageKey(dictionaryId, scope, device, range);
    const n = this.sent.get(key);
    if (n !== undefined) this.sent.delete(key);
    return n;
  }

  /** Remembers that the download's pages up to now sent `sent` cases; `next` is the range the device asks for next. */
  remember(dictionaryId: number, scope: string, device: string, next: Omit<SyncRange, 'upTo'>, sent: number): void {
    const key = pageKey(dictionaryId, scope, device, next);
    this.sent.delete(key);
    this.sent.set(key, sent);
    // A Map iterates in insertion order: drop the oldest downloads' entries.
    if (this.sent.size > MAX_DOWNLOADS) this.sent.delete(this.sent.keys().next().value!);
  }
}
