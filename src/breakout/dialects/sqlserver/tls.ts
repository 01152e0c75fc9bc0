/**
 * SQL Server TLS: the URL parameters `encrypt` and `trustServerCertificate` (tedious' option
 * names) in the shared vocabulary: encrypt=false is disable, trustServerCertificate=true is
 * require (encrypted, certificate not checked), the default is verify-full (tedious always
 * checks the host name when it checks the certificate, so there is no verify-ca). Pure.
 */
import { AppError } from '../../../shared/errors.js';
import type { DialectTls } from '../dialect.js';
import type { TlsFiles, TlsMode, TlsSettings } from '../tls.js';

function flag(name: string, v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  const s = v.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(s)) return true;
  if (['0', 'false', 'no', 'off'].includes(s)) return false;
  throw new AppError('TARGET_TLS_INVALID', `${name}=${v} is not true or false`, { field: 'url', parameter: name });
}

export const tls: DialectTls = {
  modes: ['disable', 'require', 'verify-full'],
  defaultMode: 'verify-full',
  // tedious presents no client certificate.
  clientCertificate: false,
  params: ['encrypt', 'trustServerCertificate'],
  fromParams(p) {
    const encrypt = flag('encrypt', p.encrypt);
    const trust = flag('trustServerCertificate', p.trustServerCertificate);
    let mode: TlsMode | undefined;
    if (encrypt === false) mode = 'disable';
    else if (trust === true) mode = 'require';
    else if (encrypt === true || trust === false) mode = 'verify-full';
    return { mode };
  },
};

/** The TLS part of tedious' connection options. */
export function tdsTlsOptions(
  settings: TlsSettings,
  files: TlsFiles,
): { encrypt: boolean; trustServerCertificate: boolean; cryptoCredentialsDetails?: { ca: Buffer } } {
  return {
    encrypt: settings.mode !== 'disable',
    trustServerCertificate: settings.mode === 'require',
    ...(files.ca ? { cryptoCredentialsDetails: { ca: files.ca } } : {}),
  };
}
