/**
 * A store's files as tests look at them, on either store (docs/architecture.md#the-file-store-contract):
 * through the file store, not the home's folders, so the same test reads the bytes a SQLite store
 * keeps in `files/` and those a PostgreSQL store keeps in its blob tables.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { putFileInStore, type FileArea } from '../../src/store/file-store-contract.js';
import type { Store } from '../../src/store/open-store.js';
import { PostgresStore } from '../../src/store/postgresql/pg-store.js';
import { partWriter } from '../../src/store/file-store/local/part-name.js';

/** The bytes of the version in place under a name, or undefined when there is none. */
export async function storedBytes(store: Store, area: FileArea, name: string): Promise<Buffer | undefined> {
  const snap = await store.fileStore.open(area, name);
  if (snap === undefined || snap === 'directory') return undefined;
  const parts: Buffer[] = [];
  for await (const p of snap.stream()) parts.push(p as Buffer);
  return Buffer.concat(parts);
}

/** The names directly under a folder of an area (files and folders), sorted; [] when it is no folder. */
export async function storedNames(store: Store, area: FileArea, folder = ''): Promise<string[]> {
  return ((await store.fileStore.list(area, folder)) ?? []).map((e) => e.name).sort();
}

/**
 * Puts bytes under a name without metadata, as an operator copying a file into the media folder
 * by hand does on a SQLite store: the store has no row saying who wrote it.
 */
export async function putByHand(store: Store, area: FileArea, name: string, bytes: Buffer | string, mtimeMs?: number): Promise<void> {
  await putFileInStore(
    store.fileStore,
    area,
    name,
    (async function* () {
      yield Buffer.from(bytes);
    })(),
    { mtimeMs },
  );
}

/** Removes the bytes under a name and nothing else (its metadata row stays), as `rm` in the folder would. */
export async function removeByHand(store: Store, area: FileArea, name: string): Promise<void> {
  await store.fileStore.remove(area, name);
}

/**
 * Temporary uploads under way or left behind: the writer's hidden `.part` files under the home's
 * `files/` on a SQLite store, the blobs without a name on a PostgreSQL store.
 */
export async function pendingUploads(store: Store): Promise<number> {
  if (store instanceof PostgresStore) {
    return (await store.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM file_blobs WHERE sha256 IS NULL')).rows[0]!.n;
  }
  const count = (dir: string): number => {
    let n = 0;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return 0;
    }
    for (const e of entries) {
      if (e.isDirectory()) n += count(join(dir, e.name));
      else if (partWriter(e.name) !== undefined) n += 1;
    }
    return n;
  };
  return count(dirname(store.home.media));
}
