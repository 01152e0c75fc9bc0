/**
 * The compiled CLI against real targets: a target that is down (DB_CONNECTION_ERROR, exit 5), the
 * TABLES_ALREADY_EXIST conflict and --overwrite, and the reply shapes of docs/http-api.md#breakout-routes (job
 * status and list for completed and failed jobs, breakout tables, drop). Needs `npm run build`.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createPostgresDatabase, type TestDatabase } from '../../helpers/test-databases.js';
import { datLines, openQuery, popstanStore, POPSTAN, runCli } from '../../helpers/breakout-helpers.js';
import { fixture } from '../../helpers/temp-home.js';
import { rawItems, rawValueRows } from '../../helpers/raw-value-sets.js';
import { cancelJob, jobStatus, listJobs, startBreakout } from '../../../src/core/breakout/jobs/jobs.js';
import { setTarget } from '../../../src/core/breakout/targets/targets.js';

const databases: TestDatabase[] = [];
after(async () => {
  for (const d of databases) await d.drop();
});

const personLines = datLines().filter((l) => l[0] === '1').length;
const TABLES = [
  'popstan_cases',
  'popstan_person',
  'popstan_housing',
  'popstan_notes',
  'popstan_cspro_jobs',
  'popstan_value_sets',
  'popstan_items',
];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const HMS = /^\d\d:\d\d:\d\d$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

test(
  'a target that is down: start --wait exits 5 with DB_CONNECTION_ERROR (DB-001 in details), process-cases-by-dict too, jobs failed',
  { timeout: 60_000 },
  async () => {
    const t = await popstanStore([fixture('popstan-census.dat')]);
    try {
      // Port 1 on the loopback: nothing listens there.
      await setTarget(t.store, POPSTAN, { type: 'postgresql', url: 'postgresql://postgres@127.0.0.1:1/nothing' });
      const start = await runCli(t.home.root, ['breakout', 'start', POPSTAN, '--wait', '--json']);
      assert.equal(start.code, 5, start.stdout + start.stderr);
      // The start itself succeeds (202 over HTTP); the followed job is what failed.
      const err = JSON.parse(start.stdout);
      assert.equal(err.status, 'failed');
      assert.equal(err.error.code, 'DB_CONNECTION_ERROR');
      assert.equal(JSON.parse(err.error.details).diagnostic, 'DB-001');
      assert.match(err.job_id, UUID);
      const failedStart = await jobStatus(t.store, err.job_id);
      assert.deepEqual(failedStart, err);

      const run = await runCli(t.home.root, ['process-cases-by-dict', POPSTAN, '--json']);
      assert.equal(run.code, 5, run.stdout + run.stderr);
      const reply = JSON.parse(run.stdout);
      // The failed job status of docs/http-api.md#breakout-routes, field by field.
      assert.deepEqual(Object.keys(reply).sort(), ['error', 'failed_at', 'job_id', 'status']);
      assert.equal(reply.status, 'failed');
      assert.match(reply.job_id, UUID);
      assert.deepEqual(Object.keys(reply.error).sort(), ['code', 'details', 'message']);
      assert.equal(reply.error.code, 'DB_CONNECTION_ERROR');
      assert.equal(JSON.parse(reply.error.details).diagnostic, 'DB-001');
      assert.equal(typeof reply.error.message, 'string');
      assert.ok(reply.error.message.length > 0);
      assert.equal(typeof reply.error.details, 'string');
      assert.match(reply.failed_at, ISO);
      assert.deepEqual(await jobStatus(t.store, reply.job_id), reply);

      const status = await runCli(t.home.root, ['breakout', 'status', reply.job_id, '--json']);
      assert.equal(status.code, 0);
      assert.deepEqual(JSON.parse(status.stdout), reply);

      // Job list: both failed, newest first, list item shape.
      const list = JSON.parse((await runCli(t.home.root, ['breakout', 'jobs', '--json'])).stdout);
      assert.deepEqual(Object.keys(list).sort(), ['data', 'limit', 'total']);
      assert.equal(list.total, 2);
      assert.equal(list.limit, 50);
      assert.deepEqual(
        list.data.map((j: { job_id: string; status: string }) => [j.job_id, j.status]),
        [
          [reply.job_id, 'failed'],
          [err.job_id, 'failed'],
        ],
      );
      for (const j of list.data) {
        assert.deepEqual(Object.keys(j).sort(), [
          'cases_processed',
          'completed_at',
          'dictionaries',
          'execution_time',
          'job_id',
          'started_at',
          'status',
        ]);
        assert.deepEqual(j.dictionaries, [POPSTAN]);
        assert.equal(j.cases_processed, 0);
        assert.match(j.execution_time, HMS);
        assert.match(j.completed_at, ISO);
      }
      assert.deepEqual((await listJobs(t.store, { status: 'failed' })).total, 2);
      assert.deepEqual((await listJobs(t.store, { status: 'completed' })).total, 0);
    } finally {
      await t.cleanup();
    }
  },
);

test(
  'PostgreSQL via the CLI: completed reply, conflict without overwrite (exit 4), overwrite rebuilds, tables and drop replies',
  { timeout: 120_000 },
  async () => {
    const db = await createPostgresDatabase();
    databases.push(db);
    const t = await popstanStore([fixture('popstan-census.dat')], db.config);
    try {
      const first = await runCli(t.home.root, ['breakout', 'start', POPSTAN, '--wait', '--json']);
      assert.equal(first.code, 0, first.stdout + first.stderr);
      const done = JSON.parse(first.stdout);
      // The completed job status of docs/http-api.md#breakout-routes, field by field.
      assert.deepEqual(Object.keys(done).sort(), ['completed_at', 'job_id', 'result', 'status']);
      assert.equal(done.status, 'completed');
      assert.match(done.job_id, UUID);
      assert.match(done.completed_at, ISO);
      assert.deepEqual(Object.keys(done.result).sort(), [
        'dictionaries_processed',
        'execution_time',
        'tables_created',
        'total_cases',
        'warnings',
      ]);
      assert.deepEqual(done.result.dictionaries_processed, [POPSTAN]);
      assert.equal(done.result.total_cases, 4872);
      assert.deepEqual(done.result.tables_created, TABLES);
      assert.match(done.result.execution_time, HMS);
      assert.equal(done.result.warnings, 0);
      assert.deepEqual(await jobStatus(t.store, done.job_id), done);

      // Start reply (without --wait) is refused: TABLES_ALREADY_EXIST with the tables, exit 4.
      const again = await runCli(t.home.root, ['breakout', 'start', POPSTAN, '--json']);
      assert.equal(again.code, 4, again.stdout + again.stderr);
      const conflict = JSON.parse(again.stdout);
      assert.equal(conflict.error, 'TABLES_ALREADY_EXIST');
      assert.deepEqual([...conflict.details.existing_tables].sort(), [...TABLES].sort());
      assert.equal((await jobStatus(t.store, conflict.details.job_id)).status, 'cancelled');

      // Start reply shape (docs/http-api.md#breakout-routes), then the job rebuilt with overwrite.
      const over = await runCli(t.home.root, ['breakout', 'start', POPSTAN, '--overwrite', '--threads', '2', '--json']);
      assert.equal(over.code, 0, over.stdout + over.stderr);
      const started = JSON.parse(over.stdout);
      assert.deepEqual(Object.keys(started).sort(), ['dictionaries', 'estimated_time', 'job_id', 'message', 'status', 'threads']);
      assert.equal(started.status, 'started');
      assert.deepEqual(started.dictionaries, [POPSTAN]);
      assert.equal(started.threads, 2);
      assert.equal(typeof started.estimated_time, 'string');
      assert.equal(started.message, `Breakout of ${POPSTAN} started in the background (4872 cases)`);
      const watched = await runCli(t.home.root, ['breakout', 'status', started.job_id, '--watch', '--json']);
      assert.equal(watched.code, 0, watched.stdout + watched.stderr);
      const rebuilt = JSON.parse(watched.stdout);
      assert.equal(rebuilt.status, 'completed');
      assert.equal(rebuilt.result.total_cases, 4872);
      assert.deepEqual(rebuilt.result.tables_created, TABLES);

      const q = await openQuery(db.config);
      try {
        assert.equal(await q.num('SELECT COUNT(*) FROM popstan_cases'), 4872);
        assert.equal(await q.num('SELECT COUNT(*) FROM popstan_housing'), 4872);
        assert.equal(await q.num('SELECT COUNT(*) FROM popstan_person'), personLines);
        // The jobs table was rebuilt too: only the overwrite job.
        assert.deepEqual(await q.all('SELECT job_id, status FROM popstan_cspro_jobs'), [{ job_id: started.job_id, status: 'completed' }]);
      } finally {
        await q.close();
      }

      // The tables reply of docs/http-api.md#breakout-routes.
      const tablesRun = await runCli(t.home.root, ['breakout', 'tables', POPSTAN, '--json']);
      assert.equal(tablesRun.code, 0, tablesRun.stdout + tablesRun.stderr);
      const tables = JSON.parse(tablesRun.stdout);
      assert.deepEqual(Object.keys(tables).sort(), [
        'created_at',
        'database',
        'dictionary',
        'interrupted',
        'label',
        'tables',
        'total_size',
      ]);
      assert.equal(tables.dictionary, POPSTAN);
      assert.equal(tables.label, 'popstan');
      assert.equal(tables.database, db.name);
      assert.equal(typeof tables.total_size, 'string');
      assert.ok(tables.created_at === null || ISO.test(tables.created_at));
      const byName = Object.fromEntries(tables.tables.map((x: { name: string }) => [x.name, x]));
      assert.deepEqual(Object.keys(byName).sort(), [...TABLES].sort());
      for (const x of tables.tables) assert.deepEqual(Object.keys(x).sort(), ['name', 'row_count', 'size', 'stale', 'type']);
      for (const x of tables.tables) assert.equal(x.stale, false, x.name);
      assert.deepEqual(
        TABLES.map((n) => [n, byName[n].type, byName[n].row_count]),
        [
          ['popstan_cases', 'main', 4872],
          ['popstan_person', 'record', personLines],
          ['popstan_housing', 'record', 4872],
          ['popstan_notes', 'record', 0],
          ['popstan_cspro_jobs', 'record', 1],
          ['popstan_value_sets', 'record', rawValueRows(fixture('popstan-census.json.dcf')).length],
          ['popstan_items', 'record', rawItems(fixture('popstan-census.json.dcf')).size],
        ],
      );

      // Job list with completed and cancelled jobs.
      const list = JSON.parse((await runCli(t.home.root, ['breakout', 'jobs', '--json'])).stdout);
      assert.equal(list.total, 3);
      assert.deepEqual(
        list.data.map((j: { job_id: string; status: string; cases_processed: number }) => [j.job_id, j.status, j.cases_processed]),
        [
          [started.job_id, 'completed', 4872],
          [conflict.details.job_id, 'cancelled', 0],
          [done.job_id, 'completed', 4872],
        ],
      );
      for (const j of list.data.filter((x: { status: string }) => x.status === 'completed')) {
        assert.match(j.started_at, ISO);
        assert.match(j.completed_at, ISO);
        assert.match(j.execution_time, HMS);
      }

      // The drop reply of docs/http-api.md#breakout-routes.
      const dropRun = await runCli(t.home.root, ['breakout', 'drop', POPSTAN, '--json']);
      assert.equal(dropRun.code, 0, dropRun.stdout + dropRun.stderr);
      const dropped = JSON.parse(dropRun.stdout);
      assert.deepEqual(Object.keys(dropped).sort(), ['deleted_tables', 'dictionary', 'freed_space', 'message']);
      assert.equal(dropped.dictionary, POPSTAN);
      assert.deepEqual([...dropped.deleted_tables].sort(), [...TABLES].sort());
      assert.equal(typeof dropped.freed_space, 'string');
      assert.equal(dropped.message, `Dropped 7 breakout tables of ${POPSTAN}`);
      const q2 = await openQuery(db.config);
      try {
        assert.equal(
          await q2.num(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name LIKE 'popstan%'",
          ),
          0,
        );
      } finally {
        await q2.close();
      }
      const none = await runCli(t.home.root, ['breakout', 'tables', POPSTAN, '--json']);
      assert.equal(JSON.parse(none.stdout).error, 'NOT_FOUND');
    } finally {
      await t.cleanup();
    }
  },
);

test(
  'one job per dictionary at a time: a second start or incremental run is BREAKOUT_BUSY (exit 4) until the first ends',
  { timeout: 60_000 },
  async () => {
    const t = await popstanStore([fixture('popstan-census.dat')]);
    try {
      // A job handed to no process stays pending: it holds the dictionary like a running one.
      const first = await startBreakout(t.store, { dictionaries: [POPSTAN] }, { spawn: false });
      const busy = await runCli(t.home.root, ['process-cases-by-dict', POPSTAN, '--json']);
      assert.equal(busy.code, 4, busy.stdout + busy.stderr);
      const err = JSON.parse(busy.stdout);
      assert.equal(err.error, 'BREAKOUT_BUSY');
      assert.equal(err.details.job_id, first.job_id);
      assert.equal(err.details.status, 'pending');
      assert.deepEqual(err.details.dictionaries, [POPSTAN]);
      const again = await runCli(t.home.root, ['breakout', 'start', POPSTAN, '--overwrite', '--json']);
      assert.equal(again.code, 4);
      assert.equal(JSON.parse(again.stdout).error, 'BREAKOUT_BUSY');
      // A refused start creates no job: the list still holds only the first.
      assert.deepEqual(
        (await listJobs(t.store)).data.map((j) => j.job_id),
        [first.job_id],
      );

      await cancelJob(t.store, first.job_id);
      const run = await runCli(t.home.root, ['process-cases-by-dict', POPSTAN, '--json']);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.equal(JSON.parse(run.stdout).status, 'completed');
    } finally {
      await t.cleanup();
    }
  },
);
