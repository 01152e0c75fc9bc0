import { readFileSync } from 'node:fs';

/** The version of this sds, read once from package.json (two levels above src/core and dist/core). */
export const VERSION: string = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;
