/**
 * MySQL/MariaDB TLS: the URL parameters of the MySQL clients (`ssl-mode`, `ssl-ca`, `ssl-cert`,
 * `ssl-key`, https://dev.mysql.com/doc/refman/8.0/en/connection-options.html#option_general_ssl-mode)
 * and their mapping to mysql2's `ssl` option. Pure: files are read by the session.
 */
import { AppError } from '../../../shared/errors.js';
import type { DialectTls } from '../dialect.js';
import type { TlsFiles, TlsMode, TlsSettings } from '../tls.js';

/** `ssl-mode` values of the MySQL clients and their libpq names. */
const SSL_MODE: Record<string, TlsMode> = {
  DISABLED: 'disable',
  PREFERRED: 'prefer',
  REQUIRED: 'require',
  VERIFY_CA: 'verify-ca',
  VERIFY_IDENTITY: 'verify-full',
};

export const tls: DialectTls = {
  // mysql2 cannot fall back between TLS and plain: `prefer` and `allow` are refused, not approximated.
  modes: ['disable', 'require', 'verify-ca', 'verify-full'],
  defaultMode: 'disable',
  clientCertificate: true,
  params: ['ssl-mode', 'ssl-ca', 'ssl-cert', 'ssl-key'],
  fromParams(p) {
    const raw = p['ssl-mode'];
    const mode = raw === undefined ? undefined : SSL_MODE[raw.toUpperCase()];
    if (raw !== undefined && !mode) {
      throw new AppError('TARGET_TLS_INVALID', `ssl-mode=${raw} is not one of ${Object.keys(SSL_MODE).join(', ')}`, {
        field: 'url',
        parameter: 'ssl-mode',
      });
    }
    return { mode, ca: p['ssl-ca'], cert: p['ssl-cert'], key: p['ssl-key'] };
  },
};

export interface MysqlSsl {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  rejectUnauthorized: boolean;
  verifyIdentity: boolean;
}

/**
 * mysql2's `ssl` option (undefined: plain). mysql2 checks the identity only against a host
 * name (for an IP address it would check `localhost`), so for an IP address verify-full leaves
 * mysql2's check off and the session checks the certificate itself (`identityCheckHost`).
 */
export function mysqlSsl(settings: TlsSettings, files: TlsFiles, hostIsIp: boolean): MysqlSsl | undefined {
  if (settings.mode === 'disable') return undefined;
  const verify = settings.mode === 'verify-ca' || settings.mode === 'verify-full';
  return {
    ...(files.ca ? { ca: files.ca } : {}),
    ...(files.cert ? { cert: files.cert, key: files.key } : {}),
    rejectUnauthorized: verify,
    verifyIdentity: settings.mode === 'verify-full' && !hostIsIp,
  };
}

/** The host the session must check the certificate against itself after the handshake, if any. */
export function identityCheckHost(settings: TlsSettings, host: string, hostIsIp: boolean): string | undefined {
  return settings.mode === 'verify-full' && hostIsIp ? host : undefined;
}
