/**
 * Turns a TargetConfig (URL and/or fields) into the connection parameters a driver needs, and
 * describes a target for messages without ever including its password. The URL rules of
 * docs/breakout.md ("Targets"): the scheme matches the type, every query parameter is honoured
 * or refused by name, TLS parameters become the dialect-neutral TlsSettings.
 */
import { AppError } from '../../shared/errors.js';
import type { Dialect, TargetConfig } from './dialect.js';
import { TLS_MODES, type TlsSettings } from './tls.js';

export interface ResolvedTarget {
  host: string;
  port: number;
  database: string;
  user: string;
  password: string;
  /** SQLite file path ('' for client-server databases). */
  file: string;
  /** Query parameters of the URL that are not TLS settings (driver options such as `local_infile=0`). */
  params: Record<string, string>;
  /** TLS in force: the URL's TLS parameters, overridden by the config's `tls` fields, else the dialect's default. */
  tls: TlsSettings;
  /** `host:port/database` (SQLite: the file), safe to show. */
  label: string;
}

/** The URL of a target, parsed and checked against its dialect's rules (never its password in messages). */
export function parseTargetUrl(url: string, dialect: Dialect): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AppError('TARGET_URL_INVALID', `the ${dialect.name} target URL is not a valid URL (e.g. ${example(dialect)})`, {
      field: 'url',
    });
  }
  const scheme = parsed.protocol.replace(/:$/, '').toLowerCase();
  if (!dialect.url.schemes.includes(scheme)) {
    const hint = dialect.name === 'sqlite' ? '; give the file as the database setting' : '';
    throw new AppError(
      'TARGET_URL_INVALID',
      `a ${dialect.name} target URL must start with ${dialect.url.schemes.map((s) => `${s}://`).join(' or ')}, not ${scheme}://${hint}`,
      dialect.name === 'sqlite' ? { field: 'url', scheme, settings: ['database'] } : { field: 'url', scheme },
    );
  }
  for (const name of parsed.searchParams.keys()) {
    if (!dialect.url.params.includes(name) && !dialect.tls.params.includes(name)) {
      const known = [...dialect.url.params, ...dialect.tls.params];
      throw new AppError(
        'TARGET_PARAM_UNKNOWN',
        `the ${dialect.name} target URL parameter "${name}" is not one sds honours${known.length ? ` (known: ${known.join(', ')})` : ' (it takes none)'}`,
        { field: 'url', parameter: name },
      );
    }
  }
  return parsed;
}

function example(dialect: Dialect): string {
  return dialect.name === 'sqlite'
    ? 'sqlite:///srv/census.sqlite'
    : `${dialect.url.schemes[0]}://user@host:${dialect.capabilities.defaultPort}/database`;
}

function fromUrl(url: string, dialect: Dialect): Partial<ResolvedTarget> & { urlTls: Partial<TlsSettings> } {
  const parsed = parseTargetUrl(url, dialect);
  const all = Object.fromEntries(parsed.searchParams.entries());
  const params = Object.fromEntries(Object.entries(all).filter(([k]) => dialect.url.params.includes(k)));
  const urlTls = dialect.tls.fromParams(Object.fromEntries(Object.entries(all).filter(([k]) => dialect.tls.params.includes(k))));
  if (dialect.name === 'sqlite') return { file: decodeURIComponent(parsed.pathname), params, urlTls };
  const dec = (s: string): string => decodeURIComponent(s);
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, '') || undefined,
    port: parsed.port ? Number(parsed.port) : undefined,
    database: dec(parsed.pathname.replace(/^\//, '')) || undefined,
    user: parsed.username ? dec(parsed.username) : undefined,
    password: parsed.password ? dec(parsed.password) : undefined,
    params,
    urlTls,
  };
}

/** Drops the keys whose value is undefined (so a spread does not erase a value with undefined). */
function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * The TLS settings in force: URL parameters, then fields, then the dialect's default mode.
 * A mode or a file the dialect cannot honour is TARGET_TLS_INVALID, never ignored.
 */
