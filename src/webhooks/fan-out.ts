import type { Store } from '../store/open-store.js';
import { envelope, isoMicros } from './envelope.js';
import type { EventKind } from './event-kinds.js';
import { changeKinds, eventsFromChange } from './events-from-change.js';
import { newMessageId } from './signing.js';

/**
 * Turns captured changes (the outbox) into deliveries, one per event and subscribed webhook, due
 * at `nowMs`. Each batch is one transaction that adds the deliveries and deletes the outbox rows
 * they came from, so a crash repeats a whole batch or none of it, and two dispatchers never
 * queue one change twice. A webhook gets only the changes made after it was created. Returns the
 * number of deliveries queued.
 */
export async function fanOut(store: Store, nowMs: number, batch = 500): Promise<number> {
  // Most passes find nothing: look before taking the write lock.
  if (!(await store.webhookQueue.hasOutbox())) return 0;
  let queued = 0;
  for (;;) {
    const { rows, added } = await store.transaction(async (tx) => {
      const rows = await tx.webhookQueue.outbox(batch);
      const last = new Map<number, number>();
      const createdAt = new Date(nowMs).toISOString();
      let added = 0;
      for (const row of rows) {
        // The subscribers of each kind the change can give, read first: eventsFromChange asks synchronously.
        const subs = new Map<EventKind, { id: number; lastEventUs: number }[]>();
        for (const kind of changeKinds(row)) if (!subs.has(kind)) subs.set(kind, await tx.webhooks.subscribers(kind, row.createdMs));
        const subscribers = (kind: EventKind) => subs.get(kind) ?? [];
        for (const ev of eventsFromChange(row, (k) => subscribers(k).length > 0)) {
          for (const w of subscribers(ev.event)) {
            const us = Math.max(row.createdMs * 1000, (last.get(w.id) ?? w.lastEventUs) + 1);
            last.set(w.id, us);
            await tx.webhookQueue.addDelivery({
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
      for (const [id, us] of last) await tx.webhooks.setLastEventUs(id, us);
      await tx.webhookQueue.deleteOutbox(rows.map((r) => r.id));
      return { rows: rows.length, added };
    });
    queued += added;
    if (rows < batch) return queued;
  }
}
