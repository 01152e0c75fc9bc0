import { basename } from 'node:path';
import { readFileSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { AppError } from '../../shared/errors.js';
import { importUsersCsv, showUser, updateUser, type ProfileInput, type UserView } from '../../core/auth/index.js';
import { loadLimits } from '../../core/home/index.js';
import { action, examples } from '../action.js';
import { audited } from '../audited.js';
import { fields } from '../render.js';

/** The options that set who an account belongs to, on `users add` and `users update`. */
export function profileOptions(cmd: Command): Command {
  return cmd
    .option('--first-name <name>', "first name: letters, ' - and spaces, up to 100")
    .option('--last-name <name>', "last name: letters, ' - and spaces, up to 100")
    .option('--email <address>', 'email address, up to 254 characters')
    .option('--phone <number>', 'phone number, up to 30 characters');
}

/** The profile fields commander parsed from profileOptions. */
export function profileInput(opts: { firstName?: string; lastName?: string; email?: string; phone?: string }): ProfileInput {
  return { first_name: opts.firstName, last_name: opts.lastName, email: opts.email, phone: opts.phone };
}

/** `key  value` lines of one account. */
function accountText(u: UserView): string {
  return fields([
    ['username', u.username],
    ['role', u.role],
    ['state', u.disabled ? 'disabled' : 'enabled'],
    ['first_name', u.first_name],
    ['last_name', u.last_name],
    ['email', u.email],
    ['phone', u.phone],
    ['last_login_at', u.last_login_at ?? 'never'],
    ['password', u.password_scheme === 'argon2' ? 'sds' : u.password_scheme === 'bcrypt' ? 'CSWeb' : 'unknown'],
    ['created_at', u.created_at],
    ['updated_at', u.updated_at],
    ['id', u.id],
  ]);
}

/** Reads the CSV, refusing one over the size limit before reading it into memory. */
function readCsv(file: string, maxBytes: number): Buffer {
  try {
    const size = statSync(file).size;
    if (size > maxBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `${file} has ${size} bytes, more than the limit of ${maxBytes} (limits.users_import_bytes)`, {
        file,
        limit: maxBytes,
      });
    }
    return readFileSync(file);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('IO_ERROR', `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { file });
  }
}

/** `sds users show|update|import`: who an account belongs to, and accounts in bulk. */
export function registerAccountCommands(users: Command): void {
  users
    .command('show <name>')
    .description('one account: role, state, names, email, phone, last login, id')
    .addHelpText('after', examples('sds users show alice', 'sds users show alice --json'))
    .action(
      action(async (ctx, name: string) => {
        const u = await showUser(await ctx.store(), name);
        ctx.print(u, () => accountText(u));
      }),
    );

  profileOptions(
    users
      .command('update <name>')
      .description("set an account's names, email or phone (an empty value clears one)")
      .addHelpText('after', examples('sds users update alice --first-name Alice --last-name Mwangi', "sds users update alice --phone ''")),
  ).action(
    audited(
      'users.update',
      (name: string) => `user:${name}`,
      async (ctx, name: string, opts: Parameters<typeof profileInput>[0]) => {
        const u = await updateUser(await ctx.store(), name, profileInput(opts));
        ctx.print(u, () => `User ${u.username} updated\n${accountText(u)}`);
        return { fields: Object.entries(profileInput(opts)).flatMap(([k, v]) => (v === undefined ? [] : [k])) };
      },
    ),
  );

  users
    .command('import <file>')
    .description('add accounts from a CSV: username, first name, last name, role name, password[, email, phone]')
    .option('--header', 'the first line is a header row, not an account')
    .option('--update', 'update accounts that exist already (role, password, names, email, phone)')
    .addHelpText(
      'after',
      [
        '\nEvery line is checked before anything is written: one bad line imports nothing,',
        'and every bad line is reported with its number. Roles: any role of',
        'sds roles list (Standard User, API, Developer, Administrator, or one of',
        'yours). The file is UTF-8, as "CSV UTF-8" in a spreadsheet.',
        examples('sds users import interviewers.csv --header', 'sds users import team.csv --update --json'),
      ].join('\n'),
    )
    .action(
      audited(
        'users.import',
        (file: string) => `file:${basename(file)}`,
        async (ctx, file: string, opts: { header?: boolean; update?: boolean }) => {
          const bytes = readCsv(file, loadLimits(ctx.home).usersImportBytes);
          const r = await importUsersCsv(await ctx.store(), bytes, { header: opts.header, update: opts.update, source: file });
          ctx.print(r, () =>
            [
              `${r.added} account${r.added === 1 ? '' : 's'} added, ${r.updated} updated`,
              ctx.table(
                ['line', 'username', 'role', 'action'],
                r.accounts.map((a) => [a.line, a.username, a.role, a.action === 'add' ? 'added' : 'updated']),
              ),
            ].join('\n'),
          );
          return { added: r.added, updated: r.updated, accounts: r.accounts.map((a) => a.username) };
        },
      ),
    );
}
