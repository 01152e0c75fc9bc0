/**
 * `sds export … --out -` (docs/export.md#a-zip-on-standard-output): the export as one zip on
 * standard output, read back by Python's zipfile and compared with a folder export of the same
 * cases; standard output holds the zip alone (summary, --json and errors on standard error), no
 * folder named `-` is made, a terminal is refused, and the temporary folder under TMPDIR is gone
 * afterwards, also when the reader goes away.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync as sds, SDS_BIN, show } from '../../helpers/run-cli.js';
import { tempHome } from '../../helpers/temp-home.js';
import { python, readCsvFiles } from '../../helpers/export-readback.js';
import { EDGE_DICTIONARY, EDGE_HOUSEHOLDS, EDGE_LABEL, writeEdgeFixture } from '../../helpers/edge-export-fixture.js';

async function ok(home: string, args: string[], opts: Parameters<typeof sds>[2] = {}) {
  const r = await sds(home, args, opts);
  assert.equal(r.code, 0, show(r));
  return r;
}

/** The entries of a zip, read by Python's zipfile (CRC checked): name → bytes as base64. */
function unzip(file: string): Record<string, string> {
  return python<Record<string, string>>(
    `import base64, json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    assert z.testzip() is None
    print(json.dumps({i.filename: base64.b64encode(z.read(i)).decode() for i in z.infolist()}))`,
    [file],
  );
}

describe('sds export --out -', async () => {
  const home = await tempHome();
  after(() => home.cleanup());
  const cwd = join(home.root, 'work');
  const tmp = join(home.root, 'tmp');
  const env = { TMPDIR: tmp };

  before(async () => {
    mkdirSync(cwd);
    mkdirSync(tmp);
    const { dcf, dat } = writeEdgeFixture(home.root);
    await ok(home.root, ['dict', 'upload', dcf, '--label', EDGE_LABEL]);
    await ok(home.root, ['cases', 'import', EDGE_DICTIONARY, dat, '-q']);
  });

  test('writes a zip of every file of a folder export to stdout, the summary to stderr, no folder "-"', async () => {
    const r = await ok(home.root, ['export', EDGE_DICTIONARY, '--format', 'csv', '--out', '-'], { cwd, env });
    assert.ok(!existsSync(join(cwd, '-')), 'no folder named -');
    assert.deepEqual(readdirSync(tmp), [], 'the temporary folder is gone');
    assert.match(
      r.stderr,
      new RegExp(`exported ${EDGE_HOUSEHOLDS.length} cases of ${EDGE_DICTIONARY} as csv into a zip on standard output`),
    );
    const zipFile = join(home.root, 'export.zip');
    writeFileSync(zipFile, r.raw);
    const entries = unzip(zipFile);
    const dir = join(home.root, 'folder');
    await ok(home.root, ['export', EDGE_DICTIONARY, '--format', 'csv', '--out', dir]);
    const files = ['edge_cases.csv', 'edge_household.csv', 'edge_emptyrec.csv', 'edge_notes.csv', 'codebook.csv'];
    assert.deepEqual(Object.keys(entries), files, 'the files of a folder export, in its order');
    for (const f of files.filter((x) => x !== 'edge_cases.csv')) {
      assert.ok(Buffer.from(entries[f]!, 'base64').equals(readFileSync(join(dir, f))), `${f}: the same bytes as in the folder`);
    }
    // The cases file differs in breakout_time only, the time of each export.
    writeFileSync(join(home.root, 'zipped-cases.csv'), Buffer.from(entries['edge_cases.csv']!, 'base64'));
    const csv = readCsvFiles([join(home.root, 'zipped-cases.csv'), join(dir, 'edge_cases.csv')]);
    const [zipped, folder] = [csv[join(home.root, 'zipped-cases.csv')]!, csv[join(dir, 'edge_cases.csv')]!];
    const time = folder[0]!.indexOf('breakout_time');
    assert.ok(time >= 0);
    assert.equal(zipped.length, EDGE_HOUSEHOLDS.length + 1);
    const drop = (rows: string[][]) => rows.map((row) => row.filter((_, i) => i !== time));
    assert.deepEqual(drop(zipped), drop(folder));
  });

  test('with --json stdout is still the zip alone; the summary and errors are JSON on stderr', async () => {
    const r = await ok(home.root, ['export', EDGE_DICTIONARY, '--format', 'parquet', '--out', '-', '--json'], { cwd, env });
    assert.equal(r.raw.subarray(0, 4).toString('latin1'), 'PK\x03\x04', 'a zip from the first byte');
    const summary = JSON.parse(r.stderr) as { folder: string; format: string; files: { file: string }[] };
    assert.equal(summary.folder, '-');
    assert.equal(summary.format, 'parquet');
    const zipFile = join(home.root, 'export-parquet.zip');
    writeFileSync(zipFile, r.raw);
    assert.deepEqual(
      Object.keys(unzip(zipFile)),
      summary.files.map((f) => f.file),
    );

    const missing = await sds(home.root, ['export', 'NO_SUCH_DICT', '--format', 'csv', '--out', '-', '--json'], { cwd, env });
    assert.equal(missing.code, 3, show(missing));
    assert.equal(missing.raw.length, 0, 'nothing on stdout');
    assert.equal((JSON.parse(missing.stderr) as { error: string }).error, 'DICTIONARY_NOT_FOUND');
    const badRevision = await sds(
      home.root,
      ['export', EDGE_DICTIONARY, '--format', 'csv', '--out', '-', '--since-revision', 'x', '--json'],
      {
        cwd,
        env,
      },
    );
    assert.equal(badRevision.code, 2, show(badRevision));
    assert.equal(badRevision.raw.length, 0, 'nothing on stdout');
    assert.equal((JSON.parse(badRevision.stderr) as { error: string }).error, 'USAGE');
    assert.deepEqual(readdirSync(tmp), []);
    assert.ok(!existsSync(join(cwd, '-')));
  });

  test('a reader that goes away ends the export quietly and the temporary folder is removed', async () => {
    const child = spawn(process.execPath, [SDS_BIN, '--home', home.root, 'export', EDGE_DICTIONARY, '--format', 'stata', '--out', '-'], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', CI: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Closed before the child can write: its first write of the zip meets a closed pipe.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stderr, /EPIPE|Error/);
    assert.deepEqual(readdirSync(tmp), [], 'the temporary folder is gone');
  });

  test('a terminal as stdout is refused', () => {
    const line = [process.execPath, SDS_BIN, '--home', home.root, 'export', EDGE_DICTIONARY, '--format', 'csv', '--out', '-']
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    // script(1) gives the command a terminal as stdout (and stderr); -e passes its exit code on.
    const r = spawnSync('script', ['-qec', line, '/dev/null'], {
      cwd,
      env: { ...process.env, NO_COLOR: '1', CI: '1', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(r.status, 2, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /USAGE: standard output is a terminal: redirect --out - to a file \(> export\.zip\) or pipe it/);
    assert.ok(!existsSync(join(cwd, '-')));
    assert.deepEqual(readdirSync(tmp), []);
  });
});
