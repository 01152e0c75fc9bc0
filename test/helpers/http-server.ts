import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { addUser } from '../../src/core/auth/users.js';
import { uploadDictionary } from '../../src/core/dictionaries/dictionaries.js';
import { importCases } from '../../src/core/cases/import/import-cases.js';
import { putFile } from '../../src/core/files/files.js';
import { startServer, type RunningServer } from '../../src/http/serve.js';
import type { HttpConfig } from '../../src/http/config.js';
import type { Store } from '../../src/store/open-store.js';
import { fixture, tempStore } from './temp-home.js';

/** Accounts created in every test server, one per role plus a disabled one. */
export const USERS = {
  admin: { username: 'admin', password: 'admin-password-1', role: 'Administrator' },
  api: { username: 'integration', password: 'api-password-12', role: 'API' },
  standard: { username: 'interviewer', password: 'standard-pass-1', role: 'Standard User' },
  disabled: { username: 'gone', password: 'disabled-pass-1', role: 'API' },
} as const;

export type UserKey = keyof typeof USERS;

export interface TestServer {
  base: string;
  store: Store;
  server: RunningServer;
  /** Log lines the server wrote. */
  logs: string[];
  /** Moves the injected clock forward. */
  advance(ms: number): void;
  /** Password grant as a form; returns the parsed token response (fails the test otherwise). */
  login(user: UserKey): Promise<{ access_token: string; refresh_token: string; token_type: string; expires_in: number }>;
  /** `fetch` against the server with the access token of `user` (none with null). */
  call(user: UserKey | null, path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Starts the real server (serve.ts) on 127.0.0.1, port 0, over a fresh temp store holding the
 * users above. `seed` adds dictionaries, cases and files before the server starts.
 */
export async function startTestServer(
  opts: { config?: Partial<HttpConfig>; seed?: (store: Store) => Promise<void> | void; checkThreads?: number } = {},
): Promise<TestServer> {
  const t = await tempStore();
  let now = Date.UTC(2025, 0, 15, 9, 0, 0);
  const logs: string[] = [];
  for (const u of Object.values(USERS)) await addUser(t.store, u.username, u.role, u.password);
  await t.store.users.update(USERS.disabled.username, { disabled: true });
  await opts.seed?.(t.store);
  const server = await startServer({
    store: t.store,
    host: '127.0.0.1',
    port: 0,
    clock: () => now,
    config: { log: (l) => logs.push(l), env: {}, ...opts.config },
    graceMs: 2000,
    checkThreads: opts.checkThreads,
  });
  const tokens = new Map<UserKey, string>();
  const ts: TestServer = {
    base: server.url,
    store: t.store,
    server,
    logs,
    advance(ms) {
      now += ms;
    },
    async login(user) {
      const u = USERS[user];
      const r = await fetch(`${server.url}/api/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'password', username: u.username, password: u.password }),
      });
      const body = (await r.json()) as Awaited<ReturnType<TestServer['login']>>;
      if (r.status !== 200) throw new Error(`login ${user}: ${r.status} ${JSON.stringify(body)}`);
      return body;
    },
    async call(user, path, init = {}) {
      const headers = new Headers(init.headers);
      if (user) {
        if (!tokens.has(user)) tokens.set(user, (await ts.login(user)).access_token);
        headers.set('authorization', `Bearer ${tokens.get(user)}`);
      }
      return fetch(`${server.url}${path}`, { ...init, headers });
    },
    async close() {
      await server.close();
      await t.cleanup();
    },
  };
  return ts;
}

/** Seeds the Popstan census dictionary (label popstan) with its cases from the fixtures. */
export async function seedPopstan(store: Store): Promise<string> {
  const file = fixture('popstan-census.json.dcf');
  const up = await uploadDictionary(store, { source: readFileSync(file), label: 'popstan', file });
  await importCases(store, up.name, [fixture('popstan-census.dat')]);
  return up.name;
}

/** Seeds a dictionary without cases (deletable). */
export async function seedEmptyDictionary(store: Store): Promise<string> {
  const file = fixture('simple-capi.dcf');
  return (await uploadDictionary(store, { source: readFileSync(file), label: 'simple', file })).name;
}

/** Seeds a media file `photos/house 1.jpg` with known bytes. */
export async function seedMedia(store: Store): Promise<Buffer> {
  const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5]);
  await putFile(store, 'photos/house 1.jpg', Readable.from([bytes]));
  return bytes;
}
