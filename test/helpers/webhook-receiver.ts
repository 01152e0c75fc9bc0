import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a receiver got: headers (lower-case) and the exact body bytes. */
export interface Received {
  headers: Record<string, string>;
  body: Buffer;
  json: any;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Resolves once `n` requests have arrived. */
  waitFor(n: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that records every request and answers with `answer(i)`: a
 * status, or 'hold' to never answer (the connection stays open until close). `port` brings a
 * receiver up at a known address (one that refused connections before, say); default any free port.
 */
export async function startReceiver(
  answer: (index: number, r: Received) => number | 'hold' = () => 200,
  opts: { port?: number } = {},
): Promise<Receiver> {
  const received: Received[] = [];
  const held: ServerResponse[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
      let json: unknown;
      try {
        json = JSON.parse(body.toString('utf8'));
      } catch {
        json = undefined;
      }
      const r = { headers, body, json };
      const i = received.push(r) - 1;
      for (const w of waiters.filter((w) => received.length >= w.n)) w.resolve();
      const a = answer(i, r);
      if (a === 'hold') held.push(res);
      else res.writeHead(a, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    waitFor: (n) => (received.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    close: () =>
      new Promise((resolve) => {
        for (const res of held) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port with nothing listening: connections are refused. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hook`;
}
