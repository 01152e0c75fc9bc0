/**
 * Lazy driver loading (docs/architecture.md#database-drivers-load-lazily: `sds --help` must not load pg, mysql2, tedious or
 * better-sqlite3). A module that cannot be loaded becomes DB-004.
 */
import { AppError } from '../../shared/errors.js';

/**
 * Runs `load` (an `() => import('driver')`) and maps a failure to DB-004 naming the module.
 * CJS drivers come back as `{ default: module }`; callers take `.default` themselves.
 */
export async function loadDriver<T>(moduleName: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new AppError(
      'DB-004',
      `the database driver module '${moduleName}' cannot be loaded: ${reason}`,
      { driver: moduleName },
      { cause: err },
    );
  }
}

/**
 * The CommonJS exports object of a dynamically imported driver. Node puts it on `default`; a
 * loader honouring `__esModule` (tsx, bundlers) leaves `default` undefined for modules such as
 * tedious and exposes the named exports instead.
 */
export function cjsExports<T>(mod: T): T extends { default: infer D } ? D : T {
  const m = mod as { default?: unknown };
  return (m.default ?? mod) as T extends { default: infer D } ? D : T;
}
