// The floor of a sync upload on this machine: the least any server storing these cases must do,
// timed in this process on the same request bodies. Per body: inflate it, JSON.parse it, parse
// each case's `level-1` string (the wire puts JSON inside a JSON string; a server that checks
// cases against the dictionary cannot skip it), and insert the rows into a store of sds's own
// schema (the case table, its three indexes and triggers) in one transaction per body, with
// checkpoints in the background as `sds serve` runs them. No HTTP, no checks against the
// dictionary, no merge by vector clock, no canonical encoding: sds's upload does all of these
// on top, so its time over this floor is what those cost.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { shipped } from './shipped.js';

type HomeModule = typeof import('../src/shared/home.js');
type InitModule = typeof import('../src/core/home/init.js');
type StoreModule = typeof import('../src/store/open-store.js');
type DictionariesModule = typeof import('../src/core/dictionaries/dictionaries.js');

interface WireCase {
  id: string;
  caseids: string;
  label?: string;
  'level-1': string;
  clock: unknown[];
}

/** Seconds to store `bodies` (zlib JSON arrays of cases of `dictionary`, read from `dcf`) at the floor, in a home under `dir`. */
export async function syncFloorSeconds(bodies: Buffer[], dcf: string, dictionary: string, dir: string): Promise<number> {
  const { resolveHome } = await shipped<HomeModule>('shared/home.js');
  const { initHome } = await shipped<InitModule>('core/home/init.js');
  const { openStore } = await shipped<StoreModule>('store/open-store.js');
  const { uploadDictionary, requireDictionary } = await shipped<DictionariesModule>('core/dictionaries/dictionaries.js');
  const home = resolveHome(join(dir, 'floor-home'));
  await initHome(home);
  const store = await openStore(home);
  // The floor writes through the connection itself, below the store's contract.
  const { db } = store as unknown as { db: import('better-sqlite3').Database };
  try {
    store.checkpointInBackground();
    await uploadDictionary(store, { source: readFileSync(dcf), label: 'floor' });
    const dict = await requireDictionary(store, dictionary);
    const insert = db.prepare(
      // As the store's own insert: the next position of the dictionary (migration 0020).
      `INSERT INTO cases (dictionary_id, guid, case_key, label, data, verified, deleted, revision, clock, partial_save, notes, created_at, modified_at, position)
       VALUES (?, ?, ?, ?, ?, 0, 0, ?, ?, NULL, '[]', ?, ?, (SELECT coalesce(max(position), 0) + 1 FROM cases WHERE dictionary_id = ?))`,
    );
    const revision = db.prepare("INSERT INTO revisions (dictionary_id, origin, created_at) VALUES (?, 'floor', ?)");
    const t0 = performance.now();
    for (const body of bodies) {
      const cases = JSON.parse(inflateSync(body).toString('utf8')) as WireCase[];
      const now = new Date().toISOString();
      db.transaction(() => {
        const r = Number(revision.run(dict.id, now).lastInsertRowid);
        for (const c of cases) {
          JSON.parse(c['level-1']);
          insert.run(dict.id, c.id, c.caseids, c.label ?? '', c['level-1'], r, JSON.stringify(c.clock), now, now, dict.id);
        }
      }).immediate();
    }
    return (performance.now() - t0) / 1000;
  } finally {
    await store.close();
  }
}
