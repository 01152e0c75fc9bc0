import { schemaVersions, VERSION } from '../../core/home/index.js';
import { resolveHome } from '../../shared/home.js';

/**
 * The `--home` of `sds [global options] --version`, or undefined when argv does not ask for the
 * version before any command word (`sds dict list --version` is a usage error, not this).
 */
export function versionRequest(args: string[]): { home?: string } | undefined {
  let home: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-V' || a === '--version') return { home };
    if (a === '--home') home = args[++i];
    else if (a.startsWith('--home=')) home = a.slice('--home='.length);
    else if (!a.startsWith('-') || a === '--') return undefined;
  }
  return undefined;
}

/** `sds --version`: this sds, the store schema it writes and the home's, and Node (docs/decisions.md, "sds --version"). */
export function printVersion(flag: string | undefined, json: boolean): void {
  const home = resolveHome(flag);
  // Read-only: asking for the version never creates a home or a store.
  const schema = schemaVersions(home);
  if (json) {
    const out = { version: VERSION, schema: { latest: schema.latest, home: home.root, applied: schema.applied }, node: process.version };
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
    return;
  }
  const applied = schema.applied === null ? `no store at ${home.root}` : `${schema.applied} in ${home.root}`;
  process.stdout.write(`sds ${VERSION}\nstore schema ${schema.latest} (applied: ${applied})\nnode ${process.version}\n`);
}
