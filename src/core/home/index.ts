/**
 * The home module: a home's creation (`sds init`, `sds quickstart`), its effective configuration,
 * limits and version, and the store it holds (README, "Layout").
 */
export { openStore } from '../../store/open-store.js';
export type { Store } from '../../store/open-store.js';
export { effectiveConfig, schemaVersions, sourceOf } from './effective-config.js';
export type { EffectiveConfig, EffectiveSetting } from './effective-config.js';
export { initHome, migrateHome, migrationStatus } from './init.js';
export type { MigrateBackupStep, MigrateReply, MigrationStatusReply } from './init.js';
export { homePermissionWarnings } from './permissions.js';
export type { LoosePermission } from './permissions.js';
export { checkUploadMemory, limitsOf, loadLimits, UPLOAD_MEMORY_FACTOR, useLimits } from './limits.js';
export type { Limits } from './limits.js';
export { quickstart } from './quickstart.js';
export { VERSION } from './version.js';
