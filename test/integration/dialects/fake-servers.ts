/** Tiny stand-ins for server behaviour the local test servers cannot be made to show. */
import { createServer, type AddressInfo } from 'node:net';

/** A TCP port nothing listens on (bound, then released). */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((res) => server.close(() => res()));
  return port;
}

/**
 * Answers a PostgreSQL startup packet with a FATAL ErrorResponse carrying `sqlstate`, as a
 * real server does on a failed login (https://www.postgresql.org/docs/current/protocol-message-formats.html).
 */
export async function fakePostgresServer(sqlstate: string, message: string): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((socket) => {
    socket.once('data', () => {
      const fields = Buffer.from(`SFATAL\0VFATAL\0C${sqlstate}\0M${message}\0\0`, 'utf8');
      const head = Buffer.alloc(5);
      head.write('E', 0);
      head.writeInt32BE(fields.length + 4, 1);
      socket.end(Buffer.concat([head, fields]));
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const { port } = server.address() as AddressInfo;
  return { port, close: () => new Promise<void>((res) => server.close(() => res())) };
}

/** A TCP server that accepts connections and never answers: a database that hangs. */
export async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((res) => server.close(() => res()));
    },
  };
}
