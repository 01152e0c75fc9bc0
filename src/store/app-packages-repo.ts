import type { Database } from 'better-sqlite3';
import { nowIso } from './clock.js';

/** What the store keeps of an application package besides its zip (docs/sync.md#apps). */
export interface AppPackageRow {
  name: string;
  description: string | null;
  version: string | null;
  /** The package's files list (JSON text), as its source kept it. */
  files: string | null;
  /** md5 of the `package.json` inside the zip (CSWeb computes it the same way). */
  signature: string | null;
  /** RFC 3339, UTC, to the second. */
  buildTime: string;
  /** Size and md5 of the zip this metadata describes. */
  zipSize: number;
  zipMd5: string;
  /** Where the metadata came from (`csweb-import`, `deploy`). */
  source: string;
  importedAt: string;
  updatedAt: string;
}

/** An app_packages row as the database returns it (also read by the PostgreSQL repo). */
export interface RawRow {
  name: string;
  description: string | null;
  version: string | null;
  files: string | null;
  signature: string | null;
  build_time: string;
  zip_size: number;
  zip_md5: string;
  source: string;
  imported_at: string;
  updated_at: string;
}

/** A package's metadata from its database row. */
export const toRow = (r: RawRow): AppPackageRow => ({
  name: r.name,
  description: r.description,
  version: r.version,
  files: r.files,
  signature: r.signature,
  buildTime: r.build_time,
  zipSize: r.zip_size,
  zipMd5: r.zip_md5,
  source: r.source,
  importedAt: r.imported_at,
  updatedAt: r.updated_at,
});

/** The columns of app_packages, in the order a save binds them. */
export const APP_PACKAGE_COLUMNS =
  'name, description, version, files, signature, build_time, zip_size, zip_md5, source, imported_at, updated_at';

/** What saving a package does to an existing row: everything but its import time is replaced. */
export const APP_PACKAGE_UPSERT = `ON CONFLICT (name) DO UPDATE SET description = excluded.description, version = excluded.version, files = excluded.files,
           signature = excluded.signature, build_time = excluded.build_time, zip_size = excluded.zip_size, zip_md5 = excluded.zip_md5,
           source = excluded.source, updated_at = excluded.updated_at`;

/** Metadata of the apps area's packages; a package without a row is a zip put there by hand. */
export class AppPackagesRepo {
  constructor(private readonly db: Database) {}

  async find(name: string): Promise<AppPackageRow | undefined> {
    return this.findSync(name);
  }

  private findSync(name: string): AppPackageRow | undefined {
    const r = this.db.prepare('SELECT * FROM app_packages WHERE name = ?').get(name) as RawRow | undefined;
    return r && toRow(r);
  }

  /** Every row, by name. */
  async list(): Promise<AppPackageRow[]> {
    return (this.db.prepare('SELECT * FROM app_packages ORDER BY name').all() as RawRow[]).map(toRow);
  }

  /** Records (or replaces) a package's metadata; true when something changed. */
  async save(row: Omit<AppPackageRow, 'importedAt' | 'updatedAt'>): Promise<boolean> {
    const have = this.findSync(row.name);
    if (
      have &&
      have.description === row.description &&
      have.version === row.version &&
      have.files === row.files &&
      have.signature === row.signature &&
      have.buildTime === row.buildTime &&
      have.zipSize === row.zipSize &&
      have.zipMd5 === row.zipMd5 &&
      have.source === row.source
    )
      return false;
    const now = nowIso();
    this.db
      .prepare(
        `INSERT INTO app_packages (${APP_PACKAGE_COLUMNS})
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ${APP_PACKAGE_UPSERT}`,
      )
      .run(row.name, row.description, row.version, row.files, row.signature, row.buildTime, row.zipSize, row.zipMd5, row.source, now, now);
    return true;
  }

  /** Forgets a package's metadata (its zip was removed, or replaced by one without package.json); true when there was a row. */
  async remove(name: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM app_packages WHERE name = ?').run(name).changes > 0;
  }
}
