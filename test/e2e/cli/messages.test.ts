/**
 * `sds messages list` and the messages of `sds logs prune`, with the real CLI over a real home
 * (docs/sync.md#messages, docs/logs.md#retention). The messages are kept through the core
 * function the `POST /api/messages/` route calls, with the times they were received given to it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../../src/core/home/index.js';
import { receiveSyncMessage } from '../../../src/core/sync/index.js';
import { runCli as sds, show } from '../../helpers/run-cli.js';
import { tempHome } from '../../helpers/temp-home.js';
import type { HomePaths } from '../../../src/shared/home.js';

const home = await tempHome();
after(() => home.cleanup());

/** Keeps messages in a home's store, each `[device, name, value, received at]`. */
async function keep(into: HomePaths, messages: [string, string, unknown, Date][]): Promise<void> {
  const store = await openStore(into);
  try {
    for (const [device, name, value, at] of messages)
      await receiveSyncMessage(store, { timestamp: at.toISOString().slice(0, 16), name, value }, device, 'interviewer', at);
  } finally {
    await store.close();
  }
}

const day = (d: number) => new Date(Date.UTC(2025, 0, d, 8));

interface Listed {
  total: number;
  limit: number;
  offset: number;
  data: { id: number; device: string; username: string; name: string; value: unknown; sent_at: string; received_at: string }[];
}

before(async () => {
  await keep(home, [
    ['tablet-1', 'status', 'started', day(10)],
    ['tablet-2', 'status', { done: 3, of: 10 }, day(11)],
    ['tablet-1', 'ping', null, day(12)],
    ['tablet-2', 'note', 'x'.repeat(100), day(13)],
  ]);
});

test('sds messages list: a table newest first, the value cut to fit; --json has every field whole', () => {
  const text = sds(home.root, ['messages', 'list']);
  assert.equal(text.code, 0, show(text));
  const lines = text.stdout.trimEnd().split('\n');
  assert.deepEqual(lines[0]!.split('\t'), ['id', 'received_at', 'device', 'user', 'name', 'value']);
  assert.deepEqual(
    lines.slice(1).map((l) => l.split('\t').slice(1, 5)),
    [
      [day(13).toISOString(), 'tablet-2', 'interviewer', 'note'],
      [day(12).toISOString(), 'tablet-1', 'interviewer', 'ping'],
      [day(11).toISOString(), 'tablet-2', 'interviewer', 'status'],
      [day(10).toISOString(), 'tablet-1', 'interviewer', 'status'],
    ],
  );
  assert.equal(lines[1]!.split('\t')[5], `${'x'.repeat(59)}…`);
  assert.equal(lines[3]!.split('\t')[5], '{"done":3,"of":10}');
  assert.equal(text.stderr, '', 'no next page to mention');

  const json = sds(home.root, ['messages', 'list', '--json']);
  assert.equal(json.code, 0, show(json));
  const r = json.json<Listed>();
  assert.deepEqual([r.total, r.limit, r.offset, r.data.length], [4, 100, 0, 4]);
  assert.deepEqual(r.data[2], {
    id: r.data[2]!.id,
    device: 'tablet-2',
    username: 'interviewer',
    name: 'status',
    value: { done: 3, of: 10 },
    sent_at: '2025-01-11T08:00',
    received_at: day(11).toISOString(),
  });
  assert.equal(r.data[0]!.value, 'x'.repeat(100));
  assert.equal(r.data[1]!.value, null);
});

test('sds messages list filters: --since, --device, --name, together', () => {
  const names = (args: string[]) => {
    const r = sds(home.root, ['messages', 'list', ...args, '--json']);
    assert.equal(r.code, 0, show(r));
    return r.json<Listed>().data.map((m) => `${m.device}/${m.name}`);
  };
  assert.deepEqual(names(['--since', '2025-01-12']), ['tablet-2/note', 'tablet-1/ping']);
  assert.deepEqual(names(['--since', '2025-01-12T08:00:00+00:00']), ['tablet-2/note', 'tablet-1/ping']);
  assert.deepEqual(names(['--since', '2025-01-12T08:00:01Z']), ['tablet-2/note']);
  assert.deepEqual(names(['--device', 'tablet-1']), ['tablet-1/ping', 'tablet-1/status']);
  assert.deepEqual(names(['--name', 'status']), ['tablet-2/status', 'tablet-1/status']);
  assert.deepEqual(names(['--device', 'tablet-2', '--name', 'status', '--since', '2025-01-11']), ['tablet-2/status']);
  assert.deepEqual(names(['--device', 'tablet-9']), []);
  const none = sds(home.root, ['messages', 'list', '--device', 'tablet-9']);
  assert.equal(none.stdout.trim(), 'no messages');
});

