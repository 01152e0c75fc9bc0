/**
 * Which database holds a home's store (docs/production.md#choosing-a-store): the embedded SQLite
 * file of the home (the default), or a PostgreSQL database named by a URL. Precedence as every
 * setting: the `--store` flag, then SDS_STORE_URL, then `store.url` of config.json. The password
 * never sits in config.json: SDS_STORE_PASSWORD, or a file named by `store.password_file` that
 * only the service account reads. TLS is set in the URL as libpq does (`sslmode`,
 * `sslrootcert`, `sslcert`, `sslkey`).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { configSection, resolveWholeSettings, type WholeSettingRow } from '../shared/config-section.js';
import { AppError } from '../shared/errors.js';
import { homeConfigPath, readHomeConfig } from '../shared/home-config.js';
import type { HomePaths } from '../shared/home.js';

/** The keys of config.json's `store` object. */
const STORE_CONFIG_KEYS = ['url', 'password_file', 'pool_size', 'connect_timeout_ms', 'query_timeout_ms'] as const;

/** Where the store setting came from. */
export type StoreSettingSource = 'flag' | 'environment' | 'config.json' | 'default';

/** The store of a home: SQLite (its file in the home) or PostgreSQL. */
export type StoreSetting =
  | { kind: 'sqlite'; source: 'default' }
  | {
      kind: 'postgresql';
      /** The URL as given, with any password in it replaced by `***` (for messages and `sds config`). */
      shownUrl: string;
      /** The URL to connect with, password included. */
      url: string;
      /** Connections the pool may open (`store.pool_size`, SDS_STORE_POOL_SIZE). */
      poolSize: number;
      /** How long opening a connection may take before the request fails with STORE_UNAVAILABLE (ms). */
      connectTimeoutMs: number;
      /** How long one statement may wait for the server's answer before it fails with STORE_UNAVAILABLE (ms, 0: no limit). */
      queryTimeoutMs: number;
      source: Exclude<StoreSettingSource, 'default'>;
    };

const POOL_ROWS: readonly WholeSettingRow<'poolSize'>[] = [['pool_size', 'SDS_STORE_POOL_SIZE', 'poolSize', 1, 1000]];
const DEFAULT_POOL_SIZE = 10;

/**
 * How long sds waits for the PostgreSQL server before a request fails with STORE_UNAVAILABLE
 * (docs/production.md#while-the-primary-is-away): a refused or reset connection fails at once;
 * these bound a server that does not answer at all (a host or link that is down).
 */
const TIMEOUT_ROWS: readonly WholeSettingRow<'connectTimeoutMs' | 'queryTimeoutMs'>[] = [
  ['connect_timeout_ms', 'SDS_STORE_CONNECT_TIMEOUT_MS', 'connectTimeoutMs', 100, 600_000],
  ['query_timeout_ms', 'SDS_STORE_QUERY_TIMEOUT_MS', 'queryTimeoutMs', 0, 3_600_000],
];
const DEFAULT_CONNECT_TIMEOUT_MS = 5000;
const DEFAULT_QUERY_TIMEOUT_MS = 60_000;

/** The URL with its password, if any, shown as `***`. */
export function maskStoreUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}

/**
 * The store setting of `home` (flag in `home.storeUrl`, else the environment, else config.json).
 * A URL of another scheme, or one that does not parse, is CONFIG_INVALID naming where it came
 * from; `sqlite` (or an empty value) chooses the SQLite file explicitly.
 */
export function storeSetting(home: HomePaths & { storeUrl?: string }, env: NodeJS.ProcessEnv = process.env): StoreSetting {
  // A home that is not a folder has no config.json: HOME_NOT_FOUND is for whoever needs the home.
  const file = isFolder(home.root) ? readHomeConfig(home) : {};
  const fileName = homeConfigPath(home);
  const section = configSection(file, 'store', fileName, STORE_CONFIG_KEYS);
  const fromFile = typeof section.url === 'string' ? section.url : undefined;
  if (section.url !== undefined && typeof section.url !== 'string') {
    throw new AppError('CONFIG_INVALID', `store.url in ${fileName} must be a string`, { field: 'store.url' });
  }
  const [given, source, where] =
    home.storeUrl !== undefined
      ? [home.storeUrl, 'flag' as const, '--store']
      : env.SDS_STORE_URL !== undefined && env.SDS_STORE_URL !== ''
        ? [env.SDS_STORE_URL, 'environment' as const, 'SDS_STORE_URL']
        : fromFile !== undefined
          ? [fromFile, 'config.json' as const, `store.url in ${fileName}`]
          : [undefined, 'default' as const, ''];
  if (given === undefined || given === '' || given === 'sqlite') return { kind: 'sqlite', source: 'default' };
  let u: URL;
  try {
    u = new URL(given);
  } catch {
    throw new AppError('CONFIG_INVALID', `${where} is not a URL: ${maskStoreUrl(given)}`, { field: where });
  }
  if (u.protocol !== 'postgresql:' && u.protocol !== 'postgres:') {
    throw new AppError(
      'CONFIG_INVALID',
      `${where} must be a postgresql:// URL (or sqlite for the home's own file); got ${maskStoreUrl(given)}`,
      { field: where },
    );
  }
  if (source === 'config.json' && u.password !== '') {
    throw new AppError(
      'CONFIG_INVALID',
      `store.url in ${fileName} holds a password: set SDS_STORE_PASSWORD or store.password_file instead`,
      { field: 'store.url' },
    );
  }
  const password = storePassword(section, env, fileName);
  if (password !== undefined) u.password = encodeURIComponent(password);
  const pool = { poolSize: DEFAULT_POOL_SIZE };
  resolveWholeSettings(pool, POOL_ROWS, section, env, 'store', fileName);
  const timeouts = { connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS, queryTimeoutMs: DEFAULT_QUERY_TIMEOUT_MS };
  resolveWholeSettings(timeouts, TIMEOUT_ROWS, section, env, 'store', fileName, 'ms');
  return { kind: 'postgresql', shownUrl: maskStoreUrl(given), url: u.toString(), poolSize: pool.poolSize, ...timeouts, source };
}

const isFolder = (path: string): boolean => existsSync(path) && statSync(path).isDirectory();

/** The password: SDS_STORE_PASSWORD, else the first line of `store.password_file`, else none. */
function storePassword(section: Record<string, unknown>, env: NodeJS.ProcessEnv, fileName: string): string | undefined {
  if (env.SDS_STORE_PASSWORD !== undefined && env.SDS_STORE_PASSWORD !== '') return env.SDS_STORE_PASSWORD;
  const path = section.password_file;
  if (path === undefined) return undefined;
  if (typeof path !== 'string' || path === '') {
    throw new AppError('CONFIG_INVALID', `store.password_file in ${fileName} must be a file name`, { field: 'store.password_file' });
  }
  try {
    return readFileSync(path, 'utf8').split(/\r?\n/)[0];
  } catch (err) {
    throw new AppError('CONFIG_INVALID', `cannot read store.password_file ${path}: ${(err as Error).message}`, {
      field: 'store.password_file',
      file: path,
    });
  }
}
