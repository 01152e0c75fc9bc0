import { AppError } from './errors.js';

/**
 * One whole-number setting of a config.json section: its key in the section, its environment
 * variable, the field it fills, and its allowed range (`max` Infinity: no upper bound).
 */
export type WholeSettingRow<F extends string> = readonly [key: string, envName: string, field: F, min: number, max: number];

/**
 * A whole number from config.json or the environment: a JSON number, or a string of digits.
 * Anything else, or a value out of range, is CONFIG_INVALID naming where it came from (`where`:
 * the variable, or `section.key in <file>`), never silently replaced by the default.
 */
function wholeSetting(value: unknown, where: string, min: number, max: number, unit?: string): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const what = unit === undefined ? 'a whole number' : `a whole number of ${unit}`;
    const range = max === Infinity ? `(${min} or more)` : `from ${min} to ${max}`;
    throw new AppError('CONFIG_INVALID', `${where} must be ${what} ${range}; got ${JSON.stringify(value)}`, { field: where });
  }
  return n;
}

/**
 * The object `name` of a config.json (`{}` when absent), checked: it must be an object and hold
 * only `known` keys, else CONFIG_INVALID naming the key and the file
 * (docs/architecture.md#home-and-configuration).
 */
export function configSection(
  file: Record<string, unknown>,
  name: string,
  fileName: string,
  known: readonly string[],
): Record<string, unknown> {
  const section = file[name] ?? {};
  if (typeof section !== 'object' || section === null || Array.isArray(section)) {
    throw new AppError('CONFIG_INVALID', `${name} in ${fileName} must be an object`, { field: name });
  }
  for (const k of Object.keys(section)) {
    if (!known.includes(k)) {
      throw new AppError('CONFIG_INVALID', `${name}.${k} in ${fileName} is not a setting; known: ${known.join(', ')}`, {
        field: `${name}.${k}`,
      });
    }
  }
  return section as Record<string, unknown>;
}

/**
 * Fills `out` with the whole-number settings of `rows`: the environment over the section of
 * config.json (`name`) over what `out` already holds (the defaults).
 */
export function resolveWholeSettings<F extends string>(
  out: Record<F, number>,
  rows: readonly WholeSettingRow<F>[],
  section: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  name: string,
  fileName: string,
  unit?: string,
): void {
  for (const [key, envName, field, min, max] of rows) {
    const fromEnv = env[envName];
    if (fromEnv !== undefined && fromEnv !== '') out[field] = wholeSetting(fromEnv, envName, min, max, unit);
    else if (section[key] !== undefined) out[field] = wholeSetting(section[key], `${name}.${key} in ${fileName}`, min, max, unit);
  }
}
