/**
 * Opening a CSWeb MariaDB/MySQL database from a `mysql://USER@HOST:PORT/DB` address
 * (docs/migrating-from-csweb.md#connecting). The driver is imported only here, when an import
 * runs, so `sds --help` never loads it.
 */
import type { Connection } from 'mysql2/promise';
import { AppError } from '../shared/errors.js';

/** Where a CSWeb database is, from its address (the password never is part of it). */
export interface CswebAddress {
  host: string;
  port: number;
  user: string;
  database: string;
}

/** Parses `mysql://USER@HOST:PORT/DB`; a password in the address is refused (it would show in `ps`). */
export function parseCswebUrl(url: string): CswebAddress {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new AppError('CSWEB_ADDRESS_INVALID', `"${url}" is not an address of the form mysql://USER@HOST:PORT/DATABASE`, {
      field: 'from',
    });
  }
  if (u.protocol !== 'mysql:' && u.protocol !== 'mariadb:') {
    throw new AppError('CSWEB_ADDRESS_INVALID', `"${url}" must start with mysql:// (CSWeb runs on MariaDB or MySQL)`, { field: 'from' });
  }
  if (u.password !== '') {
    throw new AppError('CSWEB_ADDRESS_INVALID', 'the CSWeb address must not hold a password: pass it through an environment variable', {
      field: 'from',
    });
  }
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (database === '' || database.includes('/')) {
    throw new AppError('CSWEB_ADDRESS_INVALID', `"${url}" names no database: add /DATABASE after the host`, { field: 'from' });
  }
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port === '' ? 3306 : Number(u.port),
    user: decodeURIComponent(u.username) || 'root',
    database,
  };
}

/**
 * Connects to a CSWeb database. `dateStrings` keeps DATETIME values as the wall-time text CSWeb
 * wrote (note times are in CSWeb's own zone, not the server's: docs/migrating-from-csweb.md#notes).
 * A refused connection or login is CSWEB_CONNECT_FAILED naming the host and database.
 */
export async function connectCsweb(address: CswebAddress, password: string | undefined, timeoutMs = 10_000): Promise<Connection> {
  const mysql = await import('mysql2/promise');
  try {
    return await mysql.createConnection({
      host: address.host,
      port: address.port,
      user: address.user,
      database: address.database,
      ...(password !== undefined ? { password } : {}),
      dateStrings: true,
      supportBigNumbers: true,
      connectTimeout: timeoutMs,
      charset: 'utf8mb4',
    });
  } catch (err) {
    const e = err as { code?: string; message?: string };
    throw new AppError(
      'CSWEB_CONNECT_FAILED',
      `cannot open the CSWeb database ${address.database} on ${address.host}:${address.port} as ${address.user}: ${e.code ?? ''} ${e.message ?? ''}`.trim(),
      { host: address.host, port: address.port, database: address.database, user: address.user, reason: e.code ?? 'unknown' },
      { cause: err },
    );
  }
}
