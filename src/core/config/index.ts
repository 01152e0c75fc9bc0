/**
 * The config module: `sds config`, the effective configuration of a home with where each setting
 * came from. It reads the settings of every other module, so it is a module of its own above
 * them, and a command that does not show the configuration does not load them (docs/cli.md#start-up-time).
 */
export { effectiveConfig, sourceOf } from './effective-config.js';
export type { EffectiveConfig, EffectiveSetting, HomeChoice } from './effective-config.js';
