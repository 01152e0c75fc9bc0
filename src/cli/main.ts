import { Command, CommanderError } from 'commander';
import { AppError, EXIT, formatLocation, toAppError } from '../shared/errors.js';
import { reportedError } from '../core/breakout/index.js';
import { withCliHint } from './error-hints.js';
import { registerHomeCommands } from './commands/home.js';
import { registerDictCommands } from './commands/dict.js';
import { registerCasesCommands } from './commands/cases.js';
import { registerUsersCommands } from './commands/users.js';
import { registerFilesCommands } from './commands/files.js';
import { registerQuickstart } from './commands/quickstart.js';
import { registerServeCommand } from './commands/serve.js';
import { registerTargetCommands } from './commands/target.js';
import { registerBreakoutCommands } from './commands/breakout.js';
import { registerProcessCasesCommand } from './commands/process-cases-by-dict.js';
import { registerDropBreakoutTablesCommand } from './commands/drop-breakout-tables.js';
import { registerCheckDatabaseDriversCommand } from './commands/check-database-drivers.js';
import { registerMetricsCommand } from './commands/metrics.js';
import { registerLogsCommand } from './commands/logs.js';
import { registerMessagesCommands } from './commands/messages.js';
import { registerScheduleCommands } from './commands/schedule.js';
import { registerWebhooksCommands } from './commands/webhooks.js';
import { registerStatusCommand } from './commands/status.js';
import { registerBackupCommands } from './commands/backup.js';
import { registerExportCommand } from './commands/export.js';
import { registerCswebCommands } from './commands/csweb.js';
import { VERSION } from '../core/home/index.js';
import { registerConfigCommand } from './commands/config.js';
import { registerCompletionCommand } from './commands/completion.js';
import { printVersion, versionRequest } from './commands/version.js';
import { examples } from './action.js';
import { allCommands, commandPath, requireOptionsAfterArguments, unknownCommandWord } from './usage.js';
import { endQuietlyOnClosedPipe } from './closed-pipe.js';
import { configureHelpLayout } from './help-layout.js';
import { messageStream } from './stdout-data.js';

/** The `sds` program with every command registered. */
export function buildProgram(): Command {
  const program = new Command('sds')
    .description('Survey Data Service: store CSPro dictionaries and cases, and break them out into SQL databases')
    .version(VERSION, '-V, --version', "print the version of sds, the store schema (latest and this home's) and Node")
    .option('--home <dir>', 'home directory (default: $SDS_HOME, else ./var)')
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
  registerQuickstart(program);
  registerHomeCommands(program);
  registerDictCommands(program);
  registerCasesCommands(program);
  registerUsersCommands(program);
  registerFilesCommands(program);
  registerServeCommand(program);
  registerTargetCommands(program);
  registerBreakoutCommands(program);
  registerProcessCasesCommand(program);
  registerDropBreakoutTablesCommand(program);
  registerCheckDatabaseDriversCommand(program);
  registerMetricsCommand(program);
  registerLogsCommand(program);
  registerMessagesCommands(program);
  registerScheduleCommands(program);
  registerWebhooksCommands(program);
  registerStatusCommand(program);
  registerBackupCommands(program);
  registerExportCommand(program);
  registerCswebCommands(program);
  registerConfigCommand(program);
  registerCompletionCommand(program);
  requireOptionsAfterArguments(program);
  return program;
}

/** Entry point of bin/sds: runs the command and turns every failure into an exit code. */
export async function main(argv: string[]): Promise<void> {
  endQuietlyOnClosedPipe(process.stdout);
  endQuietlyOnClosedPipe(process.stderr);
  const json = argv.includes('--json');
  const verbose = argv.includes('--verbose') || argv.includes('-v');
  const program = buildProgram();
  // Commander would print the package version only; the store schema needs the --home given.
  const version = versionRequest(argv.slice(2));
  if (version) {
    try {
      printVersion(version.home, json);
    } catch (err) {
      const e = toAppError(err);
      report(e, json, verbose);
      process.exitCode = e.exit;
    }
    return;
  }
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
      report(new AppError('USAGE', err.message.replace(/^error: /, ''), { help }), json, false);
      if (!json) process.stderr.write(`(see ${help})\n`);
      return;
    }
    const e = toAppError(err);
    report(e, json, verbose);
    process.exitCode = e.exit;
  }
}

function report(thrown: AppError, json: boolean, verbose: boolean): void {
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
