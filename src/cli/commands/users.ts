import type { Command } from 'commander';
import {
  loadLoginGuardSettings,
  addUser,
  changePassword,
  disableUser,
  enableUser,
  listUsers,
  removeUser,
  setUserRole,
} from '../../core/auth/index.js';
import { AppError } from '../../shared/errors.js';
import { action, examples } from '../action.js';
import { audited } from '../audited.js';
import { readSecret } from '../read-secret.js';
import { profileInput, profileOptions, registerAccountCommands } from './users-accounts.js';

/** `sds users add|list|show|update|import|remove|passwd|disable|enable|set-role`. */
export function registerUsersCommands(program: Command): void {
  const users = program
    .command('users')
    .description('accounts of the HTTP API and their roles (sds roles list)')
    .addHelpText(
      'after',
      examples(
        'printf "%s\\n" "$PASSWORD" | sds users add alice --role API',
        'sds users list --json',
        'sds users import interviewers.csv --header',
        'sds users disable alice',
        'sds users set-role alice Supervisor',
        'sds users remove alice',
      ),
    );

  profileOptions(
    users
      .command('add <name>')
      .description('create an account; the password is read from stdin (piped) or a hidden prompt')
      .requiredOption('--role <role>', "a role of sds roles list: 'Standard User', API, Developer, Administrator or a custom one")
      .option('--password-stdin', 'read the password from standard input (the default when stdin is not a terminal)'),
  )
    .addHelpText(
      'after',
      examples(
        'printf "%s\\n" "$PASSWORD" | sds users add alice --role API --password-stdin',
        'sds users add admin --role Administrator',
        'sds users add amina01 --role Standard --first-name Amina --last-name Diallo',
      ),
    )
    .action(
      audited(
        'users.add',
        (name: string) => `user:${name}`,
        async (ctx, name: string, opts: { role: string } & Parameters<typeof profileInput>[0]) => {
          const u = await addUser(await ctx.store(), name, opts.role, await readSecret(`password for ${name}: `), profileInput(opts));
          ctx.print(u, () => `User ${u.username} added with role ${u.role}`);
          return { role: u.role };
        },
      ),
    );

  users
    .command('list')
    .description('list accounts: name, role, state, last login, failed logins in the current throttle window, and id')
    .addHelpText('after', examples('sds users list', 'sds users list --json'))
    .action(
      action(async (ctx) => {
        const list = await listUsers(await ctx.store(), { windowMs: loadLoginGuardSettings(ctx.home).throttle.windowMs });
        ctx.print(list, () =>
          list.length
            ? ctx.table(
                ['username', 'name', 'role', 'state', 'last_login_at', 'failed_logins', 'password', 'created_at', 'id'],
                list.map((u) => [
                  u.username,
                  [u.first_name, u.last_name].filter(Boolean).join(' '),
                  u.role,
                  u.disabled ? 'disabled' : 'enabled',
                  u.last_login_at ?? 'never',
                  u.failed_logins,
                  // A CSWeb hash stays until the account's first login (docs/migrating-from-csweb.md#users-and-roles).
                  u.password_scheme === 'argon2' ? 'sds' : u.password_scheme === 'bcrypt' ? 'CSWeb' : 'unknown',
                  u.created_at,
                  // The UUID tokens name, never reused (docs/http-api.md#what-ends-a-token).
                  u.id,
                ]),
              )
            : 'no users',
        );
      }),
    );

  registerAccountCommands(users);

  users
    .command('disable <name>')
    .description('disable an account: logins are refused, and its access and refresh tokens stop working at once')
    .addHelpText('after', examples('sds users disable alice', 'sds users disable alice --json'))
    .action(
      audited(
        'users.disable',
        (name: string) => `user:${name}`,
        async (ctx, name: string) => {
          const u = await disableUser(await ctx.store(), name);
          ctx.print(u, () => `User ${u.username} disabled; its tokens are revoked`);
        },
      ),
    );

  users
    .command('enable <name>')
    .description('enable a disabled account again and lift its login throttle (it must log in anew)')
    .addHelpText('after', examples('sds users enable alice', 'sds users enable alice --json'))
    .action(
      audited(
        'users.enable',
        (name: string) => `user:${name}`,
        async (ctx, name: string) => {
          const u = await enableUser(await ctx.store(), name);
          ctx.print(u, () => `User ${u.username} enabled`);
        },
      ),
    );

  users
    .command('set-role <name> [role]')
    .description('give an account another role; its access and refresh tokens stop working at once')
    .option('--role <role>', 'the role, when not given as the second argument')
    .addHelpText(
      'after',
      examples(
        'sds users set-role alice Supervisor',
        "sds users set-role alice 'Standard User' --json",
        'sds users set-role alice --role Administrator',
      ),
    )
    .action(
      audited(
        'users.set-role',
        (name: string) => `user:${name}`,
        async (ctx, name: string, role: string | undefined, opts: { role?: string }) => {
          if (role !== undefined && opts.role !== undefined && role !== opts.role) {
            throw new AppError('USAGE', `two roles given (${role} and --role ${opts.role}): give one`, { field: 'role' });
          }
          const wanted = role ?? opts.role;
          if (wanted === undefined) throw new AppError('USAGE', 'no role given: sds users set-role USER ROLE', { field: 'role' });
          const u = await setUserRole(await ctx.store(), name, wanted);
          ctx.print(u, () =>
            u.changed
              ? `Role of ${u.username} changed from ${u.previous_role} to ${u.role}; its tokens are revoked, it must log in again`
              : `User ${u.username} already has role ${u.role}; nothing changed`,
          );
          return { role: u.role, previous_role: u.previous_role, changed: u.changed };
        },
      ),
    );

  users
    .command('remove <name>')
    .description('delete an account; its access and refresh tokens stop working at once')
    .addHelpText('after', examples('sds users remove alice'))
    .action(
      audited(
        'users.remove',
        (name: string) => `user:${name}`,
        async (ctx, name: string) => {
          const r = await removeUser(await ctx.store(), name);
          ctx.print(r, () => r.message);
        },
      ),
    );

  users
    .command('passwd <name>')
    .description('set a new password, read from stdin (piped) or a hidden prompt')
    .option('--password-stdin', 'read the password from standard input')
    .addHelpText('after', examples('printf "%s\\n" "$NEW" | sds users passwd alice --password-stdin'))
    .action(
      audited(
        'users.passwd',
        (name: string) => `user:${name}`,
        async (ctx, name: string) => {
          const u = await changePassword(await ctx.store(), name, await readSecret(`new password for ${name}: `));
          ctx.print({ message: `Password of ${u.username} changed`, username: u.username }, () => `Password of ${u.username} changed`);
        },
      ),
    );
}
