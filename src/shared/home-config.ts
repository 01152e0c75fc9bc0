import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from './errors.js';
import type { HomePaths } from './home.js';

/** Path of the optional settings file of a home. */
export function homeConfigPath(home: HomePaths): string {
  return join(home.root, 'config.json');
}

/**
 * The settings of `$SDS_HOME/config.json` as a plain object; {} when the file is absent. A file
 * that is not a JSON object is a configuration error, never silently ignored. Each reader
 * validates its own section (docs/architecture.md#home-and-configuration: flag > environment > config.json > default).
 */
export function readHomeConfig(home: HomePaths): Record<string, unknown> {
  const file = homeConfigPath(home);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new AppError('IO_ERROR', `cannot read ${file}: ${(err as Error).message}`, { file }, { cause: err });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    throw new AppError('CONFIG_INVALID', `${file} is not valid JSON: ${(err as Error).message}`, { file });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new AppError('CONFIG_INVALID', `${file} must hold a JSON object`, { file });
  }
  const config = parsed as Record<string, unknown>;
  warnUnknownKeys(config, file);
  return config;
}

/**
 * The top-level keys of config.json that some setting reads (docs/decisions.md, "Unknown `config.json` keys"). A key not
 * listed is a typo or a setting that config.json cannot hold (passwords, secrets): warned about,
 * since refusing it would stop a running installation after an upgrade that drops a key.
 */
const CONFIG_KEYS = [
  'timezone',
  'scheduler',
  'limits',
  'login_throttle',
  'trusted_proxies',
  'logs',
  'health',
  'store',
  'jobs',
  'workers',
  'audit',
] as const;

/** The keys of the `scheduler` object (the other sections refuse an unknown key themselves). */
const SCHEDULER_CONFIG_KEYS = ['timeout_seconds', 'kill_grace_seconds', 'keep_runs', 'foreign_run_grace_seconds'] as const;

/** The keys of a config.json object that no setting reads, with their dotted path. */
export function unknownConfigKeys(config: Record<string, unknown>): string[] {
  const known = new Set<string>(CONFIG_KEYS);
  const out = Object.keys(config).filter((k) => !known.has(k));
  const sch = config.scheduler;
  if (typeof sch === 'object' && sch !== null && !Array.isArray(sch)) {
    const keys = new Set<string>(SCHEDULER_CONFIG_KEYS);
    out.push(
      ...Object.keys(sch)
        .filter((k) => !keys.has(k))
        .map((k) => `scheduler.${k}`),
    );
  }
  return out;
}

/** The warning line for an unknown key of a config file. */
export function unknownKeyWarning(key: string, file: string): string {
  const known = key.startsWith('scheduler.') ? SCHEDULER_CONFIG_KEYS.map((k) => `scheduler.${k}`) : CONFIG_KEYS;
  return `sds: warning: ${key} in ${file} is not a setting and is ignored (known: ${known.join(', ')})`;
}

const toStderr = (line: string) => process.stderr.write(line + '\n');
let warnSink: (line: string) => void = toStderr;
const warned = new Set<string>();

/**
 * Holds the unknown-key warnings instead of writing them, until the returned function is called:
 * it writes nothing, gives the lines held and writes later ones to stderr again. `sds serve` reads
 * its log format from config.json, so it holds them until its log exists and a JSON log gets them
 * as JSON lines (docs/logs.md#the-server-log).
 */
export function holdConfigWarnings(): () => string[] {
  const held: string[] = [];
  warnSink = (line) => held.push(line);
  return () => {
    warnSink = toStderr;
    return held;
  };
}

/** Warns once per process for each unknown key of each file, however many settings read it. */
function warnUnknownKeys(config: Record<string, unknown>, file: string): void {
  for (const key of unknownConfigKeys(config)) {
    const id = `${file}\0${key}`;
    if (warned.has(id)) continue;
    warned.add(id);
    warnSink(unknownKeyWarning(key, file));
  }
}
