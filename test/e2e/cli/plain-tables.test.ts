/**
 * Tables on pipes (issue 17, item 6): `sds logs`, `sds status` and every other table are a header
 * line then one tab-separated line per row when stdout is not a terminal (a pipe here), boxed on
 * a terminal (given by script(1)), and plain on a terminal too with --plain.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { runCliAsync as sds, SDS_BIN, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';

const BOX = /[│┌┐└┘├┤┬┴┼─]/;
const home = await tempHome();
after(() => home.cleanup());

before(async () => {
  for (const args of [
    ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan'],
    ['cases', 'import', 'CEN2000', fixture('popstan-census.dat'), '-q'],
    ['process-cases-by-dict', 'CEN2000', '-q'],
  ]) {
    const r = await sds(home.root, args);
    assert.equal(r.code, 0, show(r));
  }
});

/** Runs the CLI with a terminal as stdout (script(1) allocates one); returns what the terminal showed. */
function onTerminal(args: string[]): string {
  const line = [process.execPath, SDS_BIN, '--home', home.root, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('script', ['-qec', line, '/dev/null'], {
    env: { ...process.env, NO_COLOR: '1', CI: '1', COLUMNS: '250' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  return r.stdout.replace(/\r\n/g, '\n');
}

/** Checks a plain table: the header given, then `rows` lines of as many tab-separated cells. */
function assertPlain(out: string, head: string[], minRows: number): string[][] {
  assert.doesNotMatch(out, BOX, out);
  const lines = out.split('\n');
  assert.deepEqual(lines[0]!.split('\t'), head, out);
  const rows = lines
    .slice(1)
    .filter((l) => l.includes('\t'))
    .map((l) => l.split('\t'));
  assert.ok(rows.length >= minRows, out);
  for (const r of rows) assert.equal(r.length, head.length, r.join('|'));
  return rows;
}

const LOG_HEAD = ['time', 'level', 'dictionary', 'progress', 'message'];
const STATUS_HEAD = [
  'dictionary',
  'target',
  'cron',
  'last run',
  'exit',
  'cases',
  'processed',
  'pending',
  'rate',
  'up to date',
  'last processed',
];

test('logs and status on a pipe: a header line, then one tab-separated line per row, no boxes', async () => {
  const [logs, status, jobs] = await Promise.all([
    sds(home.root, ['logs']),
    sds(home.root, ['status']),
    sds(home.root, ['breakout', 'jobs']),
  ]);
  for (const r of [logs, status, jobs]) assert.equal(r.code, 0, show(r));
  const logRows = assertPlain(logs.stdout, LOG_HEAD, 2);
  assert.ok(
    logRows.every((r) => r[2] === 'CEN2000' && r[1] === 'info'),
    logs.stdout,
  );
  assert.equal(logs.stdout.split('\n').length, logRows.length + 2, 'nothing but the header and the rows');
  const [row] = assertPlain(status.stdout, STATUS_HEAD, 1);
  assert.deepEqual([row![0], row![5], row![6], row![7], row![9]], ['CEN2000', '4872', '4872', '0', 'true']);
  assert.match(status.stdout, /\npage 1 of 1, 1 dictionaries \(times in UTC\)\n$/);
  assertPlain(jobs.stdout, ['job_id', 'status', 'dictionaries', 'cases', 'execution_time', 'started_at'], 1);
});

test('on a terminal the tables are boxed, and --plain makes them tab-separated again', () => {
  for (const args of [['logs'], ['status']]) {
    const boxed = onTerminal(args);
    assert.match(boxed, BOX, boxed);
    assert.doesNotMatch(boxed, /\t/, boxed);
    assert.match(boxed, /│ CEN2000/, boxed);
    const plain = onTerminal(['--plain', ...args]);
    assertPlain(plain, args[0] === 'logs' ? LOG_HEAD : STATUS_HEAD, 1);
    // --plain also after the command, like every global option.
    assertPlain(onTerminal([...args, '--plain']), args[0] === 'logs' ? LOG_HEAD : STATUS_HEAD, 1);
  }
});
