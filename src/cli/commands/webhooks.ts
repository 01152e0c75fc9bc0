import type { Command } from 'commander';
import { AppError, EXIT } from '../../shared/errors.js';
import {
  addWebhook,
  EVENT_KINDS,
  listWebhooks,
  parseWebhookId,
  removeWebhook,
  updateWebhook,
  type WebhookFields,
  deliverDueWebhooks,
  parseDeliveriesLimit,
  testWebhook,
  webhookDeliveries,
  webhookSettings,
  failedWebhookDeliveries,
  parseDeliveryId,
  redeliverAndSend,
} from '../../core/webhooks/index.js';
import { action, examples } from '../action.js';
import { audited } from '../audited.js';
import { fields } from '../render.js';

const list = (v: string): string[] =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

interface FieldOptions {
  name?: string;
  url?: string;
  events?: string[];
  secret?: string;
  active?: boolean;
}

function toFields(o: FieldOptions): WebhookFields {
  return { name: o.name, url: o.url, events: o.events, secret: o.secret, active: o.active };
}

/** `sds webhooks list|add|update|remove|test|deliveries|redeliver|deliver`: outgoing webhooks (docs/webhooks.md#managing-webhooks). */
export function registerWebhooksCommands(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description(`outgoing webhooks: signed POSTs to integration systems on ${EVENT_KINDS.join(', ')}`)
    .addHelpText(
      'after',
      examples(
        'sds webhooks add --name analytics --url https://hooks.example.org/sds \\\n      --events case_uploaded,case_modified',
        'sds webhooks list --json',
        'sds webhooks test 1',
        'sds webhooks deliveries 1 --failed   # not delivered after all retries',
        'sds webhooks redeliver 1 --all-failed   # after a receiver outage',
        'sds webhooks deliver   # from cron, when no `sds serve` runs',
      ),
    );

  webhooks
    .command('list')
    .description('list webhooks, secrets included')
    .addHelpText('after', examples('sds webhooks list', 'sds webhooks list --json'))
    .action(
      action(async (ctx) => {
        const all = await listWebhooks(await ctx.store());
        ctx.print(all, () =>
          all.length
            ? ctx.table(
                ['id', 'name', 'url', 'events', 'active', 'created_at'],
                all.map((w) => [w.id, w.name, w.url, w.events.join(','), w.active, w.created_at]),
              )
            : 'no webhooks',
        );
      }),
    );

  webhooks
    .command('add')
    .description('create a webhook; without --secret one is generated and printed')
    .requiredOption('--name <name>', 'a name for people')
    .requiredOption('--url <url>', 'http or https destination')
    .requiredOption('--events <kinds>', `comma-separated: ${EVENT_KINDS.join(', ')}`, list)
    .option('--secret <secret>', 'signing secret: 16+ printable ASCII characters, or whsec_ + base64')
    .option('--inactive', 'create it disabled')
    .addHelpText(
      'after',
      examples(
        'sds webhooks add --name analytics --url https://hooks.example.org/sds \\\n      --events case_uploaded,case_modified,case_deleted',
        'sds webhooks add --name dict-sync --url http://10.0.0.5:9000/hook \\\n      --events dictionary_uploaded --secret "$SECRET" --json',
      ),
    )
    .action(
      audited(
        'webhooks.add',
        (o: FieldOptions) => `webhook-name:${o.name ?? ''}`,
        async (ctx, o: FieldOptions & { inactive?: boolean }) => {
          const w = await addWebhook(await ctx.store(), toFields({ ...o, active: o.inactive ? false : undefined }));
          ctx.print(w, () => `Webhook ${w.id} (${w.name}) added\n${fields([['secret', w.secret]])}`);
          return { webhook: w.id };
        },
      ),
    );

  webhooks
    .command('update <id>')
    .description('change some fields of a webhook; the others are kept')
    .option('--name <name>', 'new name')
    .option('--url <url>', 'new destination')
    .option('--events <kinds>', 'new comma-separated event kinds', list)
    .option('--secret <secret>', 'new signing secret')
    .option('--active', 'enable it')
    .option('--inactive', 'disable it: no new events; queued deliveries wait')
    .addHelpText(
      'after',
      examples(
        'sds webhooks update 1 --inactive',
        'sds webhooks update 1 --events case_uploaded \\\n      --url https://new.example.org/hook',
      ),
    )
    .action(
      audited(
        'webhooks.update',
        (id: string) => `webhook:${id}`,
        async (ctx, id: string, o: FieldOptions & { inactive?: boolean }) => {
          const active = o.active ? true : o.inactive ? false : undefined;
          const w = await updateWebhook(await ctx.store(), parseWebhookId(id), toFields({ ...o, active }));
          ctx.print(w, () => `Webhook ${w.id} updated`);
        },
      ),
    );

  webhooks
    .command('remove <id>')
    .description('delete a webhook; its queued deliveries are never sent')
    .addHelpText('after', examples('sds webhooks remove 1'))
    .action(
      audited(
        'webhooks.remove',
        (id: string) => `webhook:${id}`,
        async (ctx, id: string) => {
          const r = await removeWebhook(await ctx.store(), parseWebhookId(id));
          ctx.print(r, () => r.message);
        },
      ),
    );

  webhooks
    .command('test <id>')
    .description('send a webhook_test event now and report the answer (exit 5 when it failed)')
    .addHelpText('after', examples('sds webhooks test 1', 'SDS_WEBHOOK_TEST_TIMEOUT_MS=5000 sds webhooks test 1 --json'))
    .action(
      action(async (ctx, id: string) => {
        const r = await testWebhook(await ctx.store(), parseWebhookId(id), { settings: webhookSettings() });
        ctx.print(r, () =>
          r.status === 'success'
            ? `Webhook ${r.webhook_id}: HTTP ${r.response_status} in ${r.response_time}`
            : `Webhook ${r.webhook_id}: ${r.error}: ${r.details}`,
        );
        if (r.status !== 'success') process.exitCode = EXIT.external;
      }),
    );

  webhooks
    .command('deliveries <id>')
    .description('delivery history of a webhook: every attempt, newest first; with --failed, the deliveries that used all their retries')
    .option('--limit <n>', 'records to list, 1 to 1000', '50')
    .option('--failed', 'list the failed deliveries instead (oldest first; payloads with --json), to redeliver them')
    .addHelpText(
      'after',
      examples(
        'sds webhooks deliveries 1',
        'sds webhooks deliveries 1 --limit 200 --json',
        'sds webhooks deliveries 1 --failed',
        'sds webhooks deliveries 1 --failed --json   # with each payload',
      ),
    )
    .action(
      action(async (ctx, id: string, o: { limit: string; failed?: boolean }) => {
        const webhookId = parseWebhookId(id);
        const limit = parseDeliveriesLimit(o.limit);
        if (o.failed) {
          const f = await failedWebhookDeliveries(await ctx.store(), webhookId, limit);
          ctx.print(f, () =>
            [
              `Webhook ${f.webhook_id}: ${f.failed} failed deliveries${f.failed > f.deliveries.length ? ` (the oldest ${f.deliveries.length} listed)` : ''}`,
              f.deliveries.length
                ? ctx.table(
                    ['delivery', 'event', 'webhook-id', 'attempts', 'redelivered', 'last_attempt', 'response', 'last_error'],
                    f.deliveries.map((d) => [
                      d.id,
                      d.event,
                      d.message_id,
                      d.attempts,
                      d.redeliveries,
                      d.last_attempted_at,
                      d.last_response_status,
                      d.last_error,
                    ]),
                  )
                : '',
              f.deliveries.length ? `Re-send: sds webhooks redeliver ${f.webhook_id} --delivery N, or --all-failed` : '',
            ]
              .filter(Boolean)
              .join('\n'),
          );
          return;
        }
        const h = await webhookDeliveries(await ctx.store(), webhookId, limit);
        ctx.print(h, () =>
          [
            `Webhook ${h.webhook_id}: ${h.total_deliveries} attempts, ${h.successful} successful, ${h.failed} failed`,
            h.deliveries.length
              ? ctx.table(
                  ['id', 'delivery', 'event', 'status', 'response', 'time', 'retry', 'attempted_at', 'error'],
                  h.deliveries.map((d) => [
                    d.id,
                    d.delivery_id,
                    d.event,
                    d.status,
                    d.response_status,
                    d.response_time,
                    d.retry_count,
                    d.attempted_at,
                    d.error,
                  ]),
                )
              : '',
          ].join('\n'),
        );
      }),
    );

  webhooks
    .command('redeliver <id>')
    .description(
      'send failed deliveries again, with their original webhook-id and body (receivers can deduplicate): re-queues them with a fresh set of retries, then sends what is due (exit 5 when some did not get through)',
    )
    .option('--delivery <n>', 'the failed delivery to re-send (the "delivery" column of `deliveries --failed`)')
    .option('--all-failed', 'every failed delivery of the webhook')
    .option('--queue-only', 'only re-queue; leave the sending to `sds serve` or `sds webhooks deliver`')
    .addHelpText(
      'after',
      examples(
        'sds webhooks deliveries 1 --failed            # find N',
        'sds webhooks redeliver 1 --delivery 42',
        'sds webhooks redeliver 1 --all-failed --json   # after a receiver outage',
        'sds webhooks redeliver 1 --all-failed --queue-only  # `sds serve` sends them',
      ),
    )
    .action(
      action(async (ctx, id: string, o: { delivery?: string; allFailed?: boolean; queueOnly?: boolean }) => {
        const webhookId = parseWebhookId(id);
        if ((o.delivery === undefined) === !o.allFailed) {
          throw new AppError(
            'USAGE',
            'give exactly one of --delivery N (one failed delivery) or --all-failed (every failed delivery of the webhook)',
            { field: 'delivery' },
          );
        }
        const target = o.delivery !== undefined ? { delivery: parseDeliveryId(o.delivery) } : ({ allFailed: true } as const);
        const r = await redeliverAndSend(await ctx.store(), webhookId, target, { settings: webhookSettings(), queueOnly: o.queueOnly });
        const delivered = r.deliveries.filter((d) => d.status === 'success').length;
        ctx.print(r, () => {
          const head = `Webhook ${r.webhook_id}: ${r.redelivered} deliveries queued again`;
          if (r.redelivered === 0) return `Webhook ${r.webhook_id}: no failed deliveries`;
          if (!r.active) return `${head}; the webhook is inactive: they wait until it is active again`;
          if (!r.sent) return `${head}; \`sds serve\` or \`sds webhooks deliver\` sends them`;
          const waiting = r.deliveries.filter((d) => d.status !== 'success');
          return [
            `${head}, ${delivered} delivered`,
            waiting.length
              ? ctx.table(
                  ['delivery', 'event', 'status', 'next_attempt', 'last_error'],
                  waiting.map((d) => [d.id, d.event, d.status, d.next_attempt_at, d.last_error]),
                )
              : '',
          ]
            .filter(Boolean)
            .join('\n');
        });
        if (r.sent && delivered < r.redelivered) process.exitCode = EXIT.external;
      }),
    );

  webhooks
    .command('deliver')
    .description('send every delivery that is due now, then exit (for installs without `sds serve`; run it from cron)')
    .addHelpText(
      'after',
      examples(
        'sds webhooks deliver',
        '* * * * * sds --home /srv/sds webhooks deliver --quiet   # crontab line',
        'SDS_WEBHOOK_CONCURRENCY=8 sds webhooks deliver --json',
      ),
    )
    .action(
      action(async (ctx) => {
        const r = await deliverDueWebhooks(await ctx.store(), { settings: webhookSettings() });
        ctx.print(
          r,
          () =>
            `${r.attempted} sent (${r.succeeded} ok, ${r.retrying} to retry, ${r.gave_up} failed after their last retry${r.gave_up ? ', see "deliveries ID --failed"' : ''}); ${r.pending} waiting${r.next_due ? `, next at ${r.next_due}` : ''}`,
        );
      }),
    );
}
