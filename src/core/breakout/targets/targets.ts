import { basename, isAbsolute, join, resolve } from 'node:path';
import type { TargetConfig, TargetSession } from '../../../breakout/dialects/dialect.js';
import { checkTargetConfig, parseTargetUrl, resolveTarget } from '../../../breakout/dialects/target-config.js';
import { describeTls, type TlsMode, type TlsSettings } from '../../../breakout/dialects/tls.js';
import { planBreakout } from '../../../breakout/plan.js';
import type { BreakoutPlan } from '../../../breakout/plan-model.js';
import { getDialect } from '../../../breakout/dialects/index.js';
import type { Store } from '../../../store/open-store.js';
import type { TargetType } from '../../../store/targets-repo.js';
import type { DictionaryRecord, DictionaryRow } from '../../../store/dictionaries-repo.js';
import { AppError } from '../../../shared/errors.js';
import { requireDictionary } from '../../dictionaries/index.js';

const TARGET_TYPES: readonly TargetType[] = ['postgresql', 'mysql', 'sqlserver', 'sqlite'];

/** Where an effective target came from: the dictionary's own setting, the environment, or the embedded default. */
type TargetSource = 'dictionary' | 'environment' | 'default';

export interface EffectiveTarget {
  config: TargetConfig;
  source: TargetSource;
  foreignKeys: boolean;
  /** Type and place of the target without secrets, e.g. `postgresql 127.0.0.1:5432/census`. */
  identity: string;
}

/** Parses a target type: only the exact words are accepted, never a guess (docs/breakout.md#targets). */
function parseTargetType(value: unknown, where: string): TargetType {
  if (typeof value === 'string' && (TARGET_TYPES as readonly string[]).includes(value)) return value as TargetType;
  throw new AppError('CONFIG_INVALID', `${where} must be exactly one of ${TARGET_TYPES.join(', ')}; got "${String(value)}"`, {
    field: where,
  });
}

/** The embedded default target: one SQLite file under the home, shared by all dictionaries. */
function defaultSqliteFile(store: Store): string {
  return join(store.home.targets, 'breakout.sqlite');
}

/**
 * The target a dictionary breaks out into: its own setting, else the global default of
 * BREAKOUT_DB_TYPE / BREAKOUT_DB_URL, else the embedded SQLite file. A password is never stored:
 * a dictionary target names the environment variable holding it.
 */
export async function effectiveTarget(store: Store, dict: DictionaryRow, env: NodeJS.ProcessEnv = process.env): Promise<EffectiveTarget> {
  const own = await store.targets.get(dict.id);
  let config: TargetConfig;
  let source: TargetSource;
  let foreignKeys = false;
  if (own) {
    source = 'dictionary';
    foreignKeys = own.foreignKeys;
    let password: string | undefined;
    if (own.passwordEnv) {
      password = env[own.passwordEnv];
      if (password === undefined) {
        throw new AppError('CONFIG_INVALID', `the target of ${dict.name} reads its password from $${own.passwordEnv}, which is not set`, {
          dictionary: dict.name,
          variable: own.passwordEnv,
        });
      }
    }
    config = {
      type: own.type,
      url: own.url ?? undefined,
      host: own.host ?? undefined,
      port: own.port ?? undefined,
      database: own.database ?? undefined,
      user: own.username ?? undefined,
      password,
      file: own.file ?? (own.type === 'sqlite' && !own.url ? defaultSqliteFile(store) : undefined),
      tls: storedTls(own),
    };
  } else if (env.BREAKOUT_DB_TYPE !== undefined && env.BREAKOUT_DB_TYPE !== '') {
    source = 'environment';
    const type = parseTargetType(env.BREAKOUT_DB_TYPE, 'BREAKOUT_DB_TYPE');
    const url = env.BREAKOUT_DB_URL || undefined;
    if (!url && type !== 'sqlite') {
      throw new AppError('CONFIG_INVALID', `BREAKOUT_DB_TYPE is ${type} but BREAKOUT_DB_URL is not set`, { field: 'BREAKOUT_DB_URL' });
    }
    // For SQLite a plain path is what people write; only `sqlite://...` is taken as a URL.
    const sqlitePath = type === 'sqlite' && url !== undefined && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? resolve(url) : undefined;
    config = sqlitePath
      ? { type, file: sqlitePath }
      : { type, url, file: type === 'sqlite' && !url ? defaultSqliteFile(store) : undefined };
    // The same rules as `sds target set` (docs/breakout.md, "Targets"): nothing of the URL is ignored.
    checkTargetConfig(config, getDialect(type));
  } else {
    source = 'default';
    config = { type: 'sqlite', file: defaultSqliteFile(store) };
  }
  return { config, source, foreignKeys, identity: describeTarget(config) };
}

