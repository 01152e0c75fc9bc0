import type { Context } from 'hono';
import { isIP } from 'node:net';
import type { AppEnv } from './app-env.js';

/** `::ffff:1.2.3.4` (an IPv4 peer on a dual-stack socket) is the IPv4 address 1.2.3.4. */
function plain(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/**
 * The address of the client of a request, the key of the login throttle and of the root scripts'
 * rate limit. It is the socket's peer,
 * unless that peer is one of `trustedProxies`: then X-Forwarded-For is read from the right, past
 * the trusted proxies, to the first address no trusted proxy added. With no trusted proxy (the
 * default) the header is ignored: anyone can write it. 'unknown' without a socket (app.request()).
 */
export function clientAddress(c: Context<AppEnv>, trustedProxies: readonly string[]): string {
  const peer = c.env?.incoming?.socket?.remoteAddress;
  if (!peer) return 'unknown';
  let address = plain(peer);
  if (trustedProxies.length === 0 || !trustedProxies.includes(address)) return address;
  const hops = (c.req.header('x-forwarded-for') ?? '')
    .split(',')
    .map((s) => plain(s.trim()))
    .filter((s) => isIP(s) !== 0);
  while (hops.length > 0 && trustedProxies.includes(address)) address = hops.pop()!;
  return address;
}
