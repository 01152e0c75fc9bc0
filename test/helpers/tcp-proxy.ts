import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on a loopback port forwarding to `target` (the shared test PostgreSQL), which a
 * test cuts to make the store's server unreachable for the processes behind it, without touching
 * the server itself (docs/production.md#while-the-primary-is-away).
 */
export interface TcpProxy {
  port: number;
  /**
   * `refuse`: every connection is reset and new ones are refused (a server that is down).
   * `blackhole`: every connection is reset, new ones are accepted and never answered (a host or
   * link that is down: nothing comes back).
   */
  cut(mode: 'refuse' | 'blackhole'): Promise<void>;
  /** Forwards again, on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Copies `from` to `to`, each chunk `latencyMs` after it arrived, in order: a link with that
 * one-way delay (a slow or distant database), every round trip `2 × latencyMs` longer.
 */
function forwardLate(from: Socket, to: Socket, latencyMs: number): void {
  let last = Promise.resolve();
  const later = (fn: () => void) => {
    const at = Date.now() + latencyMs;
    last = last
      .then(() => new Promise<void>((r) => setTimeout(r, Math.max(0, at - Date.now()))))
      .then(() => {
        if (!to.destroyed) fn();
      });
  };
  from.on('data', (chunk: Buffer) => later(() => to.write(chunk)));
  from.once('end', () => later(() => to.end()));
}

/**
 * Starts a proxy to `targetHost:targetPort` on a free loopback port; with `latencyMs`, each
 * direction delivers its bytes that much later.
 */
export async function startTcpProxy(targetPort = 5432, targetHost = '127.0.0.1', opts: { latencyMs?: number } = {}): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let mode: 'forward' | 'blackhole' = 'forward';
  const track = (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  const makeServer = (): Server =>
    createServer((client) => {
      track(client);
      if (mode === 'blackhole') return;
      const upstream = connect(targetPort, targetHost);
      track(upstream);
      if (opts.latencyMs) {
        forwardLate(client, upstream, opts.latencyMs);
        forwardLate(upstream, client, opts.latencyMs);
      } else {
        client.pipe(upstream);
        upstream.pipe(client);
      }
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
  const listen = (s: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve((s.address() as { port: number }).port));
    });
  let server: Server | undefined = makeServer();
  const port = await listen(server, 0);
  const closeServer = async () => {
    if (!server) return;
    const s = server;
    server = undefined;
    for (const sock of sockets) sock.resetAndDestroy();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  return {
    port,
    async cut(to) {
      await closeServer();
      if (to === 'blackhole') {
        mode = 'blackhole';
        server = makeServer();
        await listen(server, port);
      }
    },
    async restore() {
      await closeServer();
      mode = 'forward';
      server = makeServer();
      await listen(server, port);
    },
    close: closeServer,
  };
}
