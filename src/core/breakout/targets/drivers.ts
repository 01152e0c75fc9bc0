import { createRequire } from 'node:module';
import type { Store } from '../../../store/open-store.js';
import { toAppError } from '../../../shared/errors.js';
import { reportedError } from '../jobs/job-error.js';
import { getDialect } from '../../../breakout/dialects/index.js';
import { effectiveTarget, effectiveTargetWithoutSecrets } from './targets.js';

const require = createRequire(import.meta.url);

/**
 * The driver module each target type loads lazily, and the name the specification gives that
 * driver (`pdo_pgsql`, `pdo_mysql`, `pdo_sqlsrv`; SQLite, our addition, as PHP names it).
 */
const DRIVERS = [
  { driver: 'pdo_pgsql', database: 'PostgreSQL', type: 'postgresql', module: 'pg' },
  { driver: 'pdo_mysql', database: 'MySQL/MariaDB', type: 'mysql', module: 'mysql2' },
  { driver: 'pdo_sqlsrv', database: 'SQL Server', type: 'sqlserver', module: 'tedious' },
  { driver: 'pdo_sqlite', database: 'SQLite', type: 'sqlite', module: 'better-sqlite3' },
] as const;

export interface DriverReport {
  drivers: {
    driver: string;
    database: string;
    type: string;
    module: string;
    available: boolean;
    version: string | null;
    error: string | null;
  }[];
  targets: {
    dictionary: string;
    target: string;
    source: string;
    reachable: boolean;
    server_version: string | null;
    error: { code: string; message: string; diagnostic?: string } | null;
  }[];
}

/**
 * Which database drivers load, their versions, and whether each dictionary's target answers
 * (the spec's check-database-drivers, extended with a live check of configured targets).
 */
export async function checkDatabaseDrivers(store: Store): Promise<DriverReport> {
  const drivers: DriverReport['drivers'] = [];
  for (const d of DRIVERS) {
    try {
      await import(d.module);
      const version = (require(`${d.module}/package.json`) as { version: string }).version;
      drivers.push({ driver: d.driver, database: d.database, type: d.type, module: d.module, available: true, version, error: null });
    } catch (err) {
      drivers.push({
        driver: d.driver,
        database: d.database,
        type: d.type,
        module: d.module,
        available: false,
        version: null,
        error: (err as Error).message,
      });
    }
  }
  const targets: DriverReport['targets'] = [];
  for (const dict of await store.dictionaries.list()) {
    try {
      const t = await effectiveTarget(store, dict);
      try {
        // probe: a check creates nothing (no SQLite file, no folder).
        const session = await getDialect(t.config.type).connect({ ...t.config, probe: true });
        try {
          targets.push({
            dictionary: dict.name,
            target: t.identity,
            source: t.source,
            reachable: true,
            server_version: await session.serverVersion(),
            error: null,
          });
        } finally {
          await session.close();
        }
      } catch (err) {
        // The code a job would record, with the catalogue code as its diagnostic (docs/errors.md).
        const e = reportedError(toAppError(err));
        const diagnostic = typeof e.details.diagnostic === 'string' ? { diagnostic: e.details.diagnostic } : {};
        targets.push({
          dictionary: dict.name,
          target: t.identity,
          source: t.source,
          reachable: false,
          server_version: null,
          error: { code: e.code, message: e.message, ...diagnostic },
        });
      }
    } catch (err) {
      // The target cannot be used as configured (a password variable not set, ...): still say which one it is.
      const e = toAppError(err);
      let shown: { identity: string; source: string } = { identity: '', source: '' };
      try {
        shown = await effectiveTargetWithoutSecrets(store, dict);
      } catch {
        // BREAKOUT_DB_TYPE itself is invalid: nothing to show but the error.
      }
      targets.push({
        dictionary: dict.name,
        target: shown.identity,
        source: shown.source,
        reachable: false,
        server_version: null,
        error: { code: e.code, message: e.message },
      });
    }
  }
  return { drivers, targets };
}