/** The TLS fields stored with a target (`--tls-*`), only those given. */
function storedTls(own: {
  tlsMode: string | null;
  tlsCa: string | null;
  tlsCert: string | null;
  tlsKey: string | null;
}): Partial<TlsSettings> {
  const tls: Partial<TlsSettings> = {};
  if (own.tlsMode) tls.mode = own.tlsMode as TlsMode;
  if (own.tlsCa) tls.ca = own.tlsCa;
  if (own.tlsCert) tls.cert = own.tlsCert;
  if (own.tlsKey) tls.key = own.tlsKey;
  return tls;
}

/**
 * A one-line description of a target without its password, e.g.
 * `postgresql census@db:5432/census`; it also identifies the target in the breakout state.
 */
function describeTarget(config: TargetConfig): string {
  const r = resolveTarget(config, getDialect(config.type), { user: '', database: '' });
  return `${config.type} ${r.user ? `${r.user}@` : ''}${r.label}`;
}

/**
 * Where a target is, as the status endpoint shows it
 * (docs/status-and-incoming-webhooks.md#status-webhook-get-breakout-status-webhookphp): `host:port`
 * and the database
 * name; a file target has no host and shows only the file's name (not the server's path).
 */
export function targetPlace(config: TargetConfig): { host: string | null; schema: string | null } {
  const dialect = getDialect(config.type);
  const r = resolveTarget(config, dialect, { user: '', database: '' });
  if (r.file) return { host: null, schema: basename(r.file) };
  return { host: `${r.host.includes(':') ? `[${r.host}]` : r.host}:${r.port}`, schema: r.database || null };
}

/**
 * Runs `fn` with an open session on a dictionary's target and the dictionary's plan for it.
 * `connectTimeoutMs` bounds the connect when given (else the dialect's own default).
 */
export async function withTargetSession<T>(
  store: Store,
  dict: DictionaryRecord,
  fn: (session: TargetSession, plan: BreakoutPlan, target: EffectiveTarget) => Promise<T>,
  opts: { connectTimeoutMs?: number; probe?: boolean } = {},
): Promise<T> {
  const target = await effectiveTarget(store, dict);
  const dialect = getDialect(target.config.type);
  const plan = planBreakout(dict.model, dict.label, { maxIdentifierLength: dialect.capabilities.maxIdentifierLength });
  const config = {
    ...target.config,
    ...(opts.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: opts.connectTimeoutMs }),
    ...(opts.probe ? { probe: true } : {}),
  };
  const session = await dialect.connect(config);
  try {
    return await fn(session, plan, target);
  } finally {
    await session.close();
  }
}

export interface TargetInput {
  type: unknown;
  url?: string;
  host?: string;
  port?: string | number;
  database?: string;
  user?: string;
  passwordEnv?: string;
  file?: string;
  foreignKeys?: boolean;
  tlsMode?: string;
  tlsCa?: string;
  tlsCert?: string;
  tlsKey?: string;
}

/**
 * Options that mean nothing for a target type. They are refused, never ignored: a user who
 * gives one expects it to take effect. For SQLite `database` is the file (its name there).
 */
function refuseUnusedOptions(type: TargetType, input: TargetInput): TargetInput {
  const given = (names: (keyof TargetInput)[]) => names.filter((n) => input[n] !== undefined);
  const setting = (n: string) => n.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
  const unused =
    type === 'sqlite' ? given(['host', 'port', 'user', 'passwordEnv', 'tlsMode', 'tlsCa', 'tlsCert', 'tlsKey']) : given(['file']);
  if (unused.length > 0) {
    const names = unused.map(setting);
    throw new AppError(
      'USAGE',
      `the setting${names.length > 1 ? 's' : ''} ${names.join(', ')} ${names.length > 1 ? 'do' : 'does'} not apply to a ${type} target`,
      {
        field: unused[0],
        settings: names,
      },
    );
  }
  if (type !== 'sqlite' || input.database === undefined) return input;
  if (input.file !== undefined && resolve(input.file) !== resolve(input.database)) {
    throw new AppError(
      'USAGE',
      `the database and the file name two different SQLite files ("${input.database}", "${input.file}"); give one`,
      {
        field: 'database',
        settings: ['database', 'file'],
      },
    );
  }
  if (input.url !== undefined) {
    throw new AppError('USAGE', 'a SQLite target takes its file from the URL or the database (or file) setting, not both', {
      field: 'database',
      settings: ['url', 'database', 'file'],
    });
  }
  const { database, ...rest } = input;
  return { ...rest, file: input.file ?? database };
}

