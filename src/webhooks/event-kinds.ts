/** The event kinds a webhook may subscribe to (docs/webhooks.md#events-and-payloads). */
export const EVENT_KINDS = ['case_uploaded', 'case_modified', 'case_verified', 'case_deleted', 'dictionary_uploaded'] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

/** Sent by the test operation to one webhook, whatever it subscribes to; never queued. */
export const TEST_EVENT = 'webhook_test';

export function isEventKind(s: string): s is EventKind {
  return (EVENT_KINDS as readonly string[]).includes(s);
}
