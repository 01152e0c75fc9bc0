import { Command, CommanderError } from 'commander';
import { AppError, EXIT, formatLocation, toAppError } from '../shared/errors.js';
import { withCliHint } from './error-hints.js';
import { VERSION } from '../core/home/index.js';
import { printVersion, versionRequest } from './commands/version.js';
import { examples } from './action.js';
import { allCommands, commandPath, requireOptionsAfterArguments, unknownCommandWord } from './usage.js';
import { endQuietlyOnClosedPipe } from './closed-pipe.js';
import { configureHelpLayout } from './help-layout.js';
import { messageStream } from './stdout-data.js';

type Register = (program: Command) => void;

/**
 * The command groups, in the order of the help, each with its top-level commands (and aliases)
 * and the module that registers them. A command line loads only the group it names: each group
 * brings its part of core and its libraries, and the whole tree took most of a second to load
 * before any command ran (docs/cli.md#start-up-time). test/unit/cli/command-groups.test.ts checks
 * that the names here are exactly those each module registers.
 */
export const COMMAND_GROUPS: readonly { names: readonly string[]; load: () => Promise<Register> }[] = [
  { names: ['quickstart'], load: async () => (await import('./commands/quickstart.js')).registerQuickstart },
  { names: ['init', 'migrate'], load: async () => (await import('./commands/home.js')).registerHomeCommands },
  { names: ['dict'], load: async () => (await import('./commands/dict.js')).registerDictCommands },
  { names: ['cases'], load: async () => (await import('./commands/cases.js')).registerCasesCommands },
  { names: ['users'], load: async () => (await import('./commands/users.js')).registerUsersCommands },
  { names: ['roles'], load: async () => (await import('./commands/roles.js')).registerRolesCommands },
  { names: ['audit'], load: async () => (await import('./commands/audit.js')).registerAuditCommands },
  { names: ['files'], load: async () => (await import('./commands/files.js')).registerFilesCommands },
  { names: ['serve'], load: async () => (await import('./commands/serve.js')).registerServeCommand },
  { names: ['target'], load: async () => (await import('./commands/target.js')).registerTargetCommands },
  { names: ['breakout'], load: async () => (await import('./commands/breakout.js')).registerBreakoutCommands },
  {
    names: ['process-cases-by-dict', 'service:process-cases-by-dict'],
    load: async () => (await import('./commands/process-cases-by-dict.js')).registerProcessCasesCommand,
  },
  {
    names: ['drop-breakout-tables', 'service:drop-breakout-tables'],
    load: async () => (await import('./commands/drop-breakout-tables.js')).registerDropBreakoutTablesCommand,
  },
  {
    names: ['check-database-drivers', 'service:check-database-drivers'],
    load: async () => (await import('./commands/check-database-drivers.js')).registerCheckDatabaseDriversCommand,
  },
  { names: ['metrics'], load: async () => (await import('./commands/metrics.js')).registerMetricsCommand },
  { names: ['logs'], load: async () => (await import('./commands/logs.js')).registerLogsCommand },
  { names: ['messages'], load: async () => (await import('./commands/messages.js')).registerMessagesCommands },
  { names: ['sync'], load: async () => (await import('./commands/sync.js')).registerSyncCommands },
  {
    names: ['schedule', 'scheduler-run', 'service:scheduler-run'],
    load: async () => (await import('./commands/schedule.js')).registerScheduleCommands,
  },
  { names: ['webhooks'], load: async () => (await import('./commands/webhooks.js')).registerWebhooksCommands },
  { names: ['status'], load: async () => (await import('./commands/status.js')).registerStatusCommand },
  { names: ['backup', 'restore'], load: async () => (await import('./commands/backup.js')).registerBackupCommands },
  { names: ['store'], load: async () => (await import('./commands/store.js')).registerStoreCommands },
  { names: ['export'], load: async () => (await import('./commands/export.js')).registerExportCommand },
  { names: ['csweb'], load: async () => (await import('./commands/csweb.js')).registerCswebCommands },
  { names: ['config'], load: async () => (await import('./commands/config.js')).registerConfigCommand },
  // Completion scripts are made from every command: it needs the whole tree anyway.
  { names: ['completion'], load: async () => (await import('./commands/completion.js')).registerCompletionCommand },
];

/** Options of the program itself that take a value: the word after them is not a command. */
const GLOBAL_OPTIONS_WITH_VALUE = new Set(['--home', '--store']);

