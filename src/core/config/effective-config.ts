import { existsSync } from 'node:fs';
import { homeSource, type HomePaths } from '../../shared/home.js';
import { missingHomeReason } from '../../store/require-home.js';
import { storeSetting } from '../../store/store-setting.js';
import { homeConfigPath, readHomeConfig, unknownConfigKeys } from '../../shared/home-config.js';
import { LIMIT_SETTINGS, loadLimits } from '../home/index.js';
import { LOGIN_THROTTLE_SETTINGS, loadLoginGuardSettings } from '../auth/index.js';
import { schedulerSettings } from '../scheduler/index.js';
import { DELIVERY_ENV, webhookSettings } from '../webhooks/index.js';
import { JOB_LEASE_SETTINGS, jobLeaseSettings, statusConnectTimeout } from '../breakout/index.js';
import { LOG_NUMBER_SETTINGS, logSettings } from '../logs/index.js';
import { MIN_FREE_ENV, READY_CACHE_ENV, healthSettings } from '../health/index.js';
import { WORKER_SETTINGS, workerSettings } from '../workers/index.js';
import { AUDIT_NUMBER_SETTINGS, auditSettings } from '../audit/index.js';

/** Where a setting's value came from, in the order of precedence (docs/decisions.md, "`sds config`"). */
type SettingSource = 'flag' | 'environment' | 'config.json' | 'default';

/** One effective setting: its value and where it came from. */
export interface EffectiveSetting {
  /** Dotted name, as the key in config.json where the file can hold it (`limits.page_bytes`). */
  name: string;
  value: string | number | boolean | string[] | number[] | null;
  source: SettingSource;
  /** The flag, environment variable or config.json key that gave the value; absent for a default. */
  from?: string;
}

/** The effective configuration of a home, as `sds config` shows it. */
export interface EffectiveConfig {
  /** `exists`: the home's store file is there (store/require-home.ts), as every command tests it. */
  home: { path: string; source: SettingSource; from?: string; exists: boolean };
  configFile: { path: string; exists: boolean };
  /** Keys of config.json that no setting reads (also warned about on stderr when the file is read). */
  unknownKeys: string[];
  settings: EffectiveSetting[];
}

/** How the home was chosen: the `--home` flag, else SDS_HOME, else ./var (shared/home.ts). */
export interface HomeChoice {
  flag?: string;
}

const setIn = (env: NodeJS.ProcessEnv, name: string): boolean => env[name] !== undefined && env[name] !== '';

/**
 * The source of a setting read with the precedence environment > config.json > default, as every
 * loader of the home's settings does. `section` is the config.json object holding `key`.
 */
export function sourceOf(
  env: NodeJS.ProcessEnv,
  envName: string | undefined,
  section: unknown,
  key: string,
  dotted: string,
): Pick<EffectiveSetting, 'source' | 'from'> {
  if (envName && setIn(env, envName)) return { source: 'environment', from: envName };
  if (typeof section === 'object' && section !== null && (section as Record<string, unknown>)[key] !== undefined)
    return { source: 'config.json', from: dotted };
  return { source: 'default' };
}

function objectAt(config: Record<string, unknown>, key: string): unknown {
  return config[key];
}

/**
 * Every setting of the home, resolved by the same loaders the commands and the server use (so
 * a value they would refuse is refused here, with the same CONFIG_INVALID), each with its source.
 * Reads config.json and the environment only: never creates the home or opens the store.
 */
