import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonArrayError, JsonArraySplitter, parseJsonArray, parseJsonArrayBatches } from '../../../src/sync/json-array-splitter.js';

/** Feeds `body` to a splitter in pieces cut at `cuts` (byte offsets); returns the element texts. */
function split(body: Buffer | string, cuts: number[] = []): string[] {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const s = new JsonArraySplitter();
  const out: string[] = [];
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    out.push(...s.push(bytes.subarray(from, at)).map((e) => e.text));
    from = at;
  }
  s.end();
  return out;
}

function failure(body: string, cuts: number[] = []): JsonArrayError {
  try {
    split(body, cuts);
  } catch (err) {
    assert.ok(err instanceof JsonArrayError, String(err));
    return err;
  }
  assert.fail(`no error for ${JSON.stringify(body)}`);
}

async function* chunksOf(body: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(body, 'utf8');
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

test('splitter: strings holding brackets, braces, commas and escaped quotes do not end an element', () => {
  const a = { s: 'a ] } , [ { "quoted" \\ back\\"slash', n: [1, [2, { x: '}' }]] };
  const b = { 'level-1': JSON.stringify({ PERSON: [{ NAME: 'Ann "A]" \\' }] }) };
  const body = JSON.stringify([a, b, '"]', 12.5e3, -1, true, null, []]);
  const texts = split(body);
  assert.deepEqual(
    texts.map((t) => JSON.parse(t)),
    [a, b, '"]', 12.5e3, -1, true, null, []],
  );
  // Cut at every byte: the same elements, whatever the chunking.
  const everyByte = Array.from({ length: Buffer.byteLength(body) - 1 }, (_, i) => i + 1);
  assert.deepEqual(split(body, everyByte), texts);
});

test('splitter: a UTF-8 character cut across chunks is decoded whole', () => {
  const body = JSON.stringify([{ name: 'Zoë 𝄞 ñ' }, 'é']);
  const bytes = Buffer.from(body, 'utf8');
  const inside = bytes.indexOf(Buffer.from('𝄞', 'utf8')) + 2; // in the middle of a 4-byte character
  const e = bytes.indexOf(Buffer.from('é', 'utf8')) + 1; // between the 2 bytes of é
  const texts = split(bytes, [bytes.indexOf(0xc3) + 1, inside, e]);
  assert.deepEqual(
    texts.map((t) => JSON.parse(t)),
    [{ name: 'Zoë 𝄞 ñ' }, 'é'],
  );
  assert.ok(!texts.join('').includes('\uFFFD'));
});

test('splitter: a byte-order mark and whitespace (CRLF, tabs) around elements are accepted', () => {
  const body = '\uFEFF \r\n\t[ \r\n {"a":1}\t,\r\n  2 ,"x"\r\n ] \r\n';
  assert.deepEqual(split(body), ['{"a":1}', '2', '"x"']);
  // The BOM itself split across chunks.
  assert.deepEqual(split(body, [1, 2]), ['{"a":1}', '2', '"x"']);
  assert.deepEqual(split('[]'), []);
  assert.deepEqual(split(' [ ] '), []);
});

test('splitter: elements report their index and starting byte offset', () => {
  const s = new JsonArraySplitter();
  const got = s.push(Buffer.from('[{"a":1}, 22]'));
  assert.deepEqual(got, [
    { index: 0, offset: 1, text: '{"a":1}' },
    { index: 1, offset: 10, text: '22' },
  ]);
});

test('splitter: malformed structure is an error naming the element and the byte offset', () => {
  let e = failure('[{"a":1} {"b":2}]');
  assert.equal(e.index, 1);
  assert.equal(e.offset, 9);
  assert.match(e.message, /expected "," or "]" after element 0, found "\{"/);

  e = failure('[{"a":1},]');
  assert.equal(e.index, 1);
  assert.match(e.message, /expected an element after ","/);

  e = failure('[,1]');
  assert.equal(e.index, 0);
  assert.match(e.message, /found ","/);

  e = failure('{"a":1}');
  assert.equal(e.offset, 0);
  assert.match(e.message, /expected "\[" to open the array/);

  e = failure('[1] x');
  assert.equal(e.offset, 4);
  assert.match(e.message, /after the closing "\]"/);

  e = failure('[{"a":1}, {"id": "x', [12]);
  assert.equal(e.index, 1);
  assert.match(e.message, /ends inside element 1/);

  e = failure('[{"a":1}');
  assert.match(e.message, /before the closing "\]"/);

  assert.match(failure('').message, /empty/);
  // Half a BOM is not a BOM.
  assert.match(failure('\u00EF[1]').message, /expected "\["/);
});

test('parseJsonArray: each element parsed as it completes; an invalid element names its index', async () => {
  const values: unknown[] = [];
  for await (const v of parseJsonArray(chunksOf(JSON.stringify([{ a: [1, 2] }, 'b', 3]), 3))) values.push(v);
  assert.deepEqual(values, [{ a: [1, 2] }, 'b', 3]);

  const seen: unknown[] = [];
  await assert.rejects(
    (async () => {
      for await (const v of parseJsonArray(chunksOf('[{"a":1}, {"b":tru}, {"c":3}]', 4))) seen.push(v);
    })(),
    (err: unknown) =>
      err instanceof JsonArrayError &&
      err.index === 1 &&
      err.offset === 10 &&
      /element 1 \(from byte 10\) is not valid JSON/.test(err.message),
  );
  assert.deepEqual(seen, [{ a: 1 }], 'the elements before the bad one were handed over');
});

async function collect(it: AsyncIterable<unknown[]>): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const b of it) out.push(b);
  return out;
}

async function errorOf(it: AsyncIterable<unknown>): Promise<JsonArrayError> {
  try {
    for await (const _ of it) void _;
  } catch (err) {
    assert.ok(err instanceof JsonArrayError, String(err));
    return err;
  }
  assert.fail('no error');
}

test('parseJsonArrayBatches: a body within the limit is one JSON.parse; a larger one is split into batches of 500', async () => {
  const values = Array.from({ length: 1201 }, (_, k) => ({ k, s: `é${k}` }));
  const text = '\uFEFF ' + JSON.stringify(values) + '\n';
  const whole = await collect(parseJsonArrayBatches(chunksOf(text, 4096)));
  assert.equal(whole.length, 1, 'one batch');
  assert.deepEqual(whole[0], values);
  const split = await collect(parseJsonArrayBatches(chunksOf(text, 4096), 10_000));
  assert.deepEqual(
    split.map((b) => b.length),
    [500, 500, 201],
  );
  assert.deepEqual(split.flat(), values);
  assert.deepEqual(await collect(parseJsonArrayBatches(chunksOf('[]', 1))), []);
});

test('parseJsonArrayBatches: a broken body fails as the streaming split does, naming the same element and byte', async () => {
  for (const body of ['[{"a":1}, {"b":tru}, {"c":3}]', '{"a":1}', '[1,2', '[1] 2', '[1 2]']) {
    const streamed = await errorOf(parseJsonArray(chunksOf(body, 4)));
    for (const limit of [undefined, 3]) {
      const batched = await errorOf(parseJsonArrayBatches(chunksOf(body, 4), limit));
      assert.deepEqual(
        [batched.message, batched.index, batched.offset],
        [streamed.message, streamed.index, streamed.offset],
        `${body} (limit ${limit})`,
      );
    }
  }
});
