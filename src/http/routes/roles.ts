import { addRole, listRoles, listUsers, removeRole, setRoleRights, setUserRole, showRole } from '../../core/auth/index.js';
import type { ApiBuilder } from '../api-builder.js';
import { readJson } from '../read-body.js';
import { ErrorBody, json } from '../schemas/common.js';
import {
  RoleCreateBody,
  RoleDetail,
  RoleList,
  RoleNameParams,
  RoleRemoved,
  RoleRightsBody,
  UserList,
  UsernameParams,
  UserRoleBody,
  UserRoleChanged,
} from '../schemas/roles.js';
import { validate } from '../validate.js';
import type { RouteDeps } from './route-deps.js';

const BODY_LIMIT = 16 * 1024;
const NO_ROLE = json(ErrorBody, 'no role of that name (`ROLE_NOT_FOUND`)');
const BUILTIN = json(ErrorBody, 'a built-in role cannot be removed nor its defaults changed (`ROLE_BUILTIN`)');

/** Roles and the accounts' roles (docs/supervision.md#roles-and-rights): `roles.*` and `users.*` rights. */
export function roleRoutes(api: ApiBuilder, { store, clock }: RouteDeps): void {
  api.route({
    method: 'get',
    path: '/api/roles',
    summary: 'List the roles with their default rights, per-dictionary rows and number of accounts',
    tags: ['roles'],
    permission: 'roles.read',
    responses: { 200: json(RoleList, 'the roles, by name') },
    handler: async (c) => c.json(await listRoles(store)),
  });

  api.route({
    method: 'get',
    path: '/api/roles/{name}',
    summary: 'One role: its rights, its per-dictionary rows and its accounts',
    tags: ['roles'],
    permission: 'roles.read',
    request: { params: RoleNameParams },
    responses: { 200: json(RoleDetail, 'the role'), 404: NO_ROLE },
    handler: async (c) => c.json(await showRole(store, validate(RoleNameParams, c.req.param(), 'path').name)),
  });

  api.route({
    method: 'post',
    path: '/api/roles',
    summary: 'Add a custom role',
    tags: ['roles'],
    permission: 'roles.write',
    audit: { action: 'roles.add' },
    bodyLimit: BODY_LIMIT,
    request: { body: { required: true, content: { 'application/json': { schema: RoleCreateBody } } } },
    responses: {
      201: json(RoleDetail, 'added'),
      400: json(ErrorBody, 'a bad name or body (`USAGE`), an unknown right (`RIGHT_UNKNOWN`)'),
      409: json(ErrorBody, 'a role of that name exists, whatever its case (`CONFLICT`)'),
    },
    handler: async (c) => {
      const body = await readJson(c, RoleCreateBody);
      return c.json(await addRole(store, body.name, body.rights), 201);
    },
  });

  api.route({
    method: 'put',
    path: '/api/roles/{name}/rights',
    summary: 'Set the default rights of a custom role, or the rights of any role but Administrator on one dictionary',
    description:
      'With `dictionary`, the rows replace the role’s dictionary rights on that dictionary (`["data.none"]`: nothing there; ' +
      '`["default"]`: remove the rows). Applies from the next request of the role’s accounts.',
    tags: ['roles'],
    permission: 'roles.write',
    audit: { action: 'roles.set-rights', target: 'role:{name}' },
    bodyLimit: BODY_LIMIT,
    request: { params: RoleNameParams, body: { required: true, content: { 'application/json': { schema: RoleRightsBody } } } },
    responses: {
      200: json(RoleDetail, 'the role as it is now'),
      400: json(
        ErrorBody,
        'an unknown right, `data.none` with others, or a right not of one dictionary (`RIGHT_UNKNOWN`); a bad body (`USAGE`)',
      ),
      404: json(ErrorBody, 'no role (`ROLE_NOT_FOUND`) or dictionary (`DICTIONARY_NOT_FOUND`) of that name'),
      409: BUILTIN,
    },
    handler: async (c) => {
      const { name } = validate(RoleNameParams, c.req.param(), 'path');
      const body = await readJson(c, RoleRightsBody);
      return c.json(await setRoleRights(store, name, body.rights, body.dictionary));
    },
  });

  api.route({
    method: 'delete',
    path: '/api/roles/{name}',
    summary: 'Remove a custom role; its accounts get Standard User and must log in again',
    tags: ['roles'],
    permission: 'roles.write',
    audit: { action: 'roles.remove', target: 'role:{name}' },
    request: { params: RoleNameParams },
    responses: { 200: json(RoleRemoved, 'removed, with the accounts moved'), 404: NO_ROLE, 409: BUILTIN },
    handler: async (c) => c.json(await removeRole(store, validate(RoleNameParams, c.req.param(), 'path').name)),
  });

  api.route({
    method: 'get',
    path: '/api/users',
    summary: 'List the accounts with their roles',
    tags: ['roles'],
    permission: 'users.read',
    responses: { 200: json(UserList, 'the accounts, by name') },
    handler: async (c) => c.json(await listUsers(store, { now: clock() })),
  });

  api.route({
    method: 'put',
    path: '/api/users/{username}/role',
    summary: 'Give an account another role; its tokens end',
    description:
      'The caller may give only a role whose rights it holds itself (403 `access_denied` otherwise), so no account is made mightier ' +
      'than the one that changes it (docs/supervision.md#roles-and-rights).',
    tags: ['roles'],
    permission: 'users.write',
    audit: { action: 'users.set-role', target: 'user:{username}' },
    bodyLimit: BODY_LIMIT,
    request: { params: UsernameParams, body: { required: true, content: { 'application/json': { schema: UserRoleBody } } } },
    responses: {
      200: json(UserRoleChanged, 'the account as it is now'),
      400: json(ErrorBody, 'no such role, or a bad body (`USAGE`)'),
      404: json(ErrorBody, 'no account of that name (`NOT_FOUND`)'),
    },
    handler: async (c) => {
      const { username } = validate(UsernameParams, c.req.param(), 'path');
      const { role } = await readJson(c, UserRoleBody);
      return c.json(await setUserRole(store, username, role, clock(), c.get('rights')));
    },
  });
}
