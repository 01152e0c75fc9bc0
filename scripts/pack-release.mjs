// Makes the release tarball that docs/production.md installs: `npm run release [-- DIR]`.
// It holds the compiled dist/ (a server needs no TypeScript), the man page, the deploy files, the
// docs and the bundled fixtures of `sds quickstart`, and the lock file as npm-shrinkwrap.json, so
// `npm ci --omit=dev` in the unpacked folder installs exactly the tested dependencies (npm leaves
// package-lock.json out of every tarball; docs/decisions.md "Releases are tarballs").
// Prints the tarball's path and its SHA-256, which the release notes quote.
import { copyFileSync, createReadStream, mkdirSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const dest = resolve(process.argv[2] ?? join(root, 'release'));
const skipBuild = process.env.SDS_RELEASE_SKIP_BUILD === '1';

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', ...opts });
  if (r.status !== 0) {
    console.error(`pack-release: ${cmd} ${args.join(' ')} failed (exit ${r.status})`);
    process.exit(1);
  }
  return r.stdout;
}

if (!skipBuild) run('npm', ['run', 'build'], { stdio: 'inherit' });
mkdirSync(dest, { recursive: true });
const shrinkwrap = join(root, 'npm-shrinkwrap.json');
copyFileSync(join(root, 'package-lock.json'), shrinkwrap);
let name;
try {
  const out = run('npm', ['pack', '--json', '--pack-destination', dest]);
  name = JSON.parse(out)[0].filename;
} finally {
  rmSync(shrinkwrap, { force: true });
}
const file = join(dest, name);
const hash = createHash('sha256');
for await (const chunk of createReadStream(file)) hash.update(chunk);
console.log(`${file}\nsha256 ${hash.digest('hex')}`);
