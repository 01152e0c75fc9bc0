// The load (docs/limits.md#memory-of-uploads-in-flight): 40 Standard accounts each upload,
// all at once, one case with 62 MB of notes (about 180 KB compressed, inside every other limit)
// to a real `sds serve` with the default limits. Without the budget that took the server past
// 2 GB resident. Now its peak resident memory (VmHWM) stays under the documented bound; every
// upload is either stored (200) or refused whole (503 SERVER_BUSY with Retry-After, its case not
// stored), and a refused one is stored when sent again. Two are sent again, not all 38: each
// stored case is 62 MB written to the store, and the budget's release is what the retry shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { constants, createDeflate } from 'node:zlib';
import { addUser } from '../../../src/core/auth/users.js';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { DEFAULT_LIMITS } from '../../../src/core/home/limits.js';
import { openStore } from '../../../src/store/open-store.js';
import { startServe } from '../../helpers/serve-process.js';
import { popstanCases } from '../../helpers/sync-client.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';

const ACCOUNTS = 40;
const NOTES = 1000;
const NOTE_CHARS = 62_000;
const MIB = 1024 * 1024;
/** docs/limits.md#memory-of-uploads-in-flight: resident memory stays under 300 MiB plus the budget. */
const BOUND = 300 * MIB + DEFAULT_LIMITS.uploadMemoryBytes;
const PASSWORD = 'standard-pass-1';

/** Peak resident memory of a process, in bytes (VmHWM of /proc/<pid>/status). */
function peakRss(pid: number): number {
  const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  assert.ok(kb, 'VmHWM in /proc/<pid>/status');
  return Number(kb[1]) * 1024;
}

/** `parts` as one zlib stream, as the client compresses a body. */
function zlib(parts: Buffer[]): Promise<Buffer> {
  // Run-length matching: the bytes are the same zlib format as the client's level 9, made faster.
  const z = createDeflate({ strategy: constants.Z_RLE });
  const out: Buffer[] = [];
  z.on('data', (b: Buffer) => out.push(b));
  const done = new Promise<Buffer>((resolve, reject) => {
    z.once('end', () => resolve(Buffer.concat(out)));
    z.once('error', reject);
  });
  for (const p of parts) z.write(p);
  z.end();
  return done;
}

