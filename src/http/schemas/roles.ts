import { z } from 'zod';
import { CSWEB_RIGHTS, SDS_RIGHTS } from '../../core/auth/index.js';
import type {
  removeRole,
  RoleDetail as CoreRoleDetail,
  RoleView as CoreRoleView,
  setUserRole,
  UserListItem,
} from '../../core/auth/index.js';
import type { Describes } from './same-shape.js';
import { Timestamp } from './common.js';

const RoleName = z.string().meta({ description: 'the role’s name, case-sensitive', example: 'Supervisor' });
const Right = z.enum([...CSWEB_RIGHTS, ...SDS_RIGHTS]).meta({ description: 'a right (docs/supervision.md#roles-and-rights)' });
const DictionaryRows = z
  .array(
    z.strictObject({
      dictionary: z.string().meta({ example: 'HOUSEHOLD_DICT' }),
      rights: z.array(z.string()).meta({ description: 'the rights on that dictionary; `["data.none"]` is none', example: ['data.read'] }),
    }),
  )
  .meta({ description: 'per-dictionary rows: each replaces the role’s dictionary rights on its dictionary' });

/** Path of the routes of one role. */
export const RoleNameParams = z.object({ name: RoleName });

/** Path of the routes of one account. */
export const UsernameParams = z.object({ username: z.string().meta({ example: 'interviewer01' }) });

/** A role in the list. */
const Role = z
  .strictObject({
    name: RoleName,
    builtin: z.boolean().meta({ description: 'one of Standard User, Administrator, Developer, API: cannot be removed, defaults fixed' }),
    rights: z.array(Right).meta({ description: 'its default rights' }),
    dictionaries: DictionaryRows,
    accounts: z.int().min(0).meta({ description: 'accounts that have the role' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  })
  .meta({ id: 'Role' });

/** `GET /api/roles`. */
export const RoleList = z.array(Role).meta({ id: 'RoleList' });

/** `GET /api/roles/{name}` and the replies of the changes. */
export const RoleDetail = Role.extend({
  account_names: z.array(z.string()).meta({ description: 'the accounts that have the role, by name' }),
}).meta({ id: 'RoleDetail' });

/** `POST /api/roles`. */
export const RoleCreateBody = z
  .strictObject({
    name: RoleName,
    rights: z.array(z.string()).optional().meta({ description: 'its default rights (none when left out)' }),
  })
  .meta({ id: 'RoleCreateBody' });

/** `PUT /api/roles/{name}/rights`. */
export const RoleRightsBody = z
  .strictObject({
    rights: z
      .array(z.string())
      .min(1)
      .meta({
        description:
          'the rights; `["data.none"]` for none; with `dictionary`, `["default"]` removes the role’s rows for it so its defaults hold again',
        example: ['data.read'],
      }),
    dictionary: z
      .string()
      .optional()
      .meta({ description: 'the dictionary whose rows to set; without it, the role’s defaults (custom roles only)' }),
  })
  .meta({ id: 'RoleRightsBody' });

/** `DELETE /api/roles/{name}`. */
export const RoleRemoved = z
  .strictObject({
    role: RoleName,
    moved_to: z.literal('Standard User').meta({ description: 'the role the role’s accounts now have' }),
    accounts: z.array(z.string()).meta({ description: 'the accounts moved; each must log in again' }),
    message: z.string(),
  })
  .meta({ id: 'RoleRemoved' });

/** An account in the list of `GET /api/users`. */
const UserListEntry = z
  .strictObject({
    id: z.string().meta({ description: 'the account’s UUID' }),
    username: z.string(),
    role: RoleName,
    disabled: z.boolean(),
    last_login_at: Timestamp.nullable(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    password_scheme: z.enum(['argon2', 'bcrypt', 'unknown']),
    created_at: Timestamp,
    updated_at: Timestamp,
    failed_logins: z.int().min(0).meta({ description: 'failed logins in the current throttle window' }),
  })
  .meta({ id: 'UserListEntry' });

/** `GET /api/users`. */
export const UserList = z.array(UserListEntry).meta({ id: 'UserList' });

/** `PUT /api/users/{username}/role`. */
export const UserRoleBody = z.strictObject({ role: RoleName }).meta({ id: 'UserRoleBody' });

/** The reply of `PUT /api/users/{username}/role`. */
export const UserRoleChanged = UserListEntry.omit({ failed_logins: true })
  .extend({
    changed: z.boolean().meta({ description: 'false when the account had that role already' }),
    previous_role: RoleName,
  })
  .meta({ id: 'UserRoleChanged' });

// Compile-time guard: the schemas must describe what the core returns (same-shape.ts).
/** @public Read by the compiler only: knip and ESLint must not call it unused. */
export const schemasMatchCore: [
  Describes<typeof RoleDetail, CoreRoleDetail>,
  Describes<typeof RoleRemoved, Awaited<ReturnType<typeof removeRole>>>,
  Describes<typeof UserListEntry, UserListItem>,
  Describes<typeof UserRoleChanged, Awaited<ReturnType<typeof setUserRole>>>,
] = [true, true, true, true];
// Role has no `account_names`: the list leaves them out.
/** @public Read by the compiler only. */
export const roleListMatchesCore: Describes<typeof Role, CoreRoleView> = true;
