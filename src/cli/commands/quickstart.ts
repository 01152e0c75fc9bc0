import type { Command } from 'commander';
import { quickstart } from '../../core/home/index.js';
import { action, examples } from '../action.js';
import { progressBar } from '../progress.js';
import { fields } from '../render.js';

/** `sds quickstart`: the main job on the embedded default data. */
export function registerQuickstart(program: Command): void {
  program
    .command('quickstart')
    .description('create a home, upload the bundled Popstan census dictionary, import its 4,872 cases and break them out into SQLite')
    .addHelpText('after', examples('sds quickstart', 'sds --home /tmp/demo quickstart --json'))
    .action(
      action(async (ctx) => {
        const bar = progressBar(ctx, 'importing {value} cases | {duration_formatted}');
        const r = await quickstart(ctx.home, (n) => bar.update(n)).finally(() => bar.stop());
        ctx.print(r, () =>
          fields([
            ['home', r.home],
            ['dictionary', `${r.dictionary} (label ${r.label})`],
            ['cases stored', r.cases_stored],
            ['this run', `${r.import.inserted} inserted, ${r.import.updated} updated, ${r.import.unchanged} unchanged, ${r.import.failed} failed`],
            ['breakout', `${r.breakout.job.status} into ${r.breakout.database}`],
          ]) +
          '\n' +
          ctx.table(['table', 'type', 'rows', 'size'], r.breakout.tables.map((t) => [t.name, t.type, t.row_count, t.size])),
        );
      }),
    );
}
