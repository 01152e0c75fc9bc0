// npm ci refuses a lock file in which a package's optional dependency has no entry; npm install
// writes such a lock when the registry reachable here lacks a platform binary (CONTRIBUTING.md,
// "Dependencies and the lock file"). This check fails in lint instead of in a clean-clone CI run.
import { readFileSync } from 'node:fs';

const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8'));
const packages = lock.packages ?? {};
const missing = [];
for (const [path, entry] of Object.entries(packages)) {
  for (const name of Object.keys(entry.optionalDependencies ?? {})) {
    const nested = `${path}/node_modules/${name}`;
    if (!(nested in packages) && !(`node_modules/${name}` in packages)) missing.push(`${name} (wanted by ${path || 'package.json'})`);
  }
}
if (missing.length > 0) {
  console.error(`package-lock.json lacks entries npm ci needs:\n  ${missing.join('\n  ')}`);
  console.error('See CONTRIBUTING.md, "Dependencies and the lock file".');
  process.exit(1);
}
