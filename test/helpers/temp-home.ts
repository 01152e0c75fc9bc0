import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveHome, type HomePaths } from '../../src/shared/home.js';
import { openStore, type Store } from '../../src/store/open-store.js';

/** A fresh home directory under the system temp dir; `cleanup` removes it. */
export function tempHome(): HomePaths & { cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), 'sds-test-'));
  return { ...resolveHome(root), cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** A fresh home with its store open. */
export function tempStore(): { store: Store; home: HomePaths; cleanup(): void } {
  const home = tempHome();
  const store = openStore(home);
  return {
    store,
    home,
    cleanup() {
      store.close();
      home.cleanup();
    },
  };
}

/** Path of a fixture file of the repository. */
export function fixture(name: string): string {
  return new URL(`../../fixtures/cspro/${name}`, import.meta.url).pathname;
}
