/** SQLite has no network connection: TLS is always `disable`, and any TLS setting is refused. */
import type { DialectTls } from '../dialect.js';

export const tls: DialectTls = {
  modes: ['disable'],
  defaultMode: 'disable',
  clientCertificate: false,
  params: [],
  fromParams: () => ({}),
};
