import { AppError } from '../../shared/errors.js';
import { configSection, resolveWholeSettings } from '../../shared/config-section.js';
import { homeConfigPath, readHomeConfig } from '../../shared/home-config.js';
import type { HomePaths } from '../../shared/home.js';

/** How long logs are kept and how often they are pruned on their own (docs/logs.md#settings). */
export interface LogSettings {
  /** Entries and files older than this many days are pruned. */
  retentionDays: number;
  /** Entries and files kept per kind (import logs, jobs, schedule runs, breakout log entries), newest first. */
  retentionCount: number;
  /** Sync messages older than this many days are pruned (docs/sync.md#messages). */
  messageRetentionDays: number;
  /** Sync messages kept, newest first. */
  messageRetentionCount: number;
  /** Least minutes between two automatic prunes of the home; 0 turns them off. */
  pruneIntervalMinutes: number;
  /** What `sds serve` writes on stderr: today's text lines, or JSON lines. */
  format: LogFormat;
}

export type LogFormat = 'text' | 'json';

export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

// Messages are data an integration reads, not a record of sds's own work: kept longer (90 days)
// and in larger numbers than the logs (docs/decisions.md#sync-messages-reading-and-retention).
const DEFAULTS: LogSettings = {
  retentionDays: 30,
  retentionCount: 1000,
  messageRetentionDays: 90,
  messageRetentionCount: 100_000,
  pruneIntervalMinutes: 60,
  format: 'text',
};

/** config.json key (in the `logs` object), environment variable, field, and allowed range. */
export const LOG_NUMBER_SETTINGS = [
  ['retention_days', 'SDS_LOG_RETENTION_DAYS', 'retentionDays', 1, 36_500],
  ['retention_count', 'SDS_LOG_RETENTION_COUNT', 'retentionCount', 1, 10_000_000],
  ['message_retention_days', 'SDS_MESSAGE_RETENTION_DAYS', 'messageRetentionDays', 1, 36_500],
  ['message_retention_count', 'SDS_MESSAGE_RETENTION_COUNT', 'messageRetentionCount', 1, 10_000_000],
  ['prune_interval_minutes', 'SDS_LOG_PRUNE_INTERVAL_MINUTES', 'pruneIntervalMinutes', 0, 525_600],
] as const;

const KEYS = [...LOG_NUMBER_SETTINGS.map((s) => s[0]), 'format'];

function format(value: unknown, where: string): LogFormat {
  if (typeof value === 'string' && (LOG_FORMATS as readonly string[]).includes(value)) return value as LogFormat;
  throw new AppError('CONFIG_INVALID', `${where} must be one of ${LOG_FORMATS.join(', ')}; got ${JSON.stringify(value)}`, {
    field: where,
  });
}

/**
 * Resolves the log settings: the environment (SDS_LOG_*) over the `logs` object of config.json
 * over the defaults. An unknown key or a bad value is CONFIG_INVALID naming where it came from.
 */
export function logSettingsFrom(file: Record<string, unknown>, env: NodeJS.ProcessEnv, fileName = 'config.json'): LogSettings {
  const values = configSection(file, 'logs', fileName, KEYS);
  const out: LogSettings = { ...DEFAULTS };
  resolveWholeSettings(out, LOG_NUMBER_SETTINGS, values, env, 'logs', fileName);
  const envFormat = env.SDS_LOG_FORMAT;
  if (envFormat !== undefined && envFormat !== '') out.format = format(envFormat, 'SDS_LOG_FORMAT');
  else if (values.format !== undefined) out.format = format(values.format, `logs.format in ${fileName}`);
  return out;
}

/** The log settings of a home: its config.json and the environment `env`. */
export function logSettings(home: HomePaths, env: NodeJS.ProcessEnv = process.env): LogSettings {
  return logSettingsFrom(readHomeConfig(home), env, homeConfigPath(home));
}
