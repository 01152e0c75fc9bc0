import { createHmac, randomBytes } from 'node:crypto';

/** Prefix of the Standard Webhooks serialisation of a secret: `whsec_` + base64 of the key bytes. */
export const WHSEC_PREFIX = 'whsec_';

/**
 * `X-Service-Signature` value (docs/webhooks.md#verifying-a-delivery-receiver-side): `sha256=` +
 * hex HMAC-SHA256 of the body bytes, keyed with the secret's UTF-8 bytes.
 */
export function serviceSignature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`;
}

/**
 * The HMAC key of the Standard Webhooks signature. A `whsec_` secret is decoded as its spec says
 * (the base64 after the prefix is the key), so it can be given as is to the Standard Webhooks
 * libraries; any other secret is used as its own bytes (the libraries' `raw` format). Secrets are
 * printable ASCII (checked at creation), so "own bytes" is the same in UTF-8 and in Latin-1.
 */
function standardKey(secret: string): Buffer {
  return secret.startsWith(WHSEC_PREFIX) ? Buffer.from(secret.slice(WHSEC_PREFIX.length), 'base64') : Buffer.from(secret, 'utf8');
}

/** The three Standard Webhooks headers of one attempt; `timestampS` is the send time in Unix seconds. */
export function standardHeaders(secret: string, messageId: string, timestampS: number, body: string): Record<string, string> {
  const signature = createHmac('sha256', standardKey(secret)).update(`${messageId}.${timestampS}.${body}`).digest('base64');
  return { 'webhook-id': messageId, 'webhook-timestamp': String(timestampS), 'webhook-signature': `v1,${signature}` };
}

/** A new secret: 32 random bytes in the Standard Webhooks form. */
export function generateSecret(): string {
  return WHSEC_PREFIX + randomBytes(32).toString('base64');
}

/** A new message id (`webhook-id`): unique per event and webhook, the same on every retry. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}
