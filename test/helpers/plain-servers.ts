/**
 * Throw-away PostgreSQL and MariaDB servers WITHOUT TLS, for "require fails against a server
 * without TLS" (the shared local servers have TLS on, scripts/ensure-databases.sh). Each runs
 * from a fresh data folder on a free loopback port as the servers' OS user (tests run as root)
 * and is stopped and removed by `stop()`. Needs PostgreSQL's initdb/pg_ctl and mariadbd /
 * mariadb-install-db, which ensure-databases.sh installs; a missing one fails the test.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PlainServer {
  port: number;
  stop(): Promise<void>;
}

/** A port nothing listens on right now (the OS picks it). */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolvePort(port));
    });
  });
}

function pgBin(name: string): string {
  const root = '/usr/lib/postgresql';
  const version = readdirSync(root).sort((a, b) => Number(b) - Number(a))[0];
  const path = join(root, version ?? '', 'bin', name);
  if (!existsSync(path)) throw new Error(`${path} is missing: run scripts/ensure-databases.sh`);
  return path;
}

/** Polls `ready` until it resolves true (the server accepts logins), for at most `tries` rounds. */
async function waitUntil(ready: () => Promise<boolean>, what: string, tries = 150): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await ready()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not come up`);
}

/** A PostgreSQL cluster with `ssl=off`, trust logins for `postgres`, on 127.0.0.1:`port`. */
export async function startPlainPostgres(): Promise<PlainServer> {
  const dir = mkdtempSync(join(tmpdir(), 'sds-plain-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const asPostgres = (bin: string, args: string[]): void => {
    execFileSync('runuser', ['-u', 'postgres', '--', pgBin(bin), ...args], { stdio: 'pipe' });
  };
  asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  asPostgres('pg_ctl', [
    '-D',
    data,
    '-l',
    join(dir, 'log'),
    '-w',
    '-o',
    `-p ${port} -c ssl=off -c listen_addresses=127.0.0.1 -k ${dir}`,
    'start',
  ]);
  return {
    port,
    async stop() {
      try {
        asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A MariaDB server with `--skip-ssl` on 127.0.0.1:`port`; any login is accepted (grant tables skipped). */
export async function startPlainMariadb(): Promise<PlainServer> {
  const dir = mkdtempSync(join(tmpdir(), 'sds-plain-maria-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  execFileSync('mariadb-install-db', ['--no-defaults', `--datadir=${data}`, '--user=mysql', '--auth-root-authentication-method=normal'], {
    stdio: 'pipe',
  });
  const port = await freePort();
  const child = spawn(
    'runuser',
    [
      '-u',
      'mysql',
      '--',
      '/usr/sbin/mariadbd',
      '--no-defaults',
      `--datadir=${data}`,
      `--socket=${join(dir, 'sock')}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      '--skip-ssl',
      '--skip-grant-tables',
      `--pid-file=${join(dir, 'pid')}`,
      `--log-error=${join(dir, 'err.log')}`,
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const mysql = (await import('mysql2/promise')).default;
  await waitUntil(async () => {
    try {
      const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
      await c.end();
      return true;
    } catch {
      return false;
    }
  }, `MariaDB on port ${port}`);
  return {
    port,
    async stop() {
      try {
        const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
        await c.query('SHUTDOWN').catch(() => undefined);
        await c.end().catch(() => undefined);
        await exited;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
