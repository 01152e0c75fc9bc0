/**
 * The dialect registry. Importing it loads no database driver: each dialect imports its driver
 * when `connect` is first called.
 */
import { AppError } from '../../shared/errors.js';
import type { Dialect, DialectName } from './dialect.js';
import { mysql } from './mysql/index.js';
import { postgresql } from './postgresql/index.js';
import { sqlite } from './sqlite/index.js';
import { sqlserver } from './sqlserver/index.js';

export type { Dialect, DialectName } from './dialect.js';

const DIALECTS: Record<DialectName, Dialect> = { postgresql, mysql, sqlserver, sqlite };

/** The dialect names, in the order the spec lists them. */
export const DIALECT_NAMES = Object.keys(DIALECTS) as DialectName[];

/** The dialect of a target type; anything but the exact names is CONFIG_INVALID. */
export function getDialect(type: string): Dialect {
  if (Object.hasOwn(DIALECTS, type)) return DIALECTS[type as DialectName];
  throw new AppError('CONFIG_INVALID', `unknown target database type "${type}"; expected one of ${DIALECT_NAMES.join(', ')}`, { type });
}
