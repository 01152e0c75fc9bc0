import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Database from 'better-sqlite3';
import { addUser } from '../../src/core/auth/users.js';
import { uploadDictionary } from '../../src/core/dictionaries/dictionaries.js';
import { importCases } from '../../src/core/cases/import/import-cases.js';
import { putFile } from '../../src/core/files/files.js';
import { openStore } from '../../src/store/open-store.js';
import { initHome } from '../../src/core/home/index.js';
import { resolveHome } from '../../src/shared/home.js';
import { storeSetting } from '../../src/store/store-setting.js';
import { USERS } from './http-server.js';
import { levelFromLines } from './sync-client.js';
import { fixture, storeSql, withStore } from './temp-home.js';
import type { FuzzWorld } from './fuzz-requests.js';

/** Environment of every fuzzed `sds serve`: a fixed signing key so tokens outlive a restart, and the root scripts' tokens. */
export const FUZZ_ENV = {
  SDS_JWT_SECRET: 'fuzz-signing-key-0123456789-abcdefghijklmnopqrstuvwxyz',
  BREAKOUT_WEBHOOK_TOKEN: 'fuzz-status-token-0123456789',
  SURVEY_WEBHOOK_TOKEN: 'fuzz-webhook-token-0123456789',
};

/** The Popstan cases' text lines, grouped by case. */
function popstanGroups(): string[][] {
  const lines = readFileSync(fixture('popstan-census.dat'), 'utf8')
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .filter((l) => l.length > 0);
  const groups: string[][] = [];
  let key = '';
  for (const line of lines) {
    if (line.slice(1, 19) !== key) groups.push([]);
    key = line.slice(1, 19);
    groups.at(-1)!.push(line);
  }
  return groups;
}

/**
 * Makes and fills a home for fuzzing: one account per role (USERS), the Popstan dictionary with its first
 * `cases` cases, an empty SIMPLECAPI dictionary, and media and sync files. The store is closed
 * again so a `sds serve` child can open it.
 */
export async function seedFuzzHome(root: string, cases = 200): Promise<Omit<FuzzWorld, 'tokens' | 'caseIds'>> {
  const home = resolveHome(root);
  await initHome(home);
  const store = await openStore(home);
  try {
    for (const u of Object.values(USERS)) await addUser(store, u.username, u.role, u.password);
    await store.users.update(USERS.disabled.username, { disabled: true });
    const dcfFile = fixture('popstan-census.json.dcf');
    const dcf = readFileSync(dcfFile);
    const popstan = (await uploadDictionary(store, { source: dcf, label: 'popstan', file: dcfFile })).name;
    const groups = popstanGroups();
    const dat = join(root, 'seed.dat');
    writeFileSync(dat, groups.slice(0, cases).flat().join('\n') + '\n');
    await importCases(store, popstan, [dat]);
    const simple = (
      await uploadDictionary(store, {
        source: readFileSync(fixture('simple-capi.dcf')),
        label: 'simple',
        file: fixture('simple-capi.dcf'),
      })
    ).name;
    const files = ['photos/house 1.jpg', 'media/photo.jpg', 'docs/readme.txt'];
    for (const f of files) await putFile(store, f, Readable.from([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5])]));
    const g = groups[0]!;
    return {
      statusToken: FUZZ_ENV.BREAKOUT_WEBHOOK_TOKEN,
      webhookToken: FUZZ_ENV.SURVEY_WEBHOOK_TOKEN,
      dictionaries: [popstan, simple, 'NO_SUCH_DICT'],
      files,
      dcf,
      sampleCase: { caseids: g[0]!.slice(1, 19), level: levelFromLines(g) },
    };
  } finally {
    await store.close();
  }
}

/** Password grant for `user` against a running server; throws with the reply otherwise. */
export async function tokenOf(base: string, user: keyof typeof USERS): Promise<string> {
  const u = USERS[user];
  const r = await fetch(`${base}/api/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', username: u.username, password: u.password }),
  });
  const body = (await r.json()) as { access_token?: string };
  if (r.status !== 200 || !body.access_token) throw new Error(`login ${user}: ${r.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

/**
 * The integrity check of the home's store: 'ok', or what was found. SQLite: `PRAGMA
 * integrity_check` of the file. PostgreSQL: amcheck's check of every B-tree index of the store
 * against its table (the extension is made in the test database), and the case counts the
 * triggers keep against the cases.
 */
export async function integrityCheck(root: string): Promise<string> {
  const home = resolveHome(root);
  if (storeSetting(home).kind === 'postgresql') {
    return withStore(home, async (store) => {
      const found: string[] = [];
      await storeSql(store, 'CREATE EXTENSION IF NOT EXISTS amcheck');
      const indexes = await storeSql(
        store,
        `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
         WHERE a.amname = 'btree' AND c.relnamespace = 'public'::regnamespace ORDER BY 1`,
      );
      for (const { name } of indexes) {
        try {
          await storeSql(store, 'SELECT bt_index_check(CAST(? AS regclass), true)', [name]);
        } catch (err) {
          found.push(`${String(name)}: ${(err as Error).message}`);
        }
      }
      const counts = await storeSql(
        store,
        `SELECT d.id FROM dictionaries d LEFT JOIN case_counts cc ON cc.dictionary_id = d.id
         WHERE coalesce(cc.total, 0) <> (SELECT count(*) FROM cases c WHERE c.dictionary_id = d.id)`,
      );
      for (const { id } of counts) found.push(`case_counts of dictionary ${String(id)} differs from its cases`);
      return found.length === 0 ? 'ok' : found.join('; ');
    });
  }
  const db = new Database(home.db, { readonly: true });
  try {
    return (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check).join('; ');
  } finally {
    db.close();
  }
}
