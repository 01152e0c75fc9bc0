// watchRequestBodies on a plain Node HTTP server: only a client that sends nothing while it
// could is dropped; time the server itself takes never counts (docs/http-api.md, Limits and timeouts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { once } from 'node:events';
import { watchRequestBodies } from '../../../src/http/body-timeout.js';

const BODY_TIMEOUT_MS = 400;

/** Reads the whole body; resolves with its length, or with the code of the error that ended it. */
async function drain(req: IncomingMessage): Promise<number | string> {
  let n = 0;
  try {
    for await (const chunk of req) n += (chunk as Buffer).length;
    return n;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

async function serverWith(
  handler: (req: IncomingMessage) => Promise<number | string>,
  limits: { bodyTimeoutMs: number; requestTimeoutMs: number },
): Promise<{ server: Server; port: number; outcomes: (number | string)[]; stop(): Promise<void> }> {
  const outcomes: (number | string)[] = [];
  const server = createServer((req, res) => {
    void handler(req).then((outcome) => {
      outcomes.push(outcome);
      if (!res.headersSent) res.end(JSON.stringify({ outcome }));
    });
  });
  const unwatch = watchRequestBodies(server, limits);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    server,
    port: (server.address() as AddressInfo).port,
    outcomes,
    async stop() {
      unwatch();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** Sends `head` then `parts` `gapMs` apart; resolves with the reply's status line and body once the server closes or answers. */
function send(port: number, head: string, parts: Buffer[], gapMs: number): Promise<{ status: number | null; body: string; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('connect', async () => {
      socket.write(head);
      for (const p of parts) {
        if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
        if (socket.destroyed) return;
        socket.write(p);
      }
    });
    socket.on('data', (b: Buffer) => chunks.push(b));
    socket.on('error', () => {});
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString();
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : null, body: text.slice(text.indexOf('\r\n\r\n') + 4), ms: Date.now() - started });
    });
  });
}

const head = (length: number) => `POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n`;

test('a handler that waits 4× the body timeout before reading an 8 MB body is not dropped: the bytes waiting for it count as progress', async () => {
  const s = await serverWith(
    async (req) => {
      await new Promise((r) => setTimeout(r, BODY_TIMEOUT_MS * 4));
      return drain(req);
    },
    { bodyTimeoutMs: BODY_TIMEOUT_MS, requestTimeoutMs: 0 },
  );
  try {
    const body = Buffer.alloc(8 * 1024 * 1024, 0x61);
    const r = await send(s.port, head(body.length), [body], 0);
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(JSON.parse(r.body), { outcome: body.length });
    assert.ok(r.ms >= BODY_TIMEOUT_MS * 4);
  } finally {
    await s.stop();
  }
});

test('a body that stops arriving: 408 REQUEST_TIMEOUT after the body timeout, and the handler reading it gets the error instead of waiting for ever', async () => {
  const s = await serverWith(drain, { bodyTimeoutMs: BODY_TIMEOUT_MS, requestTimeoutMs: 0 });
  try {
    const r = await send(s.port, head(1000), [Buffer.from('only a few bytes')], 0);
    assert.equal(r.status, 408, r.body);
    assert.equal(JSON.parse(r.body).error, 'REQUEST_TIMEOUT');
    assert.ok(r.ms >= BODY_TIMEOUT_MS && r.ms < BODY_TIMEOUT_MS + 2000, `after ${r.ms} ms`);
    for (let i = 0; i < 100 && s.outcomes.length === 0; i++) await new Promise((res) => setTimeout(res, 20));
    assert.deepEqual(s.outcomes, ['REQUEST_TIMEOUT']);
  } finally {
    await s.stop();
  }
});

test('request timeout 0 is no limit: a body trickling for 5× the body timeout, never idle that long, is read whole', async () => {
  const s = await serverWith(drain, { bodyTimeoutMs: BODY_TIMEOUT_MS, requestTimeoutMs: 0 });
  try {
    const parts = Array.from({ length: 20 }, () => Buffer.from('0123456789'));
    const r = await send(s.port, head(200), parts, 100);
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(JSON.parse(r.body), { outcome: 200 });
    assert.ok(r.ms >= BODY_TIMEOUT_MS * 4);
  } finally {
    await s.stop();
  }
});

test('a request timeout cuts a body that trickles past it, with 408 naming that limit', async () => {
  const s = await serverWith(drain, { bodyTimeoutMs: BODY_TIMEOUT_MS, requestTimeoutMs: 800 });
  try {
    const parts = Array.from({ length: 30 }, () => Buffer.from('x'));
    const r = await send(s.port, head(100), parts, 100);
    assert.equal(r.status, 408, r.body);
    assert.match(JSON.parse(r.body).message, /not complete 800 ms after its headers/);
    assert.ok(r.ms >= 800 && r.ms < 2800, `after ${r.ms} ms`);
  } finally {
    await s.stop();
  }
});
