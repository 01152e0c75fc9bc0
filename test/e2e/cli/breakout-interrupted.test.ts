/**
 * An interrupted breakout is never reported as done (issue 27, item 5;
 * docs/breakout.md#interrupted-breakouts). Ctrl-C of `sds breakout start … --wait` against the
 * real PostgreSQL stops the job after the page it is writing; then `breakout tables`, `metrics`
 * and `status` (CLI and a real `sds serve`, replies checked against its OpenAPI document) each
 * say "interrupted at N of M cases" and what resumes it, `sync_rate` keeps its field and meaning
 * (the share broken out) with the per-dictionary figure beside it, and the resume run clears it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { runCliAsync as sds, runCli, SDS_BIN, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { createPostgresDatabase, type TestDatabase } from '../../helpers/test-databases.js';
import { datLines, groupPopstan, POPSTAN, until, withProvince, writeDat } from '../../helpers/breakout-helpers.js';
import { startServe, type ServeProcess } from '../../helpers/serve-process.js';
import { checkReply, type OpenApiDoc } from '../../helpers/openapi-validate.js';
import { openStore, type Store } from '../../../src/store/open-store.js';
import { processAlive } from '../../../src/core/breakout/jobs/job-process.js';

const PAGE = 2000;
const NO_DEFAULT = { BREAKOUT_DB_TYPE: undefined, BREAKOUT_DB_URL: undefined };
const WEBHOOK_TOKEN = 'status-token-for-the-interrupted-test';
const PASSWORD = 'interrupted-breakout-pw';
const RESUME = `sds process-cases-by-dict ${POPSTAN}`;

let home: Awaited<ReturnType<typeof tempHome>>;
let store: Store;
let db: TestDatabase;
let dir: string;
let total: number;

before(async () => {
  home = await tempHome();
  db = await createPostgresDatabase();
  dir = mkdtempSync(join(tmpdir(), 'sds-interrupted-'));
  // Three copies of Popstan under provinces 30–32: 14,616 cases, 8 pages of 2,000.
  const lines = [30, 31, 32].flatMap((p) => withProvince(datLines(), p));
  total = groupPopstan(lines).length;
  assert.equal(total, 14616);
  for (const args of [
    ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan'],
    ['cases', 'import', POPSTAN, writeDat(dir, 'three.dat', lines), '-q'],
    ['target', 'set', POPSTAN, '--type', 'postgresql', '--url', db.config.url!],
  ]) {
    const r = await sds(home.root, args);
    assert.equal(r.code, 0, show(r));
  }
  const add = runCli(home.root, ['users', 'add', 'ops', '--role', 'API', '--password-stdin'], { stdin: PASSWORD + '\n' });
  assert.equal(add.code, 0, show(add));
  store = await openStore(home);
});

after(async () => {
  await store?.close();
  await home?.cleanup();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

/** `sds breakout start POPSTAN --wait` in the background, so the test can press Ctrl-C. */
function startWaiting(): { stderr: () => string; stdout: () => string; kill: (s: NodeJS.Signals) => void; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [SDS_BIN, '--home', home.root, 'breakout', 'start', POPSTAN, '--wait'], {
    env: { ...process.env, NO_COLOR: '1', CI: '1', ...NO_DEFAULT },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
  child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
  return {
    stderr: () => err,
    stdout: () => out,
    kill: (s) => child.kill(s),
    exit: new Promise((resolve) => child.on('close', (code) => resolve(code))),
  };
}

const count = (n: number): string => n.toLocaleString('en-US');
/** One decimal, rounded down, as the metrics write a share. */
const floorPercent = (part: number, whole: number): string => `${(Math.floor((part * 1000) / whole) / 10).toFixed(1)}%`;

test(
  'Ctrl-C of a breakout half way: every surface says interrupted at N of M and how to resume; the resume clears it',
  { timeout: 180_000 },
  async () => {
    const cli = startWaiting();
    const jobId = await until(
      'the job to commit its first page',
      async () => {
        const [j] = (await store.jobs.list({ limit: 1 })).jobs;
        return j && j.status === 'running' && (j.progress?.processed ?? 0) > 0 ? j.id : undefined;
      },
      60_000,
      5,
    );
    // Hold the cases table so that the job waits inside its next page: the Ctrl-C lands half way
    // however fast the machine is.
    const holder = new pg.Client({ connectionString: db.config.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE popstan_cases IN ACCESS EXCLUSIVE MODE');
    await until('the CLI to follow the job', () => cli.stderr().includes('Ctrl-C cancels it'), 10_000);
    cli.kill('SIGINT');
    await until('the cancel to be asked', async () => (await store.jobs.get(jobId))!.cancelRequested, 10_000);
    await holder.query('COMMIT');
    await holder.end();
    assert.equal(await cli.exit, 130, cli.stderr());

    const job = (await store.jobs.get(jobId))!;
    assert.equal(job.status, 'cancelled');
    const processed = job.result!.total_cases;
    assert.ok(processed > 0 && processed < total, `stopped half way: ${processed} of ${total}`);
    assert.equal(processed % PAGE, 0, `whole pages only: ${processed}`);
    await until('the job process to exit', () => !processAlive(job.pid!), 10_000);
    const said = `interrupted at ${count(processed)} of ${count(total)} cases`;
    const line = `${POPSTAN}: ${said} (job ${jobId} cancelled), resume with: ${RESUME}`;
    const message = `${said}, resume with an incremental breakout (process-cases-by-dict ${POPSTAN}, or the trigger in mode selective)`;
    const interruption = {
      job_id: jobId,
      job_status: 'cancelled',
      stopped_at: job.finishedAt,
      processed_cases: processed,
      total_cases: total,
      message,
    };

    // The command that was interrupted names the resume command.
    assert.equal(
      cli.stderr().split('\n').filter(Boolean).at(-1),
      `sds: interrupted by SIGINT: job ${jobId} stopped at a safe point: cancelled after ${processed} cases, resume with: ${RESUME}`,
    );

    const [tables, tablesJson, metrics, metricsJson, status, statusJson] = await Promise.all([
      sds(home.root, ['breakout', 'tables', POPSTAN], { env: NO_DEFAULT }),
      sds(home.root, ['breakout', 'tables', POPSTAN, '--json'], { env: NO_DEFAULT }),
      sds(home.root, ['metrics']),
      sds(home.root, ['metrics', '--json']),
      sds(home.root, ['status', '--breakout-configured'], { env: NO_DEFAULT }),
      sds(home.root, ['status', '--breakout-configured', '--json'], { env: NO_DEFAULT }),
    ]);

    // breakout tables: no table reads `current`; the line says where it stopped and what resumes it.
    assert.equal(tables.code, 0, show(tables));
    const tableLines = tables.stdout.trimEnd().split('\n');
    const rows = tableLines.slice(1, -2).map((l) => l.split('\t'));
    assert.ok(rows.length > 3, show(tables));
    for (const r of rows) assert.equal(r[4], 'interrupted', show(tables));
    assert.equal(tableLines.at(-1), line);
    assert.deepEqual(tablesJson.json().interrupted, interruption);
    assert.equal(tablesJson.json().tables.find((t: { name: string }) => t.name === 'popstan_cases').row_count, processed);

    // metrics: interrupted, not not_started; the share broken out said as such, per dictionary too.
    const share = floorPercent(processed, total);
    assert.equal(metrics.code, 0, show(metrics));
    assert.deepEqual(metricsJson.json(), {
      total_cases: total,
      cases_by_dictionary: { [POPSTAN]: total },
      breakout_status: { [POPSTAN]: 'interrupted' },
      sync_rate: share,
      sync_rate_by_dictionary: { [POPSTAN]: share },
      breakout_interrupted: { [POPSTAN]: interruption },
    });
    assert.equal(
      metrics.stdout,
      [
        'dictionary\tcases\tbreakout\tbroken out',
        `${POPSTAN}\t${total}\tinterrupted\t${share}`,
        `total cases: ${total}, broken out into the targets: ${share} (sync_rate)`,
        line,
        '',
      ].join('\n'),
    );

    // status: the target holds the processed cases; last processed says interrupted, not `-`.
    assert.equal(status.code, 0, show(status));
    const item = statusJson.json().data[0];
    assert.equal(item.processed_cases, processed);
    assert.equal(item.cases_pending, total - processed);
    assert.equal(item.is_up_to_date, false);
    assert.deepEqual(item.breakout_interrupted, interruption);
    const statusLines = status.stdout.trimEnd().split('\n');
    assert.equal(statusLines[1]!.split('\t')[10], 'interrupted', show(status));
    assert.equal(statusLines.at(-1), line);

    // The same over HTTP, each reply as the served OpenAPI document describes it.
    const serve: ServeProcess = await startServe(home.root, { ...NO_DEFAULT, BREAKOUT_WEBHOOK_TOKEN: WEBHOOK_TOKEN });
    try {
      const doc = (await (await fetch(`${serve.url}/api/openapi.json`)).json()) as OpenApiDoc;
      const login = await fetch(`${serve.url}/api/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'password', username: 'ops', password: PASSWORD }),
      });
      const token = ((await login.json()) as { access_token: string }).access_token;
      const get = async (path: string, route: string, bearer = token): Promise<Record<string, unknown>> => {
        const r = await fetch(`${serve.url}${path}`, { headers: { authorization: `Bearer ${bearer}` } });
        const body = (await r.json()) as Record<string, unknown>;
        assert.equal(r.status, 200, JSON.stringify(body));
        assert.deepEqual(checkReply(doc, 'GET', route, 200, body), [], JSON.stringify(body));
        return body;
      };
      assert.deepEqual(await get('/api/metrics', '/api/metrics'), metricsJson.json());
      const t = await get(`/api/breakout/tables/${POPSTAN}`, '/api/breakout/tables/{dictionary}');
      assert.deepEqual(t.interrupted, interruption);
      const w = await get('/breakout-status-webhook.php?breakout_configured=true', '/breakout-status-webhook.php', WEBHOOK_TOKEN);
      assert.deepEqual((w.data as { breakout_interrupted: unknown }[])[0]!.breakout_interrupted, interruption);
    } finally {
      await serve.stop();
    }

    // The command named resumes from the saved cursor: exactly the rest, and nothing says interrupted.
    const resumed = await sds(home.root, ['process-cases-by-dict', POPSTAN, '--json'], { env: NO_DEFAULT });
    assert.equal(resumed.code, 0, show(resumed));
    assert.equal(resumed.json().result.total_cases, total - processed);
    const [after1, after2, after3] = await Promise.all([
      sds(home.root, ['metrics', '--json']),
      sds(home.root, ['breakout', 'tables', POPSTAN, '--json'], { env: NO_DEFAULT }),
      sds(home.root, ['status', '--json'], { env: NO_DEFAULT }),
    ]);
    const m = after1.json();
    assert.equal(m.breakout_status[POPSTAN], 'completed');
    assert.equal(m.sync_rate, '100.0%');
    assert.deepEqual(m.sync_rate_by_dictionary, { [POPSTAN]: '100.0%' });
    assert.deepEqual(m.breakout_interrupted, { [POPSTAN]: null });
    assert.equal(after2.json().interrupted, null);
    assert.equal(after2.json().tables.find((x: { name: string }) => x.name === 'popstan_cases').row_count, total);
    assert.equal(after3.json().data[0].breakout_interrupted, null);
    assert.equal(after3.json().data[0].is_up_to_date, true);
  },
);
