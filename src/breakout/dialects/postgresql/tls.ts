/**
 * PostgreSQL TLS: libpq's URL parameters (`sslmode`, `sslrootcert`, `sslcert`, `sslkey`,
 * https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNECT-SSLMODE) and their
 * mapping to pg's `ssl` option. Pure: files are read by the session.
 */
import type { ConnectionOptions } from 'node:tls';
import { AppError } from '../../../shared/errors.js';
import type { DialectTls } from '../dialect.js';
import { TLS_MODES, type TlsFiles, type TlsMode, type TlsSettings } from '../tls.js';

export const tls: DialectTls = {
  modes: TLS_MODES,
  // libpq's default is prefer; sds keeps connecting in plain unless asked (docs/decisions.md).
  defaultMode: 'disable',
  clientCertificate: true,
  params: ['sslmode', 'sslrootcert', 'sslcert', 'sslkey'],
  fromParams(p) {
    const mode = p.sslmode;
    if (mode !== undefined && !(TLS_MODES as readonly string[]).includes(mode)) {
      throw new AppError('TARGET_TLS_INVALID', `sslmode=${mode} is not one of ${TLS_MODES.join(', ')}`, {
        field: 'url',
        parameter: 'sslmode',
      });
    }
    return { mode: mode as TlsMode | undefined, ca: p.sslrootcert, cert: p.sslcert, key: p.sslkey };
  },
};

/**
 * pg's `ssl` option for a first attempt in `mode` (false: plain). As in libpq, `require` with
 * a CA file verifies the chain like verify-ca; verify-full also checks the host name (pg sets
 * the server name, and Node checks an IP address against the certificate's IP entries).
 */
export function pgSsl(settings: TlsSettings, files: TlsFiles, attempt: 'tls' | 'plain'): false | ConnectionOptions {
  if (attempt === 'plain') return false;
  const client = files.cert ? { cert: files.cert, key: files.key } : {};
  const verifyChain =
    settings.mode === 'verify-ca' || settings.mode === 'verify-full' || (settings.mode === 'require' && files.ca !== undefined);
  if (!verifyChain) return { ...client, rejectUnauthorized: false };
  const ca = files.ca ? { ca: files.ca } : {};
  if (settings.mode === 'verify-full') return { ...client, ...ca, rejectUnauthorized: true };
  return { ...client, ...ca, rejectUnauthorized: true, checkServerIdentity: () => undefined };
}

/** The attempts libpq makes for a mode, in order: `prefer` tries TLS then plain, `allow` plain then TLS. */
export function attempts(mode: TlsMode): ('tls' | 'plain')[] {
  if (mode === 'disable') return ['plain'];
  if (mode === 'allow') return ['plain', 'tls'];
  if (mode === 'prefer') return ['tls', 'plain'];
  return ['tls'];
}
