// Runs every test file under test/ with node's own test runner through tsx.
// Node 20's --test takes paths, not globs, so the files are listed here.
// SDS_TEST_FILTER=substring runs only the files whose path contains it.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...collect(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

// The suites (CONTRIBUTING.md#tests): `npm test` runs the main one (unit and integration: the
// core, the stores, the targets, real databases), which stays within its 10-minute budget;
// `npm run test:e2e` the end-to-end tests (test/e2e/: the CLI as a subprocess, the HTTP server on
// loopback, the cluster, the deploy files, the README), most of the time, each spawning `sds`
// many times; `.ci/run` runs both, then `npm run test:pg` runs all of them on the PostgreSQL
// store. With SDS_TEST_FILTER and no SDS_TEST_SUITE, every matching file runs.
const filter = process.env.SDS_TEST_FILTER;
const suite = process.env.SDS_TEST_SUITE ?? (filter ? 'all' : 'main');
const E2E_DIR = join('test', 'e2e') + '/';
const SUITES = {
  main: (f) => !f.startsWith(E2E_DIR),
  e2e: (f) => f.startsWith(E2E_DIR),
  all: () => true,
};
const inSuite = SUITES[suite];
if (!inSuite) {
  console.error(`SDS_TEST_SUITE must be one of ${Object.keys(SUITES).join(', ')}, not ${suite}`);
  process.exit(2);
}
const files = collect('test')
  .filter((f) => inSuite(f) && (!filter || f.includes(filter)))
  .sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// A test that waits for something that never comes (a webhook that is never sent, a child that
// never exits) fails after 5 minutes instead of stalling the run; the slowest test takes under 1.
const reporters = [
  '--test-reporter=spec',
  '--test-reporter-destination=stdout',
  // The files that took longest, last: the suite's time budget is watched where it is spent.
  '--test-reporter=./scripts/slowest-files-reporter.mjs',
  '--test-reporter-destination=stdout',
];
const args = ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=300000', ...reporters, ...files];
const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
process.exit(result.status ?? 1);
