import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database } from 'better-sqlite3';
import { AppError } from '../shared/errors.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url));

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The numbered `NNNN-name.sql` files shipped with this build, in order. */
export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}-[a-z0-9-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), name: f.slice(5, -4), sql: readFileSync(dir + f, 'utf8') }));
}

export interface MigrateResult {
  from: number;
  to: number;
  applied: string[];
}

/**
 * Applies pending migrations, each in its own IMMEDIATE transaction so two processes racing at
 * start-up serialise: the loser re-reads the version inside its transaction and finds nothing
 * left to do. A store written by a newer sds is refused rather than silently misread.
 */
export function migrate(db: Database, migrations: Migration[] = loadMigrations()): MigrateResult {
  const latest = migrations.at(-1)?.version ?? 0;
  const from = currentVersion(db);
  if (from > latest) {
    throw new AppError('STORE_TOO_NEW', `the store is at schema version ${from} but this sds knows only up to ${latest}; upgrade sds`, {
      version: from,
      known: latest,
    });
  }
  const applied: string[] = [];
  for (const m of migrations) {
    const step = db.transaction(() => {
      if (currentVersion(db) >= m.version) return false;
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
      return true;
    });
    if (step.immediate()) applied.push(`${String(m.version).padStart(4, '0')}-${m.name}`);
  }
  return { from, to: currentVersion(db), applied };
}

/** Schema version recorded in the store file (SQLite's user_version). */
export function currentVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}
