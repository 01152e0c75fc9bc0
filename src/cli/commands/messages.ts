import type { Command } from 'commander';
import { listSyncMessages, MAX_MESSAGES_LIMIT, type SyncMessageItem } from '../../core/sync/index.js';
import { action, examples } from '../action.js';

/** Longest value shown in the table; --json has it whole. */
const VALUE_CHARS = 60;

/** A value as the table shows it: a text as it is, anything else as JSON, cut to VALUE_CHARS. */
function shown(m: SyncMessageItem): string {
  const text = m.value === null ? '' : typeof m.value === 'string' ? m.value : JSON.stringify(m.value);
  return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS - 1)}…` : text;
}

/** `sds messages list`: what devices sent with CSPro's syncmessage (docs/sync.md#messages). */
export function registerMessagesCommands(program: Command): void {
  const messages = program
    .command('messages')
    .description("messages devices sent with CSPro's syncmessage (kept for integrations, pruned like the logs)")
    .addHelpText('after', examples('sds messages list', 'sds messages list --device tablet-07 --json'));

  messages
    .command('list')
    .description('list kept messages, newest first (the reply of GET /api/messages)')
    .option('--since <time>', 'only messages received at or after this ISO 8601 time (UTC when no zone)')
    .option('--device <id>', 'only messages of this device')
    .option('--name <name>', 'only messages of this name')
    .option('--limit <n>', `messages to show (1-${MAX_MESSAGES_LIMIT})`, '100')
    .option('--offset <n>', 'messages to skip first', '0')
    .option('--before <id>', 'only messages with an id below this one (the next page)')
    .addHelpText(
      'after',
      examples(
        'sds messages list',
        'sds messages list --since 2025-01-31 --name status',
        'sds messages list --device tablet-07 --limit 20',
        'sds messages list --before 4211 --json',
      ),
    )
    .action(
      action(async (ctx, o: { since?: string; device?: string; name?: string; limit: string; offset: string; before?: string }) => {
        const r = await listSyncMessages(await ctx.store(), o);
        ctx.print(r, () => {
          if (r.data.length === 0) return r.total > 0 ? `no messages on this page (${r.total} in all)` : 'no messages';
          const rows = r.data.map((m) => [m.id, m.received_at, m.device, m.username, m.name, shown(m)]);
          return ctx.table(['id', 'received_at', 'device', 'user', 'name', 'value'], rows);
        });
        // On stderr, so a piped table stays rows only.
        const more = r.total - r.offset - r.data.length;
        if (more > 0 && r.data.length > 0) ctx.note(`${more} more; for the next page add --before ${r.data.at(-1)!.id} (without --offset)`);
      }),
    );
}