test('sds messages list pages with --limit and --offset, or --before, and says on stderr how to go on', () => {
  const all = sds(home.root, ['messages', 'list', '--json'])
    .json<Listed>()
    .data.map((m) => m.id);
  const first = sds(home.root, ['messages', 'list', '--limit', '2']);
  assert.equal(first.code, 0, show(first));
  assert.equal(first.stdout.trimEnd().split('\n').length, 3, 'a header and two rows');
  assert.equal(first.stderr.trim(), `2 more; for the next page add --before ${all[1]} (without --offset)`);
  const next = sds(home.root, ['messages', 'list', '--limit', '2', '--before', String(all[1]), '--json']).json<Listed>();
  assert.deepEqual(
    next.data.map((m) => m.id),
    all.slice(2),
  );
  const offset = sds(home.root, ['messages', 'list', '--limit', '2', '--offset', '2', '--json']).json<Listed>();
  assert.deepEqual(
    offset.data.map((m) => m.id),
    all.slice(2),
  );
});

test('sds messages list refuses a page over 1000 and bad filters: exit 2, USAGE naming the flag', () => {
  const big = sds(home.root, ['messages', 'list', '--limit', '5000']);
  assert.equal(big.code, 2, show(big));
  assert.match(big.stderr, /^sds: USAGE: limit must be a whole number from 1 to 1000; got "5000" \(option --limit\)\n/);
  const json = sds(home.root, ['messages', 'list', '--limit', '0', '--json']);
  assert.equal(json.code, 2, show(json));
  assert.equal(json.json<{ error: string }>().error, 'USAGE');
  const since = sds(home.root, ['messages', 'list', '--since', 'last week']);
  assert.equal(since.code, 2, show(since));
  assert.match(since.stderr, /USAGE: since must be an ISO 8601 time such as 2025-01-31T08:00:00Z; got "last week" \(option --since\)/);
  const before = sds(home.root, ['messages', 'list', '--before', 'abc']);
  assert.equal(before.code, 2, show(before));
  assert.match(before.stderr, /\(option --before\)/);
});

test('sds messages list --help has examples', () => {
  const r = sds(null, ['messages', 'list', '--help']);
  assert.equal(r.code, 0, show(r));
  assert.match(r.stdout, /--since <time>[\s\S]*--device <id>[\s\S]*--name <name>[\s\S]*--limit <n>/);
  assert.match(r.stdout, /\nExamples:\n {2}\$ sds messages list\n/);
});

test('sds logs prune removes old messages and says how many, in text and --json', async () => {
  const other = await tempHome();
  try {
    const ago = (days: number) => new Date(Date.now() - days * 86_400_000);
    await keep(other, [
      ['tablet-3', 'oldest', 1, ago(300)],
      ['tablet-3', 'older', 2, ago(150)],
      ['tablet-3', 'old', 3, ago(100)],
      ['tablet-3', 'recent', 4, ago(2)],
    ]);
    const dry = sds(other.root, ['logs', 'prune', '--dry-run', '--json']);
    assert.equal(dry.code, 0, show(dry));
    assert.deepEqual(dry.json().kinds.messages, { rows: 3, files: 0, bytes: 0 }, 'past the default 90 days');
    assert.deepEqual([dry.json().messages.older_than_days, dry.json().messages.keep], [90, 100000]);

    const text = sds(other.root, ['logs', 'prune'], { env: { SDS_MESSAGE_RETENTION_DAYS: '200' } });
    assert.equal(text.code, 0, show(text));
    assert.match(text.stdout, /\nand sync messages older than 200 days \(before \S+Z\) or beyond the newest 100000\n/);
    assert.match(text.stdout, /\nmessages\t1\t0\t0\n/);
    assert.match(text.stdout, /\ntotal\t1\t0\t0\n/);

    const json = sds(other.root, ['logs', 'prune', '--json'], {
      env: { SDS_MESSAGE_RETENTION_DAYS: '200', SDS_MESSAGE_RETENTION_COUNT: '1' },
    });
    assert.equal(json.code, 0, show(json));
    assert.deepEqual(json.json().kinds.messages, { rows: 2, files: 0, bytes: 0 }, 'beyond the newest one');
    const left = sds(other.root, ['messages', 'list', '--json']).json<Listed>();
    assert.deepEqual(
      left.data.map((m) => m.name),
      ['recent'],
    );

    const cfg = sds(other.root, ['config', '--json']);
    const names = (cfg.json().settings as { name: string }[]).map((x) => x.name);
    for (const n of ['logs.message_retention_days', 'logs.message_retention_count']) assert.ok(names.includes(n), n);
  } finally {
    await other.cleanup();
  }
});
