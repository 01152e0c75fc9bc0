/**
 * Turns a TargetConfig (URL and/or fields) into the connection parameters a driver needs, and
 * describes a target for messages without ever including its password.
 */
import { AppError } from '../../shared/errors.js';
import type { DialectCapabilities, TargetConfig } from './dialect.js';

export interface ResolvedTarget {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
  /** SQLite file path ('' for client-server databases). */
  file: string;
  /** Query parameters of the URL (driver options such as `local_infile=0`). */
  params: Record<string, string>;
  /** `host:port/database` (SQLite: the file), safe to show. */
  label: string;
}

function fromUrl(url: string, type: string): Partial<ResolvedTarget> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AppError('CONFIG_INVALID', `the ${type} target URL is not a valid URL`);
  }
  const params = Object.fromEntries(parsed.searchParams.entries());
  if (type === 'sqlite') return { file: decodeURIComponent(parsed.pathname), params };
  const dec = (s: string): string => decodeURIComponent(s);
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, '') || undefined,
    port: parsed.port ? Number(parsed.port) : undefined,
    database: dec(parsed.pathname.replace(/^\//, '')) || undefined,
    user: parsed.username ? dec(parsed.username) : undefined,
    password: parsed.password ? dec(parsed.password) : undefined,
    params,
  };
}

/** Merges URL parts and explicit fields (fields win) and fills defaults. */
export function resolveTarget(config: TargetConfig, caps: DialectCapabilities, defaults: { user: string; database: string }): ResolvedTarget {
  const u = config.url ? fromUrl(config.url, config.type) : {};
  const file = config.file ?? u.file ?? '';
  if (config.type === 'sqlite') {
    if (!file) throw new AppError('CONFIG_INVALID', 'a SQLite target needs a file');
    return { host: '', port: 0, database: file, user: '', password: '', file, params: u.params ?? {}, label: file };
  }
  const host = config.host ?? u.host ?? '127.0.0.1';
  const port = config.port ?? u.port ?? caps.defaultPort;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new AppError('CONFIG_INVALID', `the target port must be a whole number from 1 to 65535, got ${String(port)}`);
  }
  const database = config.database ?? u.database ?? defaults.database;
  const user = config.user ?? u.user ?? defaults.user;
  const password = config.password ?? u.password ?? '';
  const hostLabel = host.includes(':') ? `[${host}]` : host;
  return { host, port, database, user, password, file: '', params: u.params ?? {}, label: `${hostLabel}:${port}/${database}` };
}
