import type { Command, Option } from 'commander';

/** Every command of the program, depth first. */
export function allCommands(c: Command): Command[] {
  return [c, ...c.commands.flatMap(allCommands)];
}

/**
 * Commander checks required options before arguments, so `sds dict upload` without anything
 * complained about `--label` rather than the missing file. Here required options are checked
 * after the arguments (in a preAction hook, with commander's own message), and `--help` marks them.
 */
export function requireOptionsAfterArguments(program: Command): void {
  const required = new Map<Command, Option[]>();
  for (const c of allCommands(program)) {
    const opts = c.options.filter((o) => o.mandatory);
    if (opts.length === 0) continue;
    for (const o of opts) {
      o.mandatory = false;
      o.description = `(required) ${o.description}`;
    }
    required.set(c, opts);
  }
  program.hook('preAction', (_self, actionCommand) => {
    for (const o of required.get(actionCommand) ?? []) {
      if (actionCommand.getOptionValue(o.attributeName()) === undefined) {
        actionCommand.error(`error: required option '${o.flags}' not specified`, {
          code: 'commander.missingMandatoryOptionValue',
          exitCode: 1,
        });
      }
    }
  });
}

/** Options of `sds` itself that take a value: their value is not a command name. */
const VALUE_OPTIONS = new Set(['--home']);

/**
 * The command words of `argv` (after node and the script) up to the first one that names no
 * subcommand, when that one is unknown: `sds webhooks --help` would otherwise print the top-level
 * help and exit 0. Returns undefined when the words name commands, or a command takes arguments.
 */
export function unknownCommandWord(program: Command, args: string[]): string | undefined {
  let current = program;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return undefined;
    if (a.startsWith('-')) {
      if (current === program && VALUE_OPTIONS.has(a)) i++;
      continue;
    }
    if (current.commands.length === 0) return undefined;
    if (a === 'help') return undefined;
    const next = current.commands.find((c) => c.name() === a || c.aliases().includes(a));
    if (!next) return a;
    current = next;
  }
  return undefined;
}

/** The command path a usage error belongs to, for the hint: `sds dict upload`. */
export function commandPath(c: Command): string {
  const names: string[] = [];
  for (let at: Command | null = c; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}
