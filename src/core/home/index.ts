/**
 * The home module: a home's creation (`sds init`; `sds quickstart` is core/quickstart/), its
 * limits, version and schema versions, and the store it holds (its effective configuration,
 * `sds config`, is core/config/) (README, "Layout").
 */
export { openStore } from '../../store/open-store.js';
export type { Store, StoreScope } from '../../store/open-store.js';
export { schemaVersions } from './schema-versions.js';
export type { SchemaVersions } from './schema-versions.js';
export { initHome, migrateHome, migrationStatus } from './init.js';
export type { MigrateBackupStep, MigrateReply, MigrationStatusReply } from './init.js';
export { homePermissionWarnings } from './permissions.js';
export type { LoosePermission } from './permissions.js';
export { checkUploadMemory, LIMIT_SETTINGS, limitsOf, loadLimits, UPLOAD_MEMORY_FACTOR, useLimits } from './limits.js';
export type { Limits } from './limits.js';
export { VERSION } from './version.js';
