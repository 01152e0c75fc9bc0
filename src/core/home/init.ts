import { existsSync } from 'node:fs';
import type { HomePaths } from '../../shared/home.js';
import { openStore } from '../../store/open-store.js';

export interface InitReply {
  message: string;
  home: string;
  store: string;
  created: boolean;
  schema_version: number;
  migrations_applied: string[];
}

/**
 * Creates the home layout and the store, or brings an existing store up to date (idempotent).
 * With `sds quickstart`, the only way a home is made (every other command needs one already).
 */
export function initHome(home: HomePaths): InitReply {
  const created = !existsSync(home.db);
  const store = openStore(home, { create: true });
  try {
    return {
      message: created ? `Created sds home ${home.root}` : `sds home ${home.root} is ready`,
      home: home.root,
      store: home.db,
      created,
      schema_version: store.migration.to,
      migrations_applied: store.migration.applied,
    };
  } finally {
    store.close();
  }
}

export interface MigrateReply {
  schema_version: number;
  migrations_applied: string[];
}

/** Applies pending migrations to the store of an existing home (HOME_NOT_FOUND when there is none). */
export function migrateHome(home: HomePaths): MigrateReply {
  const store = openStore(home);
  try {
    return { schema_version: store.migration.to, migrations_applied: store.migration.applied };
  } finally {
    store.close();
  }
}
