/**
 * The body of a delivery (docs/webhooks.md#events-and-payloads): `{event, timestamp, webhook_id, data}`, serialised once and
 * stored, so every attempt sends, and signs, the same bytes.
 */
export function envelope(event: string, timestamp: string, webhookId: number, data: unknown): string {
  return JSON.stringify({ event, timestamp, webhook_id: webhookId, data });
}

/** ISO 8601 UTC with microseconds, from epoch microseconds: `2025-01-15T09:00:00.123456Z`. */
export function isoMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  return new Date(ms).toISOString().replace(/Z$/, `${String(us % 1000).padStart(3, '0')}Z`);
}
