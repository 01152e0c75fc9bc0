import { fileURLToPath } from 'node:url';

/** Path of a bundled CSPro fixture (the embedded default data of `sds quickstart`). */
export function bundledFixture(name: string): string {
  return fileURLToPath(new URL(`../../../fixtures/cspro/${name}`, import.meta.url));
}
