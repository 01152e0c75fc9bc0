import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS package loaded on the first call, then kept: a command that never uses it does not
 * pay for loading it, and a caller that is synchronous stays so (docs/cli.md#start-up-time).
 * `T` is the package's type, `typeof import('name')`.
 */
export function lazyRequire<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(id) as T);
}
