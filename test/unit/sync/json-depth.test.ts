import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonDepthScanner, jsonDepthExceeded } from '../../../src/shared/json-depth.js';
import { parseJsonArrayBatches } from '../../../src/sync/json-array-splitter.js';
import { AppError } from '../../../src/shared/errors.js';

test('depth scan: counts brackets of arrays and objects, not those inside strings or after escapes', () => {
  assert.equal(jsonDepthExceeded('[{"a":[1,{"b":[]}]}]', 5), -1);
  assert.equal(jsonDepthExceeded('[{"a":[1,{"b":[]}]}]', 4), 14);
  assert.equal(jsonDepthExceeded(Buffer.from('[{"a":[1,{"b":[]}]}]'), 4), 14);
  // Brackets in strings, escaped quotes and escaped backslashes before a closing quote.
  assert.equal(jsonDepthExceeded('["[[[[", "\\"[[[[", "\\\\", "x"]', 1), -1);
  assert.equal(jsonDepthExceeded('["\\\\"[[', 2), 6);
  assert.equal(jsonDepthExceeded('{"level-1":"{\\"id\\":{}}"}', 1), -1);
  assert.equal(jsonDepthExceeded('[[]]', 1), 1);
});

test('depth scan: the state carries over chunk boundaries, also a backslash run split between chunks', () => {
  const text = '["ab\\\\\\"[[[", [[["x\\\\"]]]]';
  for (let cut = 1; cut < text.length; cut++) {
    const s = new JsonDepthScanner(4);
    const a = s.push(Buffer.from(text.slice(0, cut)));
    const b = s.push(Buffer.from(text.slice(cut)));
    assert.equal(a, -1, `cut ${cut}`);
    assert.equal(b, -1, `cut ${cut}`);
    const deep = new JsonDepthScanner(3);
    const first = deep.push(Buffer.from(text.slice(0, cut)));
    const second = deep.push(Buffer.from(text.slice(cut)));
    assert.equal(first >= 0 ? first : second, text.indexOf('[[["x') + 2, `cut ${cut}`);
  }
});

test('depth scan: a Buffer inside a larger one, and a plain Uint8Array, read only their own bytes', () => {
  // The scan reads a Buffer through a plain Uint8Array view of its bytes (bench/README.md,
  // "The depth scan"): the view must start and end where the Buffer does, not at its memory's.
  const backing = Buffer.from('[[[[[[' + '[{"a":[1]}]' + ']]]]]]');
  const inner = backing.subarray(6, 6 + '[{"a":[1]}]'.length);
  assert.ok(inner.byteOffset > 0 || inner.buffer.byteLength > inner.length, 'a view inside a larger memory');
  for (const bytes of [inner, new Uint8Array(inner)]) {
    assert.equal(new JsonDepthScanner(3).push(bytes), -1);
    assert.equal(new JsonDepthScanner(2).push(bytes), 6);
  }
  const s = new JsonDepthScanner(2);
  assert.equal(s.push(new Uint8Array(Buffer.from('[{"a":'))), -1);
  assert.equal(s.push(Buffer.from('[1]}]')), 6, 'offsets count on across kinds of chunk');
});

async function errorOf(it: AsyncIterable<unknown>): Promise<unknown> {
  try {
    for await (const _ of it) void _;
  } catch (err) {
    return err;
  }
  return undefined;
}

async function* chunks(buf: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

test('parseJsonArrayBatches: a body nested past the limit is JSON_TOO_DEEP before it is parsed, on the whole and the split path', async () => {
  const deep = Buffer.from('[' + '['.repeat(5_000_000));
  const before = process.memoryUsage().rss;
  for (const wholeLimit of [16 * 1024 * 1024, 1000]) {
    const err = await errorOf(parseJsonArrayBatches(chunks(deep, 65536), wholeLimit, 64));
    assert.ok(err instanceof AppError && err.code === 'JSON_TOO_DEEP', String(err));
    assert.equal(err.details.offset, 64);
    assert.equal(err.details.limit, 64);
  }
  // Refused at the first chunk: nothing near the 500 MB JSON.parse would build.
  assert.ok(process.memoryUsage().rss - before < 100 * 1024 * 1024);
  // Within the limit the body parses as before.
  const ok = '[' + '[1,'.repeat(30) + '2' + ']'.repeat(30) + ']';
  const batches: unknown[][] = [];
  for await (const b of parseJsonArrayBatches(chunks(Buffer.from(ok), 7), undefined, 64)) batches.push(b);
  assert.equal(batches.length, 1);
});

test('depth scan: a text with few brackets and one with many answer as a full scan does, for strings and bytes', () => {
  // The reference: the state machine itself, one character at a time.
  const reference = (text: string, limit: number): number => {
    let depth = 0;
    let inString = false;
    let escaped = false;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (escaped) escaped = false;
        else if (c === '\\') escaped = true;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '[' || c === '{') {
        if (++depth > limit) return i;
      } else if (c === ']' || c === '}') depth -= 1;
    }
    return -1;
  };
  const parts = ['[', ']', '{', '}', '"', '\\', 'a', ',', '"[{"', '"\\"["'];
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let k = 0; k < 2000; k++) {
    let text = '';
    const n = Math.floor(random() * 40);
    for (let i = 0; i < n; i++) text += parts[Math.floor(random() * parts.length)];
    for (const limit of [1, 2, 3, 5, 8]) {
      const want = reference(text, limit);
      assert.equal(jsonDepthExceeded(text, limit), want, `${JSON.stringify(text)} limit ${limit}`);
      assert.equal(jsonDepthExceeded(Buffer.from(text), limit), want, `${JSON.stringify(text)} limit ${limit} (bytes)`);
      const cut = Math.floor(random() * (text.length + 1));
      const chunked = new JsonDepthScanner(limit);
      const first = chunked.push(Buffer.from(text.slice(0, cut)));
      const found = first >= 0 ? first : chunked.push(Buffer.from(text.slice(cut)));
      assert.equal(found, want, `${JSON.stringify(text)} limit ${limit} cut at ${cut}`);
      // A text scan answers offsets within its own text: only the first part's is comparable.
      assert.equal(
        new JsonDepthScanner(limit).pushText(text.slice(0, cut)),
        want < cut ? want : -1,
        `${JSON.stringify(text)} cut ${cut} (text)`,
      );
    }
  }
  // Exactly the limit of openings, all inside strings or at depth 1: no bracket is past it.
  assert.equal(jsonDepthExceeded('["[[[", {}]', 4), -1);
  assert.equal(jsonDepthExceeded('["[[[", {}]', 1), 8);
});
