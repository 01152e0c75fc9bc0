// Sends fuzz requests over raw sockets, so malformed framing (Content-Length mismatches, broken
// chunking, aborted bodies) reaches the server as an attacker would send it.
import { connect } from 'node:net';
import type { FuzzRequest } from './fuzz-requests.js';

/** What came back for one request. */
export interface FuzzResponse {
  status?: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Set when no complete response arrived: 'closed' (the server closed), 'timeout', or a socket error. */
  noResponse?: string;
  ms: number;
}

function decodeChunked(b: Buffer): Buffer {
  const out: Buffer[] = [];
  let i = 0;
  for (;;) {
    const eol = b.indexOf('\r\n', i);
    if (eol < 0) break;
    const size = parseInt(b.subarray(i, eol).toString(), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(b.subarray(eol + 2, eol + 2 + size));
    i = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

function parseResponse(raw: Buffer): Omit<FuzzResponse, 'ms'> {
  // Interim replies (100 Continue to an Expect header) come before the real one.
  while (/^HTTP\/1\.[01] 1\d\d /.test(raw.subarray(0, 16).toString('latin1')) && raw.indexOf('\r\n\r\n') >= 0)
    raw = raw.subarray(raw.indexOf('\r\n\r\n') + 4);
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return { headers: {}, body: raw, noResponse: raw.length ? 'incomplete response head' : 'closed' };
  const lines = raw.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]!);
  if (!m) return { headers: {}, body: raw, noResponse: `bad status line ${lines[0]}` };
  const headers: Record<string, string> = {};
  for (const l of lines.slice(1)) {
    const c = l.indexOf(':');
    if (c > 0) headers[l.slice(0, c).trim().toLowerCase()] = l.slice(c + 1).trim();
  }
  let body = raw.subarray(end + 4);
  if (/chunked/i.test(headers['transfer-encoding'] ?? '')) body = decodeChunked(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  return { status: Number(m[1]), headers, body };
}

/** Sends one request over its own connection (`Connection: close`) and reads the whole reply. */
export function send(base: string, req: FuzzRequest, timeoutMs = 20_000): Promise<FuzzResponse> {
  const u = new URL(base);
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect({ host: u.hostname, port: Number(u.port) });
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (noResponse?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parseResponse(Buffer.concat(chunks));
      resolve({
        ...parsed,
        noResponse: parsed.status === undefined ? (noResponse ?? parsed.noResponse) : undefined,
        ms: Math.round(performance.now() - started),
      });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('data', (b: Buffer) => chunks.push(b));
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    socket.on('error', (e) => finish(`socket error ${(e as NodeJS.ErrnoException).code ?? e.message}`));
    socket.on('connect', () => {
      const head = [`${req.method} ${req.path} HTTP/1.1`, 'connection: close', ...req.headers.map(([k, v]) => `${k}: ${v}`)];
      const b = req.body;
      const headOf = (extra: string) => Buffer.from([...head, extra].join('\r\n') + '\r\n\r\n');
      // One write per request where possible: a server that answers early (401, 403, 413) and
      // closes must not make the client lose that answer to a reset caused by its own later writes.
      switch (req.framing) {
        case 'exact':
          socket.write(Buffer.concat([headOf(`content-length: ${b.length}`), b]));
          break;
        case 'cl-short':
          socket.write(Buffer.concat([headOf(`content-length: ${Math.floor(b.length / 2)}`), b]));
          break;
        case 'cl-long':
          // The client says it has sent everything: the server must give up on the rest.
          socket.end(Buffer.concat([headOf(`content-length: ${b.length + 1000}`), b]));
          break;
        case 'abort':
          socket.write(Buffer.concat([headOf(`content-length: ${b.length}`), b.subarray(0, Math.floor(b.length / 2))]), () =>
            setTimeout(() => finish('aborted by the client'), 20),
          );
          break;
        case 'chunked':
        case 'bad-chunked': {
          const half = Math.floor(b.length / 2);
          const parts: Buffer[] = [headOf('transfer-encoding: chunked')];
          for (const part of [b.subarray(0, half), b.subarray(half)])
            if (part.length) parts.push(Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n'));
          parts.push(Buffer.from(req.framing === 'chunked' ? '0\r\n\r\n' : 'zz\r\nbroken\r\n'));
          if (req.framing === 'bad-chunked') socket.end(Buffer.concat(parts));
          else socket.write(Buffer.concat(parts));
          break;
        }
      }
    });
  });
}

/** Whether the server answers at all within `timeoutMs` (GET /api/server: a 401 is an answer). */
export async function answers(base: string, timeoutMs = 10_000): Promise<boolean> {
  const r = await send(
    base,
    {
      method: 'GET',
      path: '/api/server',
      headers: [['host', '127.0.0.1']],
      body: Buffer.alloc(0),
      framing: 'exact',
      role: 'none',
      shape: [],
    },
    timeoutMs,
  );
  return r.status !== undefined;
}