/** The first word of `args` (argv without node and the script) that is not a global option or its value. */
export function commandWord(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return args[i + 1];
    if (GLOBAL_OPTIONS_WITH_VALUE.has(a)) i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

/**
 * The register functions of the command groups a command line needs: with `args`, only the
 * group it names (every group when it names none it knows, for the full help, `help`, an unknown
 * word, or `completion`); without, every group.
 */
export async function loadCommandGroups(args?: readonly string[]): Promise<Register[]> {
  const word = args === undefined ? undefined : commandWord(args);
  const named = word === undefined || word === 'completion' ? undefined : COMMAND_GROUPS.find((g) => g.names.includes(word));
  return Promise.all((named ? [named] : COMMAND_GROUPS).map((g) => g.load()));
}

/** The `sds` program with the commands of `groups` (loadCommandGroups) registered. */
export function buildProgram(groups: readonly Register[]): Command {
  const program = new Command('sds')
    .description('Survey Data Service: store CSPro dictionaries and cases, and break them out into SQL databases')
    .version(VERSION, '-V, --version', "print the version of sds, the store schema (latest and this home's) and Node")
    .option('--home <dir>', 'home directory (default: $SDS_HOME, else ./var)')
    .option(
      '--store <url>',
      "the store's database: postgresql://… (default: $SDS_STORE_URL, else store.url of config.json, else the home's SQLite file)",
    )
    .option('--json', 'machine-readable output on stdout (errors too)')
    .option('-q, --quiet', 'print nothing but errors')
    .option('-v, --verbose', 'more detail, including error causes')
    .option('--no-color', 'no colours')
    .option('--plain', 'tables as tab-separated lines, as when stdout is not a terminal')
    .addHelpText(
      'after',
      examples(
        'sds quickstart',
        'sds --home /srv/sds init',
        'sds dict upload census.dcf --label popstan',
        'sds cases import CEN2000 census.dat --json',
        'sds config',
        'source <(sds completion bash)',
        'sds <command> --help',
      ),
    )
    .exitOverride();
  configureHelpLayout(program);
  for (const register of groups) register(program);
  requireOptionsAfterArguments(program);
  return program;
}

/** Entry point of bin/sds: runs the command and turns every failure into an exit code. */
export async function main(argv: string[]): Promise<void> {
  endQuietlyOnClosedPipe(process.stdout);
  endQuietlyOnClosedPipe(process.stderr);
  const json = argv.includes('--json');
  const verbose = argv.includes('--verbose') || argv.includes('-v');
  // Commander would print the package version only; the store schema needs the --home given.
  const version = versionRequest(argv.slice(2));
  if (version) {
    try {
      printVersion(version.home, json);
    } catch (err) {
      const e = toAppError(err);
      await report(e, json, verbose);
      process.exitCode = e.exit;
    }
    return;
  }
  const program = buildProgram(await loadCommandGroups(argv.slice(2)));
  // Commander's own error line is not printed: report() prints the error once, with the hint.
  let failing: Command = program;
  for (const c of allCommands(program)) {
    c.exitOverride();
    c.configureOutput({
      outputError: () => {
        failing = c;
      },
      ...(json ? { writeErr: () => {} } : {}),
    });
  }
  // `sds webhooks --help` must say the command is unknown, not print the top-level help.
  const unknown = unknownCommandWord(program, argv.slice(2));
  const args = unknown === undefined ? argv : argv.filter((a, i) => i < 2 || (a !== '--help' && a !== '-h'));
  try {
    await program.parseAsync(args);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode === 0) return;
      process.exitCode = EXIT.invalid;
      // `sds` alone prints the help on stderr: that is the whole answer.
      if (err.code === 'commander.help') return;
      const help = `${commandPath(failing)} --help`;
      await report(new AppError('USAGE', err.message.replace(/^error: /, ''), { help }), json, false);
      if (!json) process.stderr.write(`(see ${help})\n`);
      return;
    }
    const e = toAppError(err);
    await report(e, json, verbose);
    process.exitCode = e.exit;
  }
}

async function report(thrown: AppError, json: boolean, verbose: boolean): Promise<void> {
  // Loaded for a failure only: the breakout module is large (docs/cli.md#start-up-time).
  const { reportedError } = await import('../core/breakout/index.js');
  const e = withCliHint(reportedError(thrown));
  if (json) {
    messageStream().write(JSON.stringify({ error: e.code, message: e.message, details: e.details }, null, 2) + '\n');
    return;
  }
  // A location the message already names (HOME_NOT_FOUND's path) is not repeated after it.
  const path = typeof e.details.path === 'string' && e.message.includes(e.details.path) ? undefined : e.details.path;
  const where = formatLocation({ ...e.details, path });
  // `DB_CONNECTION_ERROR (DB-001)`, as `sds logs` labels a failed job.
  const label =
    typeof e.details.diagnostic === 'string' && e.details.diagnostic !== e.code ? `${e.code} (${e.details.diagnostic})` : e.code;
  process.stderr.write(`sds: ${label}: ${e.message}${where && !e.message.includes(where) ? ` [${where}]` : ''}\n`);
  if (e.code === 'INTERNAL' || verbose) {
    const cause = e.code === 'INTERNAL' ? e.cause : (e.cause ?? undefined);
    if (cause instanceof Error && cause.stack) process.stderr.write(cause.stack + '\n');
  }
}
