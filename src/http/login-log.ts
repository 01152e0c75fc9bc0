import type { LoginEvent } from '../core/auth/index.js';
import { escapeLogText } from '../shared/log-escape.js';

/**
 * The server-log line of a failed or throttled login, or of a re-hash: time, kind, grant, user name (JSON-quoted,
 * and the control characters JSON leaves raw escaped, so a crafted name cannot forge log lines:
 * docs/logs.md#control-characters), client address, and the reason. Never the password or a token.
 */
export function loginEventLine(e: LoginEvent): string {
  const user = e.username === null ? '-' : escapeLogText(JSON.stringify(e.username));
  const tail = e.kind === 'throttled' ? `retry_after=${e.retryAfterSeconds}` : `reason=${JSON.stringify(e.reason)}`;
  return `${new Date(e.at).toISOString()} auth login-${e.kind} grant=${e.grant} user=${user} address=${e.address} ${tail}`;
}
