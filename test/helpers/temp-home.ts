import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveHome, type HomePaths } from '../../src/shared/home.js';
import { initHome } from '../../src/core/home/index.js';
import { openStore, type Store } from '../../src/store/open-store.js';

/**
 * A fresh, empty directory under the system temp dir, with the paths of a home in it but no home
 * yet (no store): for tests of `sds init`, `sds quickstart` and HOME_NOT_FOUND. `cleanup` removes it.
 */
export function tempDir(): HomePaths & { cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), 'sds-test-'));
  return { ...resolveHome(root), cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/**
 * A fresh home under the system temp dir, made as `sds init` makes one (every command but
 * `init` and `quickstart` needs an existing home); `cleanup` removes it.
 */
export function tempHome(): HomePaths & { cleanup(): void } {
  const home = tempDir();
  initHome(home);
  return home;
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
