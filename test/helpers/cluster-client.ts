import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { deflateSync } from 'node:zlib';
import { addUser } from '../../src/core/auth/users.js';
import { uploadDictionary } from '../../src/core/dictionaries/dictionaries.js';
import type { Store } from '../../src/store/open-store.js';
import { USERS, type TestServer, type UserKey } from './http-server.js';
import { fixture } from './temp-home.js';

/** Seeds a cluster's store: the accounts of USERS and the Popstan dictionary; its name. */
export async function seedClusterStore(store: Store): Promise<string> {
  for (const u of Object.values(USERS)) await addUser(store, u.username, u.role, u.password);
  const file = fixture('popstan-census.json.dcf');
  return (await uploadDictionary(store, { source: readFileSync(file), label: 'popstan', file })).name;
}

/** Logs `user` in at `base`; the access token. */
export async function loginAt(base: string, user: UserKey): Promise<string> {
  const u = USERS[user];
  const r = await fetch(`${base}/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username: u.username, password: u.password }),
  });
  const body = (await r.json()) as { access_token?: string };
  if (r.status !== 200 || !body.access_token) throw new Error(`login ${user} at ${base}: ${r.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/** `call` of a TestServer against `base` with one token per user, for SyncDevice. */
export function callerAt(base: string): Pick<TestServer, 'call'> {
  const tokens = new Map<UserKey, string>();
  return {
    async call(user, path, init = {}) {
      const headers = new Headers(init.headers);
      if (user) {
        if (!tokens.has(user)) tokens.set(user, await loginAt(base, user));
        headers.set('authorization', `Bearer ${tokens.get(user)}`);
      }
      return fetch(`${base}${path}`, { ...init, headers });
    },
  };
}

/** An answer read whole, with the node nginx chose (X-Sds-Upstream, added by clusterSiteForTest). */
export interface RawAnswer {
  status: number;
  body: string;
  headers: Record<string, string | string[] | undefined>;
  /** A connection error instead of an answer. */
  error?: string;
}

/**
 * POSTs one sync upload chunk as the tablet sends it (zlib, the same headers on a retry), on a
 * connection of its own, so that nothing is reused between the first try and the retry.
 */
export function postUpload(base: string, token: string, dict: string, cases: unknown[], device: string): Promise<RawAnswer> {
  const body = deflateSync(Buffer.from(JSON.stringify(cases)));
  return new Promise((resolve) => {
    const req = request(
      `${base}/api/dictionaries/${dict}/cases`,
      {
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          'user-agent': 'CSPro sync client/8.0',
          accept: 'application/json',
          'x-csw-device': device,
          'content-type': 'application/json; charset=utf-8',
          'content-encoding': 'gzip',
          'content-length': String(body.length),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (b: Buffer) => chunks.push(b));
        res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString(), headers: res.headers }));
        res.on('error', (err) => resolve({ status: 0, body: '', headers: {}, error: err.message }));
      },
    );
    req.on('error', (err) => resolve({ status: 0, body: '', headers: {}, error: err.message }));
    req.end(body);
  });
}
