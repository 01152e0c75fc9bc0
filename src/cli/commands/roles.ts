import type { Command } from 'commander';
import { addRole, listRoles, removeRole, setRoleRights, showRole, type RoleDetail } from '../../core/auth/index.js';
import { action, examples } from '../action.js';
import { audited } from '../audited.js';
import type { CliContext } from '../context.js';

/** The per-dictionary rows of a role, one `DICT: rights` per dictionary, for human output. */
function dictionaryLines(r: RoleDetail): string[] {
  return r.dictionaries.map((d) => `  ${d.dictionary}: ${d.rights.join(', ')}`);
}

function renderRole(ctx: CliContext, r: RoleDetail): string {
  return [
    `Role ${r.name}${r.builtin ? ' (built-in)' : ''}`,
    `rights: ${r.rights.length ? r.rights.join(', ') : 'none'}`,
    r.dictionaries.length
      ? 'per dictionary (replaces the dictionary rights above):'
      : 'per dictionary: none (the rights above hold on every dictionary)',
    ...dictionaryLines(r),
    `accounts (${r.accounts}): ${r.account_names.length ? r.account_names.join(', ') : 'none'}`,
  ].join('\n');
}

/** `sds roles list|show|add|remove|set` (docs/supervision.md#roles-and-rights). */
export function registerRolesCommands(program: Command): void {
  const roles = program
    .command('roles')
    .description('roles of the accounts and their rights, by default and per dictionary (as CSWeb 8.1)')
    .addHelpText(
      'after',
      examples(
        'sds roles list',
        'sds roles add Supervisor --rights dictionaries.read,data.read,data.write',
        'sds roles set Supervisor --dictionary HOUSEHOLD_DICT --rights data.read',
        "sds roles set 'Standard User' --dictionary STAFF_DICT --rights data.none",
        'sds roles remove Supervisor',
      ),
    );

  roles
    .command('list')
    .description('list the roles: built-in or not, default rights, dictionaries with rows, accounts')
    .addHelpText('after', examples('sds roles list', 'sds roles list --json'))
    .action(
      action(async (ctx) => {
        const list = await listRoles(await ctx.store());
        ctx.print(list, () =>
          ctx.table(
            ['role', 'kind', 'accounts', 'dictionaries', 'rights'],
            list.map((r) => [
              r.name,
              r.builtin ? 'built-in' : 'custom',
              r.accounts,
              r.dictionaries.map((d) => d.dictionary).join(', ') || '-',
              r.rights.join(',') || 'none',
            ]),
          ),
        );
      }),
    );

  roles
    .command('show <role>')
    .description('one role: its default rights, its rows per dictionary, and its accounts')
    .addHelpText('after', examples("sds roles show 'Standard User'", 'sds roles show Supervisor --json'))
    .action(
      action(async (ctx, name: string) => {
        const r = await showRole(await ctx.store(), name);
        ctx.print(r, () => renderRole(ctx, r));
      }),
    );

  roles
    .command('add <role>')
    .description('add a custom role, with no rights unless --rights names its defaults')
    .option('--rights <list>', 'its default rights, comma-separated (see docs/supervision.md)')
    .addHelpText('after', examples('sds roles add Supervisor --rights data.read,reports.read', "sds roles add 'Data entry'"))
    .action(
      audited(
        'roles.add',
        (name: string) => `role:${name}`,
        async (ctx, name: string, opts: { rights?: string }) => {
          const r = await addRole(await ctx.store(), name, opts.rights);
          ctx.print(r, () => `Role ${r.name} added with rights: ${r.rights.join(', ') || 'none'}`);
          return { rights: r.rights };
        },
      ),
    );

  roles
    .command('remove <role>')
    .description('remove a custom role; its accounts get Standard User and must log in again')
    .addHelpText('after', examples('sds roles remove Supervisor', 'sds roles remove Supervisor --json'))
    .action(
      audited(
        'roles.remove',
        (name: string) => `role:${name}`,
        async (ctx, name: string) => {
          const r = await removeRole(await ctx.store(), name);
          ctx.print(r, () => r.message);
          return { moved_to: r.moved_to, accounts: r.accounts };
        },
      ),
    );

  roles
    .command('set <role>')
    .description("set a custom role's default rights, or any role's rights on one dictionary")
    .requiredOption('--rights <list>', 'comma-separated rights; data.none for none; with --dictionary, default removes its rows')
    .option('--dictionary <name>', "the dictionary whose rows to set (its rows replace the role's dictionary rights there)")
    .addHelpText(
      'after',
      examples(
        'sds roles set Supervisor --rights dictionaries.read,data.read',
        'sds roles set Supervisor --dictionary HH_DICT --rights data.read',
        'sds roles set Supervisor --dictionary STAFF_DICT --rights data.none',
        'sds roles set Supervisor --dictionary STAFF_DICT --rights default',
      ),
    )
    .action(
      audited(
        'roles.set-rights',
        (name: string) => `role:${name}`,
        async (ctx, name: string, opts: { rights: string; dictionary?: string }) => {
          const r = await setRoleRights(await ctx.store(), name, opts.rights, opts.dictionary);
          ctx.print(r, () =>
            opts.dictionary === undefined
              ? `Rights of ${r.name}: ${r.rights.join(', ') || 'none'}`
              : `Rights of ${r.name} on ${opts.dictionary}: ${r.dictionaries.find((d) => d.dictionary === opts.dictionary)?.rights.join(', ') ?? `its defaults (${r.rights.join(', ') || 'none'})`}`,
          );
          return { rights: opts.rights, ...(opts.dictionary === undefined ? {} : { dictionary: opts.dictionary }) };
        },
      ),
    );
}
