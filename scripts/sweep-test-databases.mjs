// The first step of `npm run test:pg` (CONTRIBUTING.md#tests): drops the test databases
// (`sds_test_<base36 time>_<hex>`, test/helpers/test-databases.ts) that a run killed before its
// clean-up left on the local PostgreSQL (SDS_TEST_PG_URL). Only databases made more than an hour
// ago are dropped: a run going on beside this one (another worktree, CI) keeps its own. The store
// template the test homes are copied from (`sds_test_tpl_<hash>`, test/helpers/temp-home.ts) goes
// too, so each run makes it afresh from the migrations it has.
import pg from 'pg';

const url = process.env.SDS_TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const HOUR_MS = 60 * 60 * 1000;

const client = new pg.Client({ connectionString: url });
await client.connect();
try {
  const { rows } = await client.query(`SELECT datname FROM pg_database WHERE datname LIKE 'sds\\_test\\_%'`);
  const stale = rows
    .map((r) => r.datname)
    .filter((name) => {
      if (name.startsWith('sds_test_tpl_')) return true;
      const made = parseInt(name.split('_')[2] ?? '', 36);
      return Number.isFinite(made) && Date.now() - made > HOUR_MS;
    });
  for (const name of stale) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  console.log(`test databases: ${stale.length} left over from earlier runs dropped, ${rows.length - stale.length} kept`);
} finally {
  await client.end();
}
