/**
 * TLS of a target connection, one vocabulary for every dialect (docs/breakout.md, "TLS"): the
 * mode words are libpq's `sslmode` values; each dialect's `tls.ts` reads its own URL parameters
 * into these settings and maps them to its driver's options. Files (CA, client certificate and
 * key) are named here and read only when a session connects.
 */
import { readFileSync } from 'node:fs';
import { AppError } from '../../shared/errors.js';

export type TlsMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';

export const TLS_MODES: readonly TlsMode[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];

/** What a target asks of TLS. Paths are absolute (made so when the target is set). */
export interface TlsSettings {
  mode: TlsMode;
  /** CA certificate(s), PEM: the server's certificate must chain to one (verify-ca, verify-full). */
  ca?: string;
  /** Client certificate, PEM, for servers that ask for one. */
  cert?: string;
  /** Private key of the client certificate, PEM. */
  key?: string;
}

/** The contents of the files a TlsSettings names. */
export interface TlsFiles {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

/**
 * Reads the files of `tls` at connect time. A file that is missing or unreadable is
 * TLS_FILE_UNREADABLE naming the file and its role, never a driver's "unable to get issuer".
 */
export function readTlsFiles(tls: TlsSettings): TlsFiles {
  const out: TlsFiles = {};
  const roles = { ca: 'CA certificate', cert: 'client certificate', key: 'client key' } as const;
  for (const k of ['ca', 'cert', 'key'] as const) {
    const path = tls[k];
    if (!path) continue;
    try {
      out[k] = readFileSync(path);
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
      throw new AppError('TLS_FILE_UNREADABLE', `the TLS ${roles[k]} file ${path} cannot be read (${reason})`, { file: path, role: k });
    }
  }
  return out;
}

/** One line for `target show`: the mode and the files, e.g. `verify-full (CA /etc/ssl/ca.pem)`. */
export function describeTls(tls: TlsSettings): string {
  const files = [tls.ca && `CA ${tls.ca}`, tls.cert && `certificate ${tls.cert}`, tls.key && `key ${tls.key}`].filter(Boolean);
  return files.length ? `${tls.mode} (${files.join(', ')})` : tls.mode;
}
