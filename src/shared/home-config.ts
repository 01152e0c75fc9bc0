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
 * validates its own section (DESIGN.md §3: flag > environment > config.json > default).
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
  return parsed as Record<string, unknown>;
}
