/**
 * The release tarball that docs/production.md installs (`npm run release`, docs/decisions.md
 * "Releases are tarballs") holds what a server runs and nothing of the build: the compiled code,
 * the migrations, the man page, the deploy files, the quickstart fixtures and the lock file as
 * npm-shrinkwrap.json, which `npm ci --omit=dev` accepts. Unpacked, with the dependencies in
 * place, it runs `sds quickstart` from a folder that has no source tree beside it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../../helpers/temp-home.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 240_000 });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')}\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

test('npm run release makes a tarball that installs and runs as the runbook says', () => {
  const tmp = tempDir();
  try {
    // dist/ is built by `npm test` before the tests run.
    const out = run(process.execPath, [join(ROOT, 'scripts', 'pack-release.mjs'), tmp.root], ROOT, {
      ...process.env,
      SDS_RELEASE_SKIP_BUILD: '1',
    });
    const [file, hashLine] = out.trim().split('\n');
    assert.equal(file, join(tmp.root, `sds-${VERSION}.tgz`));
    assert.match(hashLine!, /^sha256 [0-9a-f]{64}$/);
    assert.equal(run('sha256sum', [file!], tmp.root).split(' ')[0], hashLine!.slice('sha256 '.length));

    const listed = run('tar', ['-tzf', file!], tmp.root).trim().split('\n');
    for (const needed of [
      'package/bin/sds',
      'package/dist/cli/main.js',
      'package/dist/store/migrations/0001-init.sql',
      'package/man/sds.1',
      'package/deploy/systemd/sds.service',
      'package/fixtures/cspro/popstan-census.dat',
      'package/npm-shrinkwrap.json',
      'package/docs/production.md',
    ]) {
      assert.ok(listed.includes(needed), `${needed} in the tarball`);
    }
    for (const path of listed)
      assert.doesNotMatch(path, /^package\/(src|test|bench|scripts|node_modules)\//, `${path} is not for a server`);

    // The runbook's steps: unpack, then npm ci --omit=dev (here a dry run: the lock must match
    // package.json; the packages themselves are the checkout's, linked in).
    const release = join(tmp.root, 'releases', VERSION);
    mkdirSync(release, { recursive: true });
    run('tar', ['-xzf', file!, '-C', release, '--strip-components=1', '--no-same-owner'], tmp.root);
    run('npm', ['ci', '--omit=dev', '--dry-run', '--prefer-offline', '--no-audit', '--no-fund'], release);
    symlinkSync(join(ROOT, 'node_modules'), join(release, 'node_modules'));
    assert.match(run(join(release, 'bin', 'sds'), ['--version'], tmp.root), new RegExp(`^sds ${VERSION.replaceAll('.', '\\.')}\n`));
    const quick = run(join(release, 'bin', 'sds'), ['--home', join(tmp.root, 'home'), 'quickstart'], tmp.root);
    assert.match(quick, /popstan_person\s+record\s+24271/);
  } finally {
    tmp.cleanup();
  }
});
