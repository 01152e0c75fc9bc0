import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { TRIMMED_DAT, TRIMMED_DCF, writeOtherCsdb } from '../../helpers/trimmed-ids.js';

async function uploadTrimmed(root: string): Promise<void> {
  const r = await sds(root, ['dict', 'upload', TRIMMED_DCF, '--label', 'trim', '--json']);
  assert.equal(r.code, 0, show(r));
}

describe('cases import: nothing valid lost, nothing mismatched passes, warnings readable', { concurrency: true }, () => {
  test('a .dat with a line trimmed inside the id area (BOM, CRLF) imports every case; the warnings are listed and logged', async () => {
    const home = await tempHome();
    try {
      await uploadTrimmed(home.root);
      const r = await sds(home.root, ['cases', 'import', 'TRIMMED_IDS_DICT', TRIMMED_DAT, '--json']);
      assert.equal(r.code, 0, show(r));
      const rep = r.json();
      assert.deepEqual(rep.total, { read: 3, inserted: 3, updated: 0, unchanged: 0, older: 0, failed: 0, warnings: 2 });
      assert.deepEqual(rep.files[0].errors, []);
      assert.deepEqual(
        rep.files[0].warningList.map((w: { kind: string; case: string; line: number; item: string }) => [w.kind, w.case, w.line, w.item]),
        [
          ['blank-id', '215957  ', 1, 'VISIT'],
          ['blank-id', '310001  ', 11, 'VISIT'],
        ],
      );
      assert.equal(rep.files[0].warningsNotListed, 0);
      assert.match(rep.log, /\/logs\/import\/TRIMMED_IDS_DICT_\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d\.log$/);
      assert.ok(rep.log.startsWith(home.root));
      const log = readFileSync(rep.log, 'utf8');
      assert.match(log, /warning blank-id: .*trimmed-ids\.dat:1 \(case "215957 {2}", item VISIT\): id item VISIT is blank/);
      assert.match(log, /warning blank-id: .*trimmed-ids\.dat:11 \(case "310001 {2}", item VISIT\)/);

      const list = (await sds(home.root, ['cases', 'list', 'TRIMMED_IDS_DICT', '--json'])).json();
      assert.equal(list.total, 3);
      const shown = await Promise.all(
        list.data.map((c: { guid: string }) => sds(home.root, ['cases', 'show', 'TRIMMED_IDS_DICT', c.guid, '--json'])),
      );
      const big = shown.map((s) => s.json()).find((c) => c.caseids === '215957  ');
      assert.equal(big['level-1'].PERSON.length, 6, 'the trimmed blank person line is kept');

      // Text output: the table, the log path on stdout, and where to read the warnings on stderr.
      const text = await sds(home.root, ['cases', 'import', 'TRIMMED_IDS_DICT', TRIMMED_DAT]);
      assert.equal(text.code, 0, show(text));
      const logLine = text.stdout.split('\n').find((l) => l.startsWith('log: '));
      assert.ok(logLine && existsSync(logLine.slice(5)), show(text));
      assert.match(text.stderr, /2 warnings; --verbose lists them/);
      assert.doesNotMatch(text.stderr, /blank-id/);
      const verbose = await sds(home.root, ['cases', 'import', 'TRIMMED_IDS_DICT', TRIMMED_DAT, '--verbose']);
      assert.equal(verbose.code, 0, show(verbose));
      assert.match(verbose.stderr, /sds: warning blank-id: .*trimmed-ids\.dat:1 \(case "215957 {2}", item VISIT\): id item VISIT is blank/);
      assert.equal(readdirSync(join(home.root, 'logs', 'import')).length, 3, 'one log per import');
    } finally {
      await home.cleanup();
    }
  });

  test('a .csdb written with another dictionary exits 2 with DICTIONARY_MISMATCH and stores nothing', async () => {
    const home = await tempHome();
    try {
      await uploadTrimmed(home.root);
      const other = join(home.root, 'other.csdb');
      writeOtherCsdb(other);
      const r = await sds(home.root, ['cases', 'import', 'TRIMMED_IDS_DICT', TRIMMED_DAT, other, '--json']);
      assert.equal(r.code, 2, show(r));
      const e = r.json();
      assert.equal(e.error, 'DICTIONARY_MISMATCH');
      assert.equal(e.details.file, other);
      assert.ok(
        e.details.differences.includes(
          'record PERSON has items PNUM, GENDER, AGE_YEARS, FULL_NAME in the file that the dictionary does not have',
        ),
      );
      const text = await sds(home.root, ['cases', 'import', 'TRIMMED_IDS_DICT', other]);
      assert.equal(text.code, 2, show(text));
      assert.match(
        text.stderr,
        /^sds: DICTIONARY_MISMATCH: .*other\.csdb was not written with dictionary TRIMMED_IDS_DICT: .*no file was imported/,
      );
      const list = (await sds(home.root, ['cases', 'list', 'TRIMMED_IDS_DICT', '--json'])).json();
      assert.equal(list.total, 0, 'not even the .dat before it');
    } finally {
      await home.cleanup();
    }
  });

  test('--verbose lists 50 warnings of a file and says how many more the log holds', async () => {
    const home = await tempHome();
    try {
      const up = await sds(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan']);
      assert.equal(up.code, 0, show(up));
      // Every person line of the first 400 lines gets an age that is not a number.
      const lines = readFileSync(fixture('popstan-census.dat'), 'utf8')
        .replace(/^\uFEFF/, '')
        .split('\n')
        .slice(0, 400);
      const bad = lines.map((l) => (l[0] === '1' ? l.slice(0, 23) + 'x9' + l.slice(25) : l));
      const persons = bad.filter((l) => l[0] === '1').length;
      const file = join(home.root, 'bad-ages.dat');
      writeFileSync(file, bad.join('\n') + '\n');
      const r = await sds(home.root, ['cases', 'import', 'CEN2000', file, '--verbose']);
      assert.equal(r.code, 0, show(r));
      const listed = r.stderr.split('\n').filter((l) => l.startsWith('sds: warning invalid-value: '));
      assert.equal(listed.length, 50);
      assert.match(listed[0]!, /bad-ages\.dat:1 \(case "\d{18}", record PERSON\(1\), item P04_AGE\) value "x9": /);
      const logPath = r.stdout
        .split('\n')
        .find((l) => l.startsWith('log: '))!
        .slice(5);
      assert.match(r.stderr, new RegExp(`sds: \\.\\.\\. and ${persons - 50} more warnings of .*bad-ages\\.dat in ${logPath}`));
      assert.equal(
        readFileSync(logPath, 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('warning invalid-value: ')).length,
        persons,
      );
    } finally {
      await home.cleanup();
    }
  });
});
