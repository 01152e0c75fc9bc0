import type { Store } from '../store/open-store.js';
import { envelope, isoMicros } from './envelope.js';
import type { EventKind } from './event-kinds.js';
import { eventsFromChange } from './events-from-change.js';
import { newMessageId } from './signing.js';

/**
 * Turns captured changes (the outbox) into deliveries, one per event and subscribed webhook, due
 * at `nowMs`. Each batch is one transaction that adds the deliveries and deletes the outbox rows
 * they came from, so a crash repeats a whole batch or none of it, and two dispatchers never
 * queue one change twice. A webhook gets only the changes made after it was created. Returns the
 * number of deliveries queued.
 */
export function fanOut(store: Store, nowMs: number, batch = 500): number {
  // Most passes find nothing: look before taking the write lock.
  if (!store.webhookQueue.hasOutbox()) return 0;
  let queued = 0;
  for (;;) {
    const { rows, added } = store.transaction(() => {
      const rows = store.webhookQueue.outbox(batch);
      const last = new Map<number, number>();
      const createdAt = new Date(nowMs).toISOString();
      let added = 0;
      for (const row of rows) {
        const subs = new Map<EventKind, { id: number; lastEventUs: number }[]>();
        const subscribers = (kind: EventKind) => {
          let s = subs.get(kind);
          if (!s) subs.set(kind, (s = store.webhooks.subscribers(kind, row.createdMs)));
          return s;
        };
        for (const ev of eventsFromChange(row, (k) => subscribers(k).length > 0)) {
          for (const w of subscribers(ev.event)) {
            const us = Math.max(row.createdMs * 1000, (last.get(w.id) ?? w.lastEventUs) + 1);
            last.set(w.id, us);
            store.webhookQueue.addDelivery({
              webhookId: w.id,
              event: ev.event,
              messageId: newMessageId(),
              body: envelope(ev.event, isoMicros(us), w.id, ev.data),
              state: 'pending',
              nextAttemptMs: nowMs,
              createdAt,
            });
            added += 1;
          }
        }
      }
      for (const [id, us] of last) store.webhooks.setLastEventUs(id, us);
      store.webhookQueue.deleteOutbox(rows.map((r) => r.id));
      return { rows: rows.length, added };
    });
    queued += added;
    if (rows < batch) return queued;
  }
}
