/**
 * The app packages repository on PostgreSQL (docs/architecture.md#the-store-contract): the SQLite
 * AppPackagesRepo's methods and results over a PgRunner.
 */
import { nowIso } from '../clock.js';
import {
  APP_PACKAGE_COLUMNS,
  APP_PACKAGE_UPSERT,
  toRow,
  type AppPackageRow,
  type AppPackagesRepo,
  type RawRow,
} from '../app-packages-repo.js';
import type { RepoContract } from '../store-contract.js';
import type { PgRunner } from './pg-runner.js';

/** Metadata of the apps area's packages on PostgreSQL. */
export class PgAppPackagesRepo implements RepoContract<AppPackagesRepo> {
  constructor(private readonly db: PgRunner) {}

  /** The package named `name`, undefined when it has no row. */
  async find(name: string): Promise<AppPackageRow | undefined> {
    const r = await this.db.row<RawRow>('SELECT * FROM app_packages WHERE name = $1', [name]);
    return r && toRow(r);
  }

  /** Every row, by name. */
  async list(): Promise<AppPackageRow[]> {
    return (await this.db.rows<RawRow>('SELECT * FROM app_packages ORDER BY name')).map(toRow);
  }

  /**
   * Records (or replaces) a package's metadata; true when something changed. The SQLite repo
   * compares, then writes; here one statement does both (the update only where a field
   * differs), so two saves at once cannot both read the old row and both report a change of one
   * value (docs/decisions.md, "Concurrent writers on the PostgreSQL store").
   */
  async save(row: Omit<AppPackageRow, 'importedAt' | 'updatedAt'>): Promise<boolean> {
    const now = nowIso();
    const changed = await this.db.run(
      `INSERT INTO app_packages (${APP_PACKAGE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
       ${APP_PACKAGE_UPSERT}
       WHERE (app_packages.description, app_packages.version, app_packages.files, app_packages.signature, app_packages.build_time,
              app_packages.zip_size, app_packages.zip_md5, app_packages.source)
         IS DISTINCT FROM (excluded.description, excluded.version, excluded.files, excluded.signature, excluded.build_time,
              excluded.zip_size, excluded.zip_md5, excluded.source)`,
      [row.name, row.description, row.version, row.files, row.signature, row.buildTime, row.zipSize, row.zipMd5, row.source, now],
    );
    return changed > 0;
  }

  /** Forgets a package's metadata; true when there was a row. */
  async remove(name: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM app_packages WHERE name = $1', [name])) > 0;
  }
}
