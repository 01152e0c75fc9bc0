import type { Command } from 'commander';
import { AppError } from '../../shared/errors.js';
import { examples } from '../action.js';
import { completionScript, SHELLS, type Shell } from './completion-scripts.js';

/** `sds completion bash|zsh|fish`: the shell completion script, made from the program's own commands and options. */
export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description('print the shell completion script for bash, zsh or fish (made from the commands and options of this sds)')
    .argument('<shell>', `one of ${SHELLS.join(', ')}`)
    .addHelpText(
      'after',
      examples(
        'source <(sds completion bash)                # this shell only',
        'sds completion bash > ~/.local/share/bash-completion/completions/sds',
        'sds completion zsh > "${fpath[1]}/_sds"',
        'sds completion fish > ~/.config/fish/completions/sds.fish',
      ),
    )
    .action((shell: string) => {
      if (!(SHELLS as readonly string[]).includes(shell)) {
        throw new AppError('USAGE', `unknown shell "${shell}"; use one of ${SHELLS.join(', ')}`, { field: 'shell' });
      }
      process.stdout.write(completionScript(program, shell as Shell));
    });
}