export function effectiveConfig(home: HomePaths, choice: HomeChoice = {}, env: NodeJS.ProcessEnv = process.env): EffectiveConfig {
  const config = readHomeConfig(home);
  const file = homeConfigPath(home);
  const settings: EffectiveSetting[] = [];
  const add = (name: string, value: EffectiveSetting['value'], src: Pick<EffectiveSetting, 'source' | 'from'>) =>
    settings.push({ name, value, ...src });

  const sch = schedulerSettings(home, { env });
  add('timezone', sch.zone, sourceOf(env, 'SDS_TIMEZONE', config, 'timezone', 'timezone'));
  const schSection = objectAt(config, 'scheduler');
  add(
    'scheduler.timeout_seconds',
    sch.timeoutSeconds,
    sourceOf(env, 'SDS_SCHEDULER_TIMEOUT', schSection, 'timeout_seconds', 'scheduler.timeout_seconds'),
  );
  add(
    'scheduler.kill_grace_seconds',
    sch.killGraceSeconds,
    sourceOf(env, 'SDS_SCHEDULER_KILL_GRACE', schSection, 'kill_grace_seconds', 'scheduler.kill_grace_seconds'),
  );
  add('scheduler.keep_runs', sch.keepRuns, sourceOf(env, 'SDS_SCHEDULER_KEEP_RUNS', schSection, 'keep_runs', 'scheduler.keep_runs'));
  add(
    'scheduler.foreign_run_grace_seconds',
    sch.foreignRunGraceSeconds,
    sourceOf(env, 'SDS_SCHEDULER_FOREIGN_RUN_GRACE', schSection, 'foreign_run_grace_seconds', 'scheduler.foreign_run_grace_seconds'),
  );

  const limits = loadLimits(home, env);
  const limitsSection = objectAt(config, 'limits');
  for (const [key, envName, field] of LIMIT_SETTINGS)
    add(`limits.${key}`, limits[field], sourceOf(env, envName, limitsSection, key, `limits.${key}`));

  const guard = loadLoginGuardSettings(home, env);
  const throttleSection = objectAt(config, 'login_throttle');
  for (const [key, envName, field, factor] of LOGIN_THROTTLE_SETTINGS) {
    add(`login_throttle.${key}`, guard.throttle[field] / factor, sourceOf(env, envName, throttleSection, key, `login_throttle.${key}`));
  }
  add('trusted_proxies', guard.trustedProxies, sourceOf(env, 'SDS_TRUSTED_PROXIES', config, 'trusted_proxies', 'trusted_proxies'));

  const delivery = webhookSettings(env);
  for (const key of Object.keys(DELIVERY_ENV) as (keyof typeof DELIVERY_ENV)[]) {
    add(`webhooks.${snake(key)}`, delivery[key], sourceOf(env, DELIVERY_ENV[key], undefined, key, ''));
  }
  add('status.connect_timeout_ms', statusConnectTimeout(undefined, env), sourceOf(env, 'SDS_STATUS_CONNECT_TIMEOUT_MS', undefined, '', ''));

  const leases = jobLeaseSettings(home, env);
  const jobsSection = objectAt(config, 'jobs');
  for (const [key, envName, field] of JOB_LEASE_SETTINGS)
    add(`jobs.${key}`, leases[field], sourceOf(env, envName, jobsSection, key, `jobs.${key}`));

  const logs = logSettings(home, env);
  const logsSection = objectAt(config, 'logs');
  for (const [key, envName, field] of LOG_NUMBER_SETTINGS)
    add(`logs.${key}`, logs[field], sourceOf(env, envName, logsSection, key, `logs.${key}`));
  add('logs.format', logs.format, sourceOf(env, 'SDS_LOG_FORMAT', logsSection, 'format', 'logs.format'));
  const audit = auditSettings(home, env);
  for (const [key, envName, field] of AUDIT_NUMBER_SETTINGS)
    add(`audit.${key}`, audit[field], sourceOf(env, envName, objectAt(config, 'audit'), key, `audit.${key}`));
  const health = healthSettings(home, env);
  add(
    'health.min_free_bytes',
    health.minFreeBytes,
    sourceOf(env, MIN_FREE_ENV, objectAt(config, 'health'), 'min_free_bytes', 'health.min_free_bytes'),
  );
  add(
    'health.ready_cache_ms',
    health.readyCacheMs,
    sourceOf(env, READY_CACHE_ENV, objectAt(config, 'health'), 'ready_cache_ms', 'health.ready_cache_ms'),
  );

  const workers = workerSettings(home, env);
  for (const [key, envName, field] of WORKER_SETTINGS)
    add(`workers.${key}`, workers[field], sourceOf(env, envName, objectAt(config, 'workers'), key, `workers.${key}`));

  const store = storeSetting(home, env);
  const storeFrom = { flag: '--store', environment: 'SDS_STORE_URL', 'config.json': 'store.url', default: undefined }[store.source];
  add('store.url', store.kind === 'sqlite' ? `sqlite (${home.db})` : store.shownUrl, {
    source: store.source,
    ...(storeFrom === undefined ? {} : { from: storeFrom }),
  });
  if (store.kind === 'postgresql') {
    add('store.pool_size', store.poolSize, sourceOf(env, 'SDS_STORE_POOL_SIZE', objectAt(config, 'store'), 'pool_size', 'store.pool_size'));
    for (const [key, envName, value] of [
      ['connect_timeout_ms', 'SDS_STORE_CONNECT_TIMEOUT_MS', store.connectTimeoutMs],
      ['query_timeout_ms', 'SDS_STORE_QUERY_TIMEOUT_MS', store.queryTimeoutMs],
    ] as const) {
      add(`store.${key}`, value, sourceOf(env, envName, objectAt(config, 'store'), key, `store.${key}`));
    }
    add(
      'store_password',
      setIn(env, 'SDS_STORE_PASSWORD') || sourceOf(env, undefined, objectAt(config, 'store'), 'password_file', '').source !== 'default'
        ? 'set'
        : 'not set',
      sourceOf(env, 'SDS_STORE_PASSWORD', objectAt(config, 'store'), 'password_file', 'store.password_file'),
    );
  }

  // Secrets: whether they are set, never their value.
  add(
    'jwt_secret',
    setIn(env, 'SDS_JWT_SECRET') ? 'set' : 'not set (a random key kept in the store signs tokens)',
    sourceOf(env, 'SDS_JWT_SECRET', undefined, '', ''),
  );
  for (const name of ['BREAKOUT_WEBHOOK_TOKEN', 'SURVEY_WEBHOOK_TOKEN', 'SDS_METRICS_TOKEN']) {
    add(name.replace(/^SDS_/, '').toLowerCase(), setIn(env, name) ? 'set' : 'not set', sourceOf(env, name, undefined, '', ''));
  }

  const source = homeSource(choice.flag, env);
  const reason = missingHomeReason(home);
  const from = { flag: { from: '--home' }, environment: { from: 'SDS_HOME' }, default: {} }[source];
  return {
    // A home exists when its store does (store/require-home.ts), as every other command sees it;
    // a home whose store is in PostgreSQL is its folder (the database is checked on opening).
    home: {
      path: home.root,
      source,
      ...from,
      exists: store.kind === 'postgresql' ? reason === undefined || reason === 'no_store' : reason === undefined,
    },
    configFile: { path: file, exists: existsSync(file) },
    unknownKeys: unknownConfigKeys(config),
    settings,
  };
}

function snake(camel: string): string {
  return camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