/**
 * The `--tls-*` fields of `target set`, files made absolute from the current directory. A
 * setting given both as a field and as a URL parameter must agree; TLS files named in the URL
 * must be absolute paths (a job may run from any folder).
 */
function tlsFields(dialect: ReturnType<typeof getDialect>, input: TargetInput): Partial<TlsSettings> {
  const fields: Partial<TlsSettings> = {};
  if (input.tlsMode !== undefined) fields.mode = input.tlsMode as TlsMode;
  if (input.tlsCa !== undefined) fields.ca = resolve(input.tlsCa);
  if (input.tlsCert !== undefined) fields.cert = resolve(input.tlsCert);
  if (input.tlsKey !== undefined) fields.key = resolve(input.tlsKey);
  if (!input.url) return fields;
  const query = Object.fromEntries(parseTargetUrl(input.url, dialect).searchParams.entries());
  const fromUrl = dialect.tls.fromParams(Object.fromEntries(Object.entries(query).filter(([k]) => dialect.tls.params.includes(k))));
  for (const k of ['mode', 'ca', 'cert', 'key'] as const) {
    const u = fromUrl[k];
    if (u === undefined) continue;
    if (k !== 'mode' && !isAbsolute(u)) {
      throw new AppError(
        'TARGET_TLS_INVALID',
        `the TLS file "${u}" in the URL must be an absolute path (or be given as the TLS ${k} setting)`,
        { field: 'url', settings: [`tls-${k}`] },
      );
    }
    const f = fields[k];
    if (f !== undefined && f !== (k === 'mode' ? u : resolve(u))) {
      throw new AppError(
        'TARGET_TLS_INVALID',
        `the TLS ${k} is given twice with two values: "${u}" in the URL and "${f}" as the TLS ${k} setting; give it once`,
        {
          field: `tls-${k}`,
          settings: ['url', `tls-${k}`],
        },
      );
    }
  }
  return fields;
}

/** Stores a dictionary's target after checking it is complete; the connection is not tried (see testTarget). */
export async function setTarget(store: Store, dictionaryName: string, given: TargetInput): Promise<TargetView> {
  const dict = await requireDictionary(store, dictionaryName);
  const type = parseTargetType(given.type, 'type');
  const input = refuseUnusedOptions(type, given);
  const dialect = getDialect(type);
  if (input.url) {
    const parsed = parseTargetUrl(input.url, dialect);
    if (parsed.password) {
      throw new AppError('USAGE', 'the URL contains a password; name an environment variable that holds it instead', {
        field: 'url',
        settings: ['password-env'],
      });
    }
  }
  const port = input.port === undefined ? null : Number(input.port);
  if (port !== null && (!Number.isInteger(port) || port < 1 || port > 65535)) {
    throw new AppError('USAGE', `the port must be a whole number from 1 to 65535, got "${String(input.port)}"`, {
      field: 'port',
      settings: ['port'],
    });
  }
  if (type !== 'sqlite' && !input.url && !input.host && !input.database) {
    throw new AppError('USAGE', `a ${type} target needs a URL, or a host and a database`, {
      field: 'url',
      settings: ['url', 'host', 'database'],
    });
  }
  if (input.passwordEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(input.passwordEnv)) {
    throw new AppError('USAGE', `the password variable must be an environment variable name, got "${input.passwordEnv}"`, {
      field: 'password-env',
      settings: ['password-env'],
    });
  }
  const tls = tlsFields(dialect, input);
  const config: TargetConfig = {
    type,
    url: input.url,
    host: input.host,
    port: port ?? undefined,
    database: input.database,
    user: input.user,
    // A relative file is taken from the current directory now, not from wherever a job runs later.
    file: input.file ? resolve(input.file) : type === 'sqlite' && !input.url ? defaultSqliteFile(store) : undefined,
    tls,
  };
  checkTargetConfig(config, dialect);
  await store.targets.set(dict.id, {
    type,
    url: input.url ?? null,
    host: input.host ?? null,
    port,
    database: input.database ?? null,
    username: input.user ?? null,
    passwordEnv: input.passwordEnv ?? null,
    file: input.file ? resolve(input.file) : null,
    foreignKeys: input.foreignKeys ?? false,
    tlsMode: tls.mode ?? null,
    tlsCa: tls.ca ?? null,
    tlsCert: tls.cert ?? null,
    tlsKey: tls.key ?? null,
  });
  return showTarget(store, dictionaryName);
}

