/**
 * The audit module: a hash-chained trail of changes and logins (docs/supervision.md#audit-trail).
 * `recordAudit` appends a record in the caller's transaction; `verifyAudit` walks the chain;
 * `listAudit` reads it; `pruneAudit` applies the retention, never past the last backup.
 */
export { recordAudit } from './record.js';
export type { AuditEntry } from './record.js';
export { verifyAudit } from './verify.js';
export type { AuditVerifyReport, ExpectedHead } from './verify.js';
export { listAudit, auditFilterOf, AUDIT_LIST_MAX } from './list.js';
export type { AuditQuery, AuditRecord } from './list.js';
export { AUDIT_NUMBER_SETTINGS, auditSettings, pruneAudit, markAuditBackedUp } from './retention.js';
export type { AuditSettings, AuditPruneReport } from './retention.js';
export { cliAuditSource } from './source.js';
export { auditedCall } from './audited-call.js';
export type { AuditSite } from './audited-call.js';
