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

/** Creates the home layout and the store, or brings an existing store up to date (idempotent). */
export function initHome(home: HomePaths): InitReply {
  const created = !existsSync(home.db);
  const store = openStore(home);
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
