import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { HomePaths } from '../../shared/home.js';
import { openStore, readSchemaStatus } from '../../store/open-store.js';
import { storeSetting } from '../../store/store-setting.js';
import type { SchemaStatus } from '../../store/migrate.js';
import { tightenHomePermissions, type LoosePermission } from './permissions.js';

export interface InitReply {
  message: string;
  home: string;
  store: string;
  created: boolean;
  schema_version: number;
  migrations_applied: string[];
  /** Paths of an existing home that group or others could reach and that were made private. */
  permissions_tightened: LoosePermission[];
}

/**
 * Creates the home layout and the store with every migration, private to its owner. On an
 * existing home it changes nothing but permissions: a store that needs migrating is refused
 * (STORE_NEEDS_MIGRATION: migrating is `sds migrate`'s, which takes a backup first), and the
 * home folder, store and config.json are made private when group or others could reach them
 * (docs/upgrading.md#permissions-of-an-existing-home). With `sds quickstart`, the only way a
 * home is made.
 */
export async function initHome(home: HomePaths): Promise<InitReply> {
  const setting = storeSetting(home);
  const sqlite = setting.kind === 'sqlite';
  const fileMissing = !existsSync(home.db);
  const store = await openStore(home, { create: true });
  try {
    // A PostgreSQL store is new when this init gave it its first migration (docs/production.md#choosing-a-store).
    const created = sqlite ? fileMissing : store.migration.from === 0;
    const tightened = created ? [] : tightenHomePermissions(home);
    return {
      message: created ? `Created sds home ${home.root}` : `sds home ${home.root} is ready`,
      home: home.root,
      store: sqlite ? home.db : setting.shownUrl,
      created,
      schema_version: store.migration.to,
      migrations_applied: store.migration.applied,
      permissions_tightened: tightened,
    };
  } finally {
    await store.close();
  }
}

/** Where a home's store stands: `sds migrate --status`. */
export interface MigrationStatusReply {
  home: string;
  schema_version: number;
  latest_version: number;
  up_to_date: boolean;
  migrations: SchemaStatus['migrations'];
}

/**
 * The schema version of a home's store, the latest this sds knows and each migration, applied or
 * pending; applies nothing and takes no write lock, so it may run beside a busy server. A store
 * written by a newer sds is reported as it is (its version above the latest), not refused.
 */
export async function migrationStatus(home: HomePaths): Promise<MigrationStatusReply> {
  const s = await readSchemaStatus(home);
  return {
    home: home.root,
    schema_version: s.version,
    latest_version: s.latest,
    up_to_date: s.version === s.latest,
    migrations: s.migrations,
  };
}

/**
 * The backup `sds migrate` takes before the first migration: writes a backup of `home` into the
 * folder `dest` and says where (the backup module's `backupHome`).
 */
export type MigrateBackupStep = (home: HomePaths, dest: string) => Promise<{ path: string }>;

export interface MigrateOptions {
  /**
   * Called once, only when something is pending, before the first migration; when it fails
   * nothing is migrated. Absent: no backup (`--no-backup`).
   */
  backup?: MigrateBackupStep;
  /** Where the backup goes; default `<home>/backups/`. */
  backupDir?: string;
}

export interface MigrateReply {
  home: string;
  /** The version before: equal to `schema_version` when nothing was pending. */
  from_version: number;
  schema_version: number;
  migrations_applied: string[];
  /** The backup taken first, or null (nothing pending, or no backup asked for). */
  backup: string | null;
}

/** The folder `sds migrate` backs a home up into unless told another. */
const defaultBackupDir = (home: HomePaths): string => join(home.root, 'backups');

/**
 * Applies pending migrations to the store of an existing home (HOME_NOT_FOUND when there is
 * none), after the backup step when one is given and something is pending. Two runs at once are
 * safe: each migration is its own IMMEDIATE transaction that re-reads the version, so one applies
 * it and the other finds it done (docs/upgrading.md#upgrading-a-home).
 */
export async function migrateHome(home: HomePaths, opts: MigrateOptions = {}): Promise<MigrateReply> {
  // A store newer than this sds has nothing pending; opening it below refuses it (STORE_TOO_NEW) before any write.
  const before = await readSchemaStatus(home);
  let backup: string | null = null;
  if (before.pending.length > 0 && opts.backup) backup = (await opts.backup(home, opts.backupDir ?? defaultBackupDir(home))).path;
  const store = await openStore(home, { migrate: true });
  try {
    return {
      home: home.root,
      from_version: store.migration.from,
      schema_version: store.migration.to,
      migrations_applied: store.migration.applied,
      backup,
    };
  } finally {
    await store.close();
  }
}
