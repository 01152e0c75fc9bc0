/** When a breakout saves its cursor (src/breakout/cursor-saver.ts), with an injected clock. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CURSOR_SAVING, CursorSaver } from '../../../src/breakout/cursor-saver.js';

const at = (n: number) => ({ revision: n, guid: `g${n}` });

function saverWith(every: { everyPages?: number; everyMs?: number }) {
  let ms = 0;
  const events: string[] = [];
  const saver = new CursorSaver({ every, now: () => new Date(ms), save: (c) => events.push(`save ${c.revision}`) });
  const makeDurable = async () => {
    events.push('durable');
  };
  return { saver, events, makeDurable, tick: (d: number) => (ms += d) };
}

test('defaults: every 50 pages or 1 s', () => {
  assert.deepEqual(CURSOR_SAVING, { everyPages: 50, everyMs: 1000 });
});

test('page rule: due after everyPages contiguous pages, saved after makeDurable', async () => {
  const { saver, events, makeDurable } = saverWith({ everyPages: 3, everyMs: 60_000 });
  assert.equal(saver.due(), false);
  saver.pageCommitted(0, at(10));
  saver.pageCommitted(1, at(20));
  assert.equal(saver.due(), false);
  saver.pageCommitted(2, at(30));
  assert.equal(saver.due(), true);
  await saver.save(makeDurable);
  assert.deepEqual(events, ['durable', 'save 30']);
  assert.equal(saver.due(), false);
});

test('time rule: due once everyMs passed since the last save and a page waits', async () => {
  const { saver, events, makeDurable, tick } = saverWith({ everyPages: 1000, everyMs: 1000 });
  tick(5000);
  assert.equal(saver.due(), false, 'nothing committed: nothing to save whatever the time');
  saver.pageCommitted(0, at(1));
  assert.equal(saver.due(), true);
  await saver.save(makeDurable);
  saver.pageCommitted(1, at(2));
  tick(999);
  assert.equal(saver.due(), false);
  tick(1);
  assert.equal(saver.due(), true);
  await saver.save(makeDurable);
  assert.deepEqual(events, ['durable', 'save 1', 'durable', 'save 2']);
});

test('out-of-order pages: only the contiguous prefix counts and is covered', async () => {
  const { saver, events, makeDurable } = saverWith({ everyPages: 2, everyMs: 60_000 });
  saver.pageCommitted(1, at(20));
  saver.pageCommitted(2, at(30));
  assert.equal(saver.due(), false, 'page 0 is not committed yet');
  await saver.save(makeDurable);
  assert.deepEqual(events, [], 'nothing is saved before page 0 commits');
  saver.pageCommitted(0, at(10));
  assert.equal(saver.due(), true);
  await saver.save(makeDurable);
  assert.deepEqual(events, ['durable', 'save 30']);
});

test('saves run one at a time; each covers what was committed when it started', async () => {
  const events: string[] = [];
  const saver = new CursorSaver({ every: { everyPages: 1 }, now: () => new Date(0), save: (c) => events.push(`save ${c.revision}`) });
  let release!: () => void;
  const slow = () => new Promise<void>((r) => (release = () => (events.push('durable 1'), r())));
  saver.pageCommitted(0, at(1));
  const first = saver.save(slow);
  await Promise.resolve();
  // Page 1 commits while the first save's fsync is in flight: it is not covered by that save.
  saver.pageCommitted(1, at(2));
  const second = saver.save(async () => void events.push('durable 2'));
  release();
  await Promise.all([first, second]);
  assert.deepEqual(events, ['durable 1', 'save 1', 'durable 2', 'save 2']);
});

test('the end save covers every page and a cursor past them; a failed makeDurable saves nothing', async () => {
  const { saver, events, makeDurable } = saverWith({ everyPages: 50 });
  saver.pageCommitted(0, at(1));
  await assert.rejects(
    saver.save(async () => Promise.reject(new Error('disk gone'))),
    /disk gone/,
  );
  assert.deepEqual(events, []);
  await saver.save(makeDurable, at(99));
  assert.deepEqual(events, ['durable', 'save 99']);
});