function resolveTls(dialect: Dialect, fromUrl: Partial<TlsSettings>, fields: Partial<TlsSettings> = {}): TlsSettings {
  const merged = { ...defined(fromUrl), ...defined(fields) };
  const tls: TlsSettings = { ...merged, mode: merged.mode ?? dialect.tls.defaultMode };
  if (!TLS_MODES.includes(tls.mode)) {
    throw new AppError('TARGET_TLS_INVALID', `the TLS mode "${String(tls.mode)}" is not one of ${TLS_MODES.join(', ')}`, {
      field: 'tls-mode',
    });
  }
  if (!dialect.tls.modes.includes(tls.mode)) {
    throw new AppError(
      'TARGET_TLS_INVALID',
      `a ${dialect.name} target cannot use the TLS mode ${tls.mode} (it takes ${dialect.tls.modes.join(', ')})`,
      {
        field: 'tls-mode',
        mode: tls.mode,
      },
    );
  }
  if ((tls.cert || tls.key) && !dialect.tls.clientCertificate) {
    throw new AppError('TARGET_TLS_INVALID', `a ${dialect.name} target cannot present a client certificate`, {
      field: tls.cert ? 'tls-cert' : 'tls-key',
    });
  }
  if (Boolean(tls.cert) !== Boolean(tls.key)) {
    throw new AppError('TARGET_TLS_INVALID', 'a client certificate needs its key and a key its certificate: give both', {
      field: tls.cert ? 'tls-key' : 'tls-cert',
      settings: ['tls-cert', 'tls-key'],
    });
  }
  if (tls.mode === 'disable' && (tls.ca || tls.cert)) {
    throw new AppError(
      'TARGET_TLS_INVALID',
      'TLS files are given but the TLS mode is disable; choose a mode (e.g. verify-full) or drop the files',
      { field: 'tls-mode' },
    );
  }
  return tls;
}

/** Merges URL parts and explicit fields (fields win) and fills defaults. */
export function resolveTarget(config: TargetConfig, dialect: Dialect, defaults: { user: string; database: string }): ResolvedTarget {
  const u = config.url ? fromUrl(config.url, dialect) : { urlTls: {} as Partial<TlsSettings> };
  const tls = resolveTls(dialect, u.urlTls, config.tls);
  const file = config.file ?? u.file ?? '';
  if (config.type === 'sqlite') {
    if (!file) throw new AppError('CONFIG_INVALID', 'a SQLite target needs a file');
    return { host: '', port: 0, database: file, user: '', password: '', file, params: u.params ?? {}, tls, label: file };
  }
  const host = config.host ?? u.host ?? '127.0.0.1';
  const port = config.port ?? u.port ?? dialect.capabilities.defaultPort;
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new AppError('CONFIG_INVALID', `the target port must be a whole number from 1 to 65535, got ${String(port)}`);
  }
  const database = config.database ?? u.database ?? defaults.database;
  const user = config.user ?? u.user ?? defaults.user;
  const password = config.password ?? u.password ?? '';
  const hostLabel = host.includes(':') ? `[${host}]` : host;
  return { host, port, database, user, password, file: '', params: u.params ?? {}, tls, label: `${hostLabel}:${port}/${database}` };
}

/**
 * Checks a target as `sds target set` (or BREAKOUT_DB_URL) gives it: the URL rules, the TLS
 * settings, and a database name where the dialect needs one. Returns the resolved target.
 */
export function checkTargetConfig(config: TargetConfig, dialect: Dialect): ResolvedTarget {
  const r = resolveTarget(config, dialect, { user: '', database: '' });
  if (dialect.url.databaseRequired && !r.database) {
    throw new AppError(
      'TARGET_DATABASE_MISSING',
      `a ${dialect.name} target needs a database name: put it in the URL path (${example(dialect)}) or give the database setting`,
      {
        field: 'database',
        settings: ['database'],
      },
    );
  }
  return r;
}
