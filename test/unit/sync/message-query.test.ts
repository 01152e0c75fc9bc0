/** What a read of the kept sync messages may ask (docs/sync.md#messages): the pure check of its options. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_MESSAGES_LIMIT, parseSyncMessageQuery } from '../../../src/core/sync/index.js';
import { AppError } from '../../../src/shared/errors.js';

test('no options: every message, the first 100', () => {
  assert.deepEqual(parseSyncMessageQuery({}), { filter: {}, limit: 100, offset: 0 });
});

test('filters and paging are read from text (a query, flags) or numbers', () => {
  assert.deepEqual(
    parseSyncMessageQuery({
      since: '2025-01-31T08:00:00Z',
      device: 'tablet-07',
      name: 'status',
      limit: '20',
      offset: '40',
      before: '4211',
    }),
    { filter: { since: '2025-01-31T08:00:00.000Z', device: 'tablet-07', name: 'status', before: 4211 }, limit: 20, offset: 40 },
  );
  assert.deepEqual(parseSyncMessageQuery({ limit: MAX_MESSAGES_LIMIT, offset: 0, before: 1 }), {
    filter: { before: 1 },
    limit: 1000,
    offset: 0,
  });
});

test('since: any ISO 8601 form, normalised to the stored UTC form; no zone is UTC, not the machine’s', () => {
  const since = (s: string) => parseSyncMessageQuery({ since: s }).filter.since;
  assert.equal(since('2025-01-31'), '2025-01-31T00:00:00.000Z');
  assert.equal(since('2025-01-31T08:00'), '2025-01-31T08:00:00.000Z');
  assert.equal(since('2025-01-31 08:00:00'), '2025-01-31T08:00:00.000Z');
  assert.equal(since('2025-01-31T08:00:00.5+02:00'), '2025-01-31T06:00:00.500Z');
  assert.equal(since('2025-01-31T08:00:00-0130'), '2025-01-31T09:30:00.000Z');
});

test('bad values are USAGE naming the field (the CLI adds its flag)', () => {
  const refused = (opts: Record<string, unknown>, field: string, message: RegExp) =>
    assert.throws(
      () => parseSyncMessageQuery(opts),
      (e: unknown) =>
        e instanceof AppError &&
        e.code === 'USAGE' &&
        e.details.field === field &&
        (e.details.settings as string[])[0] === field &&
        message.test(e.message),
    );
  refused({ limit: '1001' }, 'limit', /^limit must be a whole number from 1 to 1000; got "1001"$/);
  refused({ limit: '0' }, 'limit', /from 1 to 1000/);
  refused({ limit: 'ten' }, 'limit', /got "ten"/);
  refused({ limit: 2.5 }, 'limit', /got "2.5"/);
  refused({ offset: '-1' }, 'offset', /^offset must be a whole number 0 or more; got "-1"$/);
  refused({ before: '0' }, 'before', /^before \(a message id\) must be a whole number 1 or more/);
  refused({ since: 'yesterday' }, 'since', /^since must be an ISO 8601 time such as 2025-01-31T08:00:00Z; got "yesterday"$/);
  refused({ since: '2025-13-45' }, 'since', /got "2025-13-45"/);
  refused({ since: '' }, 'since', /ISO 8601/);
  refused({ device: '' }, 'device', /^device must be a non-empty text/);
  refused({ name: '' }, 'name', /^name must be a non-empty text/);
});
