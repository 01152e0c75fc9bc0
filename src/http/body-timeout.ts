import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AppError } from '../shared/errors.js';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';

interface Watched {
  res: ServerResponse;
  socket: Socket;
  /** When the headers were read: the request timeout counts from here. */
  started: number;
  /** socket.bytesRead when last seen moving. */
  bytes: number;
  /** When bytes last arrived, or the server last had unread body bytes waiting. */
  progress: number;
}

/** Requests that the body or request timeout dropped: their handler's later failure is not the client leaving. */
const dropped = new WeakSet<IncomingMessage>();

/** True when `req` was dropped with 408 by the body or request timeout. */
export function droppedForTimeout(req: IncomingMessage | undefined): boolean {
  return req !== undefined && dropped.has(req);
}

/**
 * Watches the bodies of the requests of `server`: a body that has had no byte for `bodyTimeoutMs`
 * while the server waits for one, or that is not complete `requestTimeoutMs` after the headers
 * (0: no limit), is dropped. When nothing has been answered yet, the client gets 408
 * `REQUEST_TIMEOUT` with `Connection: close`; then the connection is closed, which ends the
 * handler's read of the body as if the client had left. Time spent by the server itself (body
 * bytes already received and not yet read, a handler working before it reads) never counts: only
 * a client that sends nothing while it could. Returns a function that stops the watch.
 */
export function watchRequestBodies(
  server: Server,
  opts: { bodyTimeoutMs: number; requestTimeoutMs: number; now?: () => number },
): () => void {
  const now = opts.now ?? Date.now;
  const watched = new Map<IncomingMessage, Watched>();
  const shortest = Math.min(opts.bodyTimeoutMs, opts.requestTimeoutMs || Infinity);
  // A check a quarter of the shortest limit apart (between 25 ms and 1 s) drops a stalled body
  // within 25 % of its limit, and costs one pass over the open requests per period.
  const period = Math.max(25, Math.min(1000, Math.floor(shortest / 4)));

  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (req.complete) return;
    const t = now();
    watched.set(req, { res, socket: req.socket, started: t, bytes: req.socket.bytesRead, progress: t });
    const forget = () => watched.delete(req);
    res.once('finish', forget);
    res.once('close', forget);
  };

  const sweep = () => {
    const t = now();
    for (const [req, w] of watched) {
      if (req.complete || w.socket.destroyed || w.res.writableEnded) {
        watched.delete(req);
        continue;
      }
      const bytes = w.socket.bytesRead;
      if (bytes !== w.bytes || req.readableLength > 0) {
        w.bytes = bytes;
        w.progress = t;
      }
      const stalled = t - w.progress >= opts.bodyTimeoutMs;
      const late = opts.requestTimeoutMs > 0 && t - w.started >= opts.requestTimeoutMs;
      if (!stalled && !late) continue;
      watched.delete(req);
      drop(
        req,
        w,
        stalled
          ? `no byte of the request body arrived for ${opts.bodyTimeoutMs} ms`
          : `the request body was not complete ${opts.requestTimeoutMs} ms after its headers`,
      );
    }
  };

  const timer = setInterval(sweep, period);
  timer.unref();
  server.on('request', onRequest);
  return () => {
    clearInterval(timer);
    server.off('request', onRequest);
    watched.clear();
  };
}

function drop(req: IncomingMessage, w: Watched, why: string): void {
  dropped.add(req);
  const { res, socket } = w;
  const message = `${why}; the request was dropped and the connection is closed`;
  // Once the connection is closed, end the body for whoever reads it (busboy, the sync reader,
  // Hono's body): Node no longer does it for a request whose reply is already written.
  socket.once('close', () => {
    if (!req.destroyed) req.destroy(new AppError('REQUEST_TIMEOUT', message));
  });
  // Cut it for good if the 408 cannot be flushed (a client that reads nothing either).
  setTimeout(() => socket.destroy(), 1000).unref();
  if (res.headersSent) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ error: 'REQUEST_TIMEOUT', message });
  const id = requestIdOf(req);
  res.writeHead(408, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    // Node closes the connection once this reply is written.
    Connection: 'close',
    ...(id ? { [REQUEST_ID_HEADER]: id } : {}),
  });
  res.end(body);
}
