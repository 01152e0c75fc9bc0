import { randomBytes } from 'node:crypto';
import type { Store } from '../../store/open-store.js';
import { AppError } from '../../shared/errors.js';

/** Shortest accepted SDS_JWT_SECRET: HS256 needs a key at least as long as its 256-bit output. */
const MIN_SECRET_BYTES = 32;

const SETTING = 'jwt_hs256_key';

/**
 * The HS256 key signing access tokens: `SDS_JWT_SECRET` when set (so several servers or a
 * restored store can share it), else a random key generated once and kept in the store's
 * settings, so tokens survive a restart without any configuration.
 */
export async function accessTokenKey(store: Store, env: NodeJS.ProcessEnv = process.env): Promise<Uint8Array> {
  const secret = env.SDS_JWT_SECRET;
  if (secret !== undefined && secret !== '') {
    const bytes = Buffer.from(secret, 'utf8');
    if (bytes.length < MIN_SECRET_BYTES) {
      throw new AppError('CONFIG_INVALID', `SDS_JWT_SECRET must have at least ${MIN_SECRET_BYTES} bytes (it has ${bytes.length})`, {
        field: 'SDS_JWT_SECRET',
      });
    }
    return new Uint8Array(bytes);
  }
  const stored = await store.settings.getOrCreate(SETTING, () => randomBytes(32).toString('base64url'));
  return new Uint8Array(Buffer.from(stored, 'base64url'));
}