test('40 uploads of 62 MB of notes at once: peak memory under the bound, each stored whole or refused whole with Retry-After, a refused one stored when sent again', async (t) => {
  const home = await tempHome();
  const setup = await openStore(home);
  const file = fixture('popstan-census.json.dcf');
  const dict = (await uploadDictionary(setup, { source: readFileSync(file), label: 'popstan', file })).name;
  const users = Array.from({ length: ACCOUNTS }, (_, i) => `interviewer${i}`);
  await Promise.all(users.map((u) => addUser(setup, u, 'Standard User', PASSWORD)));
  await setup.close();
  const server = await startServe(home.root);
  try {
    const tokens: string[] = [];
    for (const username of users) {
      const r = await fetch(`${server.url}/api/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'password', username, password: PASSWORD }),
      });
      assert.equal(r.status, 200, await r.clone().text());
      tokens.push(((await r.json()) as { access_token: string }).access_token);
    }

    // One case per account: a Popstan case with 1,000 notes of 62,000 characters (each under
    // note_chars, 65,535; 62 MB of JSON, under request_bytes, 64 MiB).
    const [base] = popstanCases(1, 'tablet');
    const note = { field: { name: 'P03_SEX', levelKey: '', recordOccurrence: 1, itemOccurrence: 1, subitemOccurrence: 0 } };
    const one = Buffer.from(
      JSON.stringify({ ...note, operatorId: 'op1', modifiedTime: '2024-03-01T10:00:00Z', content: 'n'.repeat(NOTE_CHARS) }),
    );
    const notes = Buffer.concat(Array.from({ length: NOTES }, (_, i) => (i === 0 ? one : Buffer.concat([Buffer.from(','), one]))));
    const uploads: { id: string; device: string; token: string; body: Buffer; json: number }[] = [];
    for (const [i, token] of tokens.entries()) {
      const id = randomUUID();
      const device = `tablet-${i}`;
      const head = JSON.stringify({ ...base!, id, clock: [{ deviceId: device, revision: 1 }] });
      const parts = [Buffer.from(`[${head.slice(0, -1)},"notes":[`), notes, Buffer.from(']}]')];
      uploads.push({ id, device, token, body: await zlib(parts), json: parts.reduce((n, p) => n + p.length, 0) });
    }
    const json = uploads[0]!.json;
    assert.ok(json > 62_000_000 && json < DEFAULT_LIMITS.requestBytes, `${json} bytes of JSON`);
    assert.ok(uploads[0]!.body.length < 256 * 1024, `${uploads[0]!.body.length} bytes compressed`);

    const send = (u: (typeof uploads)[number]) =>
      fetch(`${server.url}/api/dictionaries/${dict}/cases`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${u.token}`,
          'user-agent': 'CSPro sync client/8.0',
          'x-csw-device': u.device,
          'content-type': 'application/json; charset=utf-8',
          'content-encoding': 'gzip',
        },
        body: u.body,
      });
    const storedIds = async (): Promise<Set<string>> => {
      const r = await fetch(`${server.url}/api/dictionaries/${dict}/cases?limit=100`, {
        headers: { authorization: `Bearer ${tokens[0]}` },
      });
      assert.equal(r.status, 200);
      return new Set(((await r.json()) as { data: { guid: string }[] }).data.map((c) => c.guid));
    };

    const first = await Promise.all(
      uploads.map(async (u) => {
        const r = await send(u);
        return { u, status: r.status, retryAfter: r.headers.get('retry-after'), text: await r.text() };
      }),
    );
    const ok = first.filter((f) => f.status === 200);
    const busy = first.filter((f) => f.status === 503);
    assert.deepEqual(
      first.filter((f) => f.status !== 200 && f.status !== 503).map((f) => `${f.status} ${f.text}`),
      [],
      'every upload is stored or refused as busy',
    );
    assert.ok(ok.length > 0, 'some uploads are stored at once');
    assert.ok(busy.length > 0, 'the budget refused some uploads');
    for (const f of busy) {
      assert.equal(f.retryAfter, '5');
      const body = JSON.parse(f.text) as { error: string; retry_after: number };
      assert.equal(body.error, 'SERVER_BUSY');
      assert.equal(body.retry_after, 5);
    }
    // Stored whole or not at all: exactly the acknowledged cases are in the store.
    assert.deepEqual([...(await storedIds())].sort(), ok.map((f) => f.u.id).sort());

    // Sent again once the others are done, a refused upload is stored.
    const retried = busy.slice(0, 2);
    for (const f of retried) {
      const r = await send(f.u);
      assert.equal(r.status, 200, await r.text());
    }
    const peak = peakRss(server.child.pid!);
    t.diagnostic(
      `${ok.length} stored at once, ${busy.length} refused as busy, ${retried.length} of them stored when sent again; peak resident memory ${Math.round(peak / MIB)} MiB`,
    );
    assert.ok(peak < BOUND, `peak resident memory ${Math.round(peak / MIB)} MiB, over the bound of ${BOUND / MIB} MiB`);
    assert.deepEqual([...(await storedIds())].sort(), [...ok, ...retried].map((f) => f.u.id).sort());

    // A case read back is the one sent, every note whole.
    const back = await fetch(`${server.url}/api/dictionaries/${dict}/cases/${busy[0]!.u.id}`, {
      headers: { authorization: `Bearer ${tokens[0]}`, 'user-agent': 'CSPro sync client/8.0' },
    });
    assert.equal(back.status, 200);
    const c = (await back.json()) as { id: string; notes: { content: string }[] };
    assert.equal(c.id, busy[0]!.u.id);
    assert.equal(c.notes.length, NOTES);
    assert.ok(c.notes.every((n) => n.content === 'n'.repeat(NOTE_CHARS)));
    assert.doesNotMatch(server.errors(), /internal error/);
  } finally {
    await server.stop();
    await home.cleanup();
  }
});