/** A target as shown to operators: never the password, only where it comes from. */
export interface TargetView {
  dictionary: string;
  source: TargetSource;
  type: TargetType;
  target: string;
  password_env: string | null;
  foreign_keys: boolean;
  /** The TLS in force: mode and files, e.g. `verify-full (CA /etc/ssl/db-ca.pem)`; `disable` for plain. */
  tls: string;
}

/** The effective target of a dictionary and where it comes from. */
export async function showTarget(store: Store, dictionaryName: string): Promise<TargetView> {
  const dict = await requireDictionary(store, dictionaryName);
  const own = await store.targets.get(dict.id);
  const t = await effectiveTargetWithoutSecrets(store, dict);
  const tls = describeTls(resolveTarget(t.config, getDialect(t.config.type), { user: '', database: '' }).tls);
  return {
    dictionary: dict.name,
    source: t.source,
    type: t.config.type,
    target: t.identity,
    password_env: own?.passwordEnv ?? null,
    foreign_keys: t.foreignKeys,
    tls,
  };
}

/** The effective target without its password, for reports: works when the password variable is not set. */
export async function effectiveTargetWithoutSecrets(store: Store, dict: DictionaryRow): Promise<EffectiveTarget> {
  // Showing a target must work even when its password variable is not set in this shell.
  const own = await store.targets.get(dict.id);
  const env = own?.passwordEnv ? { ...process.env, [own.passwordEnv]: process.env[own.passwordEnv] ?? '' } : process.env;
  return effectiveTarget(store, dict, env);
}

/**
 * Whether breakout is configured for a dictionary: the one definition the status webhook, the
 * scheduler and the incoming webhook share (docs/status-and-incoming-webhooks.md). Configured
 * means a target of its own (`sds target set`), a global target in the environment
 * (BREAKOUT_DB_TYPE), or tables already made in the embedded default target by a breakout an
 * operator started (not tables in a target since cleared with `sds target clear`). A dictionary that would only fall back to the embedded default and has never
 * been broken out is not configured; an invalid BREAKOUT_DB_TYPE configures nothing.
 */
export async function isBreakoutConfigured(store: Store, dict: DictionaryRow): Promise<boolean> {
  if (await store.targets.get(dict.id)) return true;
  let target: EffectiveTarget;
  try {
    target = await effectiveTargetWithoutSecrets(store, dict);
  } catch {
    return false;
  }
  if (target.source !== 'default') return true;
  // Tables in the embedded default itself: tables left in a target since cleared do not count.
  return (await store.breakoutState.get(dict.id))?.target === target.identity;
}

/** Removes a dictionary's own target (it then uses the global default). */
export async function clearTarget(store: Store, dictionaryName: string): Promise<{ message: string; dictionary: string }> {
  const dict = await requireDictionary(store, dictionaryName);
  const removed = await store.targets.clear(dict.id);
  return {
    message: removed ? `Target of ${dict.name} cleared; the default target applies` : `${dict.name} had no target of its own`,
    dictionary: dict.name,
  };
}

/** What `target test` reports: the server, and the TLS the connection negotiated. */
export interface TargetTestResult {
  dictionary: string;
  target: string;
  ok: true;
  server_version: string;
  database: string;
  /** The TLS mode in force (`disable` … `verify-full`). */
  tls_mode: string;
  /** The negotiated protocol (`TLSv1.3`), `none` for plain, `unknown` where the driver cannot tell. */
  tls_version: string;
}

/**
 * Connects to a dictionary's target and reports the server version and the negotiated TLS, or
 * the connection error. Creates nothing: a SQLite file is opened read-only, or not at all when
 * it does not exist yet (its folder must exist).
 */
export async function testTarget(store: Store, dictionaryName: string): Promise<TargetTestResult> {
  const dict = await requireDictionary(store, dictionaryName);
  return withTargetSession(
    store,
    dict,
    async (session, _plan, t) => {
      const version = await session.tlsVersion();
      return {
        dictionary: dict.name,
        target: t.identity,
        ok: true as const,
        server_version: await session.serverVersion(),
        database: session.databaseName(),
        tls_mode: resolveTarget(t.config, session.dialect, { user: '', database: '' }).tls.mode,
        tls_version: version === null ? 'none' : (version ?? 'unknown'),
      };
    },
    { probe: true },
  );
}
