import type { Command } from 'commander';
import { clearTarget, setTarget, showTarget, testTarget, type TargetInput } from '../../core/breakout/index.js';
import { action, examples } from '../action.js';
import { audited } from '../audited.js';
import { fields } from '../render.js';

/** `sds target set|show|clear|test`. */
export function registerTargetCommands(program: Command): void {
  const target = program
    .command('target')
    .description('the database a dictionary breaks out into (default: embedded SQLite under the home)')
    .addHelpText(
      'after',
      examples(
        'sds target set CEN2000 --type postgresql --url postgres://sds@db/census',
        'sds target show CEN2000',
        'sds target test CEN2000',
      ),
    );

  target
    .command('set <dict>')
    .description('set the target of a dictionary; the password is read from an environment variable at run time')
    .requiredOption('--type <type>', 'postgresql, mysql, sqlserver or sqlite')
    .option('--url <url>', 'connection URL without password, e.g. postgresql://census@db:5432/census')
    .option('--host <host>', 'server host')
    .option('--port <port>', 'server port')
    .option('--database <name>', 'database name')
    .option('--user <user>', 'user name')
    .option('--password-env <VAR>', 'environment variable that holds the password')
    .option('--file <path>', 'SQLite database file')
    .option('--foreign-keys', 'add foreign keys from record tables to the cases table (slower loads)')
    .option('--tls-mode <mode>', 'disable, allow, prefer, require, verify-ca or verify-full (libpq words; see docs/breakout.md)')
    .option('--tls-ca <file>', 'CA certificate (PEM) the server certificate must chain to')
    .option('--tls-cert <file>', 'client certificate (PEM), with --tls-key')
    .option('--tls-key <file>', 'private key of the client certificate (PEM)')
    .addHelpText(
      'after',
      examples(
        'sds target set CEN2000 --type postgresql \\\n      --url postgresql://census@127.0.0.1:5432/census --password-env CENSUS_PW',
        'sds target set CEN2000 --type postgresql --tls-ca /etc/ssl/db-ca.pem \\\n      --url "postgresql://census@db.example/census?sslmode=verify-full"',
        'sds target set CEN2000 --type mysql --host db.example --database census \\\n      --user root --tls-mode verify-full --tls-ca ca.pem',
        'sds target set CEN2000 --type sqlite --file /srv/census.sqlite',
      ),
    )
    .action(
      audited(
        'targets.set',
        (dict: string) => `dictionary:${dict}`,
        // commander's camel-cased options are the core's input, field for field.
        async (ctx, dict: string, o: TargetInput) => {
          const v = await setTarget(await ctx.store(), dict, o);
          ctx.print(v, () => `Target of ${v.dictionary}: ${v.target} (TLS ${v.tls})`);
          // The target as shown (its password never: it is read from a variable at run time).
          return { target: v.target, tls: v.tls };
        },
      ),
    );

  target
    .command('show <dict>')
    .description('show the effective target of a dictionary, where it comes from and the TLS in force')
    .addHelpText('after', examples('sds target show CEN2000', 'sds target show CEN2000 --json   # .tls, e.g. "verify-full (CA ...)"'))
    .action(
      action(async (ctx, dict: string) => {
        const v = await showTarget(await ctx.store(), dict);
        ctx.print(v, () => fields(Object.entries(v)));
      }),
    );

  target
    .command('clear <dict>')
    .description("remove a dictionary's own target (the global default then applies)")
    .addHelpText('after', examples('sds target clear CEN2000'))
    .action(
      audited(
        'targets.clear',
        (dict: string) => `dictionary:${dict}`,
        async (ctx, dict: string) => {
          const r = await clearTarget(await ctx.store(), dict);
          ctx.print(r, () => r.message);
        },
      ),
    );

  target
    .command('test <dict>')
    .description('connect to the target and report its server version and negotiated TLS; creates nothing')
    .addHelpText('after', examples('sds target test CEN2000', 'CENSUS_PW=secret sds target test CEN2000 --json   # .tls_version'))
    .action(
      action(async (ctx, dict: string) => {
        const r = await testTarget(await ctx.store(), dict);
        ctx.print(r, () => `${r.target}: ok (${r.server_version}; TLS ${r.tls_version}, mode ${r.tls_mode})`);
      }),
    );
}
