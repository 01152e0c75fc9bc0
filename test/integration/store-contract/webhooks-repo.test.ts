/**
 * The store contract of `store.webhooks` (docs/architecture.md#the-store-contract): every method
 * on the SQLite store and on the PostgreSQL store, with the same answers, the subscription index
 * included.
 */
import assert from 'node:assert/strict';
import type { WebhookInput, WebhookRow } from '../../../src/store/webhooks-repo.js';
import { testOnBothStores } from '../../helpers/store-kinds.js';

const input = (name: string, events: string[], active = true): WebhookInput => ({
  name,
  url: `https://example.org/${name}`,
  events,
  active,
  secret: `secret-${name}`,
});

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

testOnBothStores('webhooks: create, list, get, update, delete', async (store) => {
  assert.deepEqual(await store.webhooks.list(), []);
  assert.equal(await store.webhooks.get(1), undefined);

  const a = await store.webhooks.create(input('a', ['case_uploaded', 'case_modified']));
  assert.match(a.createdAt, ISO);
  assert.equal(a.updatedAt, a.createdAt);
  assert.equal(a.createdMs, Date.parse(a.createdAt));
  assert.deepEqual(
    { ...a, createdAt: 'x', updatedAt: 'x', createdMs: 0 },
    {
      id: a.id,
      name: 'a',
      url: 'https://example.org/a',
      events: ['case_uploaded', 'case_modified'],
      active: true,
      secret: 'secret-a',
      createdMs: 0,
      createdAt: 'x',
      updatedAt: 'x',
    },
  );
  const b = await store.transaction(async (tx) => tx.webhooks.create(input('b', ['dictionary_uploaded'], false)));
  assert.ok(b.id > a.id);
  assert.equal(b.active, false);
  assert.deepEqual(await store.webhooks.get(a.id), a);
  assert.deepEqual(
    (await store.webhooks.list()).map((w: WebhookRow) => w.name),
    ['a', 'b'],
  );

  const a2 = (await store.webhooks.update(a.id, { ...input('a2', ['case_deleted']), url: 'https://example.org/new' }))!;
  assert.deepEqual(
    [a2.id, a2.name, a2.url, a2.events, a2.createdAt],
    [a.id, 'a2', 'https://example.org/new', ['case_deleted'], a.createdAt],
  );
  assert.ok(a2.updatedAt >= a.updatedAt);
  assert.deepEqual(await store.webhooks.get(a.id), a2);
  assert.equal(await store.webhooks.update(9999, input('x', [])), undefined);

  assert.equal(await store.webhooks.delete(b.id), true);
  assert.equal(await store.webhooks.delete(b.id), false);
  assert.deepEqual(
    (await store.webhooks.list()).map((w) => w.id),
    [a.id],
  );
});

testOnBothStores('webhooks: the subscription index follows events and active', async (store) => {
  const a = await store.webhooks.create(input('a', ['case_uploaded', 'case_uploaded', 'case_modified']));
  const b = await store.webhooks.create(input('b', ['case_uploaded'], false));
  const c = await store.webhooks.create(input('c', ['case_uploaded', 'dictionary_uploaded']));
  const now = Date.now() + 1000;
  const ids = async (event: string, at = now) => (await store.webhooks.subscribers(event, at)).map((s) => s.id);

  assert.deepEqual(await ids('case_uploaded'), [a.id, c.id], 'active subscribers only, in id order, each once');
  assert.deepEqual(await ids('case_modified'), [a.id]);
  assert.deepEqual(await ids('case_deleted'), []);
  assert.deepEqual(await ids('case_uploaded', a.createdMs - 1), [], 'a webhook gets only changes made after it was created');
  assert.deepEqual(await store.webhooks.subscribers('dictionary_uploaded', now), [{ id: c.id, lastEventUs: 0 }]);

  await store.webhooks.update(b.id, input('b', ['case_modified']));
  await store.webhooks.update(a.id, input('a', ['case_uploaded'], false));
  assert.deepEqual(await ids('case_uploaded'), [c.id]);
  assert.deepEqual(await ids('case_modified'), [b.id]);

  // A rolled-back update leaves the webhook and its index as they were.
  await assert.rejects(
    store.transaction(async (tx) => {
      await tx.webhooks.update(c.id, input('c', []));
      assert.deepEqual(await tx.webhooks.subscribers('case_uploaded', now), []);
      throw new Error('roll back');
    }),
    /roll back/,
  );
  assert.deepEqual(await ids('case_uploaded'), [c.id]);
  assert.deepEqual((await store.webhooks.get(c.id))!.events, ['case_uploaded', 'dictionary_uploaded']);

  await store.webhooks.delete(c.id);
  assert.deepEqual(await ids('case_uploaded'), []);
  assert.deepEqual(await ids('dictionary_uploaded'), []);
});

testOnBothStores('webhooks: event timestamps are reserved in order', async (store) => {
  const a = await store.webhooks.create(input('a', ['case_uploaded']));
  assert.equal(await store.webhooks.reserveEventUs(a.id, 5_000), 5_000);
  assert.equal(await store.webhooks.reserveEventUs(a.id, 5_000), 5_001, 'just after the last one taken');
  assert.equal(await store.webhooks.reserveEventUs(a.id, 9_000), 9_000);
  assert.equal(await store.webhooks.reserveEventUs(9999, 7_000), 7_000, 'a missing webhook: the time asked for');
  await store.webhooks.setLastEventUs(a.id, 20_000);
  assert.deepEqual(await store.webhooks.subscribers('case_uploaded', Date.now() + 1000), [{ id: a.id, lastEventUs: 20_000 }]);
  assert.equal(await store.webhooks.reserveEventUs(a.id, 10_000), 20_001);

  // Several takers at once each get a time of their own.
  const taken = await Promise.all(Array.from({ length: 8 }, () => store.webhooks.reserveEventUs(a.id, 1)));
  assert.deepEqual(
    [...taken].sort((x, y) => x - y),
    Array.from({ length: 8 }, (_, i) => 20_002 + i),
  );
});
