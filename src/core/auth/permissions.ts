import type { Role } from '../../store/users-repo.js';
import { AppError } from '../../shared/errors.js';

/**
 * What a caller of the HTTP API may do. The spec leaves "which role may call which operation"
 * open; this table is our decision, documented in docs/http-api.md#roles. Standard is the field
 * interviewer's account (read, and sync cases); API is an integration system (also uploads
 * dictionaries and runs breakouts); Administrator may also destroy data and manage accounts.
 * The old server (CSWeb) let Standard users delete dictionaries: not here (docs/http-api.md#roles).
 */
export const PERMISSIONS = {
  'dictionaries.read': ['Standard', 'API', 'Administrator'],
  'dictionaries.write': ['API', 'Administrator'],
  'dictionaries.delete': ['Administrator'],
  'cases.read': ['Standard', 'API', 'Administrator'],
  'cases.write': ['Standard', 'API', 'Administrator'],
  'cases.delete': ['API', 'Administrator'],
  // Every case of a dictionary at once, as the CSPro 8.1 data source clears it (docs/sync.md#the-81-data-source).
  'cases.clear': ['API', 'Administrator'],
  // A whole data set at once (docs/export.md#over-http): for integration systems, not field accounts.
  'cases.export': ['API', 'Administrator'],
  'files.read': ['Standard', 'API', 'Administrator'],
  'files.write': ['API', 'Administrator'],
  // The data-collection client's file sync (paradata, shared files): a field account needs it.
  'files.sync': ['Standard', 'API', 'Administrator'],
  // What devices sent with syncmessage: a field account would read every other device's messages
  // (docs/decisions.md#sync-messages-reading-and-retention).
  'messages.read': ['API', 'Administrator'],
  'breakout.read': ['API', 'Administrator'],
  'breakout.run': ['API', 'Administrator'],
  'breakout.drop': ['Administrator'],
  'webhooks.manage': ['Administrator'],
  'scheduler.manage': ['Administrator'],
  'users.manage': ['Administrator'],
  // Who synced what, when, and the geographic report (docs/supervision.md#sync-history-and-reports):
  // supervisors' integrations and administrators, not field accounts, which would see every device.
  'reports.read': ['API', 'Administrator'],
  // The area names the geographic report shows (docs/supervision.md#area-names).
  'reports.write': ['API', 'Administrator'],

  // Who changed what and who logged in (docs/supervision.md#audit-trail): the office's supervision, not an integration's.
  'audit.read': ['Administrator'],
} as const satisfies Record<string, readonly Role[]>;

export type Permission = keyof typeof PERMISSIONS;

/** True when `role` holds `permission` in the decision table. */
export function can(role: Role, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly Role[]).includes(role);
}

/** Fails with AUTH-004 (HTTP 403 `access_denied`) when `role` lacks `permission`. */
export function requirePermission(role: Role, permission: Permission): void {
  if (!can(role, permission)) {
    throw new AppError('AUTH-004', `the ${role} role may not do this (needs ${permission})`, { oauth_error: 'access_denied', permission });
  }
}
