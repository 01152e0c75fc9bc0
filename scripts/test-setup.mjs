// The first step of `npm test` (CONTRIBUTING.md#tests): makes this machine able to run every test,
// then says in one line what it set up. It runs scripts/ensure-test-tools.sh (Debian packages the
// tests read our output back with) and scripts/ensure-databases.sh (the local PostgreSQL and
// MariaDB, their test logins, and TLS with the test CA), which change only what is missing.
// SDS_TEST_SETUP=0 leaves the machine alone, for people who run their own servers: the tests then
// use SDS_TEST_PG_URL, SDS_TEST_MYSQL_URL and SDS_TEST_TLS_DIR as they find them.
import { spawnSync } from 'node:child_process';

if (process.env.SDS_TEST_SETUP === '0') {
  console.log('test set-up: none (SDS_TEST_SETUP=0): using the servers, certificates and tools as they are');
  process.exit(0);
}

const changed = [];
for (const script of ['scripts/ensure-test-tools.sh', 'scripts/ensure-databases.sh']) {
  const r = spawnSync('bash', [script], { encoding: 'utf8' });
  const lines = `${r.stdout}`.split('\n').filter((l) => l.trim() !== '');
  if (r.status !== 0) {
    console.error(
      `test set-up: ${script} failed (exit ${r.status}); it needs root or password-less sudo to install and start what the tests use.`,
    );
    console.error('Run it once as root, or set SDS_TEST_SETUP=0 to use servers you manage (CONTRIBUTING.md#tests).');
    process.stderr.write(`${r.stdout}${r.stderr}`);
    process.exit(1);
  }
  // Each script prints one `<name>: <what>` line per change; ensure-databases ends with a summary.
  changed.push(...lines.filter((l) => !l.endsWith('are up, with TLS')).map((l) => l.replace(/^ensure-[a-z-]+: /, '')));
}
const done = changed.length === 0 ? 'nothing to change' : changed.join('; ');
console.log(`test set-up: PostgreSQL and MariaDB up with TLS, test tools present (${done})`);
