/**
 * Importing a `.dat` into the wrong dictionary (issue 17, item 6): the real Popstan census file
 * into the CAPI household dictionary stops with ONE DICTIONARY_MISMATCH naming the file, the line,
 * the record types seen and those the dictionary expects, nothing stored, also with -q, instead of
 * a CASE_INVALID line per case. Only the start of a file counts (limits.import_mismatch_cases,
 * default 20): a right file with bad cases further on imports as before, and -q then prints one
 * line per file instead of one per case.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';
import { datLines, groupPopstan, writeDat } from '../../helpers/breakout-helpers.js';

const POPSTAN_DAT = fixture('popstan-census.dat');

async function homeWith(dcf: string, label: string): Promise<Awaited<ReturnType<typeof tempHome>>> {
  const home = await tempHome();
  const r = await sds(home.root, ['dict', 'upload', fixture(dcf), '--label', label]);
  assert.equal(r.code, 0, show(r));
  return home;
}

async function caseCount(root: string, dict: string): Promise<number> {
  const r = await sds(root, ['cases', 'list', dict, '--json']);
  assert.equal(r.code, 0, show(r));
  return r.json().total;
}

/** Popstan cases whose record type (column 1) is made one the dictionary does not have. */
function badTypes(cases: { lines: string[] }[]): string[] {
  return cases.flatMap((c) => c.lines.map((l) => 'Z' + l.slice(1)));
}

describe('a .dat of another dictionary', { concurrency: true }, () => {
  test('popstan-census.dat into the CAPI household dictionary: one DICTIONARY_MISMATCH, also with -q, nothing stored', async () => {
    const home = await homeWith('capi-household.dcf', 'hh');
    try {
      const dict = 'PSC_HOUSEHOLD_DICT';
      const q = await sds(home.root, ['cases', 'import', dict, POPSTAN_DAT, '-q']);
      assert.equal(q.code, 2, show(q));
      assert.equal(q.stdout, '');
      const lines = q.stderr.split('\n').filter(Boolean);
      assert.equal(lines.length, 1, show(q));
      assert.equal(
        lines[0],
        `sds: DICTIONARY_MISMATCH: ${POPSTAN_DAT} is not a file of ${dict}: its first 20 cases have only record types ${dict} does not know, ` +
          `from line 1 on (seen in column 1: "1", "2"); ${dict} expects "P" (POPULATION_RECORD), "D" (DWELLING_UNIT_RECORD), "X" (METADATA_RECORD); ` +
          `no file was imported [${POPSTAN_DAT}:1]`,
      );
      const plain = await sds(home.root, ['cases', 'import', dict, POPSTAN_DAT]);
      assert.equal(plain.code, 2, show(plain));
      assert.equal(plain.stderr, q.stderr, 'the same single line without -q');
      const j = await sds(home.root, ['cases', 'import', dict, POPSTAN_DAT, '--json']);
      assert.equal(j.code, 2, show(j));
      assert.equal(j.stderr, '');
      assert.deepEqual(j.json().details, {
        file: POPSTAN_DAT,
        line: 1,
        record_types_seen: ['1', '2'],
        record_types_expected: ['P', 'D', 'X'],
        cases_checked: 20,
      });
      assert.equal(await caseCount(home.root, dict), 0);
      // Refused before anything was read for the store: no import log either.
      const logs = join(home.root, 'logs', 'import');
      assert.deepEqual(existsSync(logs) ? readdirSync(logs) : [], []);
    } finally {
      await home.cleanup();
    }
  });

  test('a wrong file among right ones: the whole import is refused, the right file is not imported either', async () => {
    const home = await homeWith('popstan-census.json.dcf', 'popstan');
    const dir = mkdtempSync(join(tmpdir(), 'sds-mismatch-'));
    try {
      const cases = groupPopstan(datLines());
      const good = writeDat(
        dir,
        'good.dat',
        cases.slice(0, 50).flatMap((c) => c.lines),
      );
      const wrong = writeDat(dir, 'wrong.dat', badTypes(cases.slice(50, 100)));
      const r = await sds(home.root, ['cases', 'import', 'CEN2000', good, wrong, '-q']);
      assert.equal(r.code, 2, show(r));
      assert.match(
        r.stderr,
        new RegExp(
          `^sds: DICTIONARY_MISMATCH: ${wrong} is not a file of CEN2000: its first 20 cases .*\\(seen in column 1: "Z"\\).*no file was imported \\[${wrong}:1\\]\\n$`,
        ),
      );
      assert.equal(await caseCount(home.root, 'CEN2000'), 0);
    } finally {
      await home.cleanup();
    }
  });

  test('only the start counts: 19 bad cases then good ones import as before; -q prints one IMPORT_PARTIAL line, not 19', async () => {
    const home = await homeWith('popstan-census.json.dcf', 'popstan');
    const dir = mkdtempSync(join(tmpdir(), 'sds-mismatch-'));
    try {
      const cases = groupPopstan(datLines()).slice(0, 100);
      const file = writeDat(dir, 'mostly.dat', [...badTypes(cases.slice(0, 19)), ...cases.slice(19).flatMap((c) => c.lines)]);
      const q = await sds(home.root, ['cases', 'import', 'CEN2000', file, '-q']);
      assert.equal(q.code, 2, show(q));
      assert.equal(q.stdout, '');
      const lines = q.stderr.split('\n').filter(Boolean);
      assert.equal(lines.length, 1, show(q));
      assert.match(
        lines[0]!,
        new RegExp(
          `^sds: IMPORT_PARTIAL: 19 of 100 cases of ${file} could not be read; the others were stored; .*/logs/import/CEN2000_[-_\\d]+\\.log lists them$`,
        ),
      );
      assert.equal(await caseCount(home.root, 'CEN2000'), 81);
      // Without -q every unreadable case still has its line.
      const loud = await sds(home.root, ['cases', 'import', 'CEN2000', file]);
      assert.equal(loud.code, 2, show(loud));
      assert.equal(
        loud.stderr.split('\n').filter((l) => l.startsWith('sds: CASE_INVALID: unknown record type "Z"')).length,
        19,
        show(loud),
      );
    } finally {
      await home.cleanup();
    }
  });

  test('the limit is a setting; a file shorter than it with only unknown record types is refused too', async () => {
    const home = await homeWith('popstan-census.json.dcf', 'popstan');
    const dir = mkdtempSync(join(tmpdir(), 'sds-mismatch-'));
    try {
      const cases = groupPopstan(datLines()).slice(0, 100);
      const file = writeDat(dir, 'five.dat', [...badTypes(cases.slice(0, 5)), ...cases.slice(5).flatMap((c) => c.lines)]);
      const five = await sds(home.root, ['cases', 'import', 'CEN2000', file, '--json'], { env: { SDS_LIMIT_IMPORT_MISMATCH_CASES: '5' } });
      assert.equal(five.code, 2, show(five));
      assert.equal(five.json().error, 'DICTIONARY_MISMATCH');
      assert.equal(five.json().details.cases_checked, 5);
      assert.equal(await caseCount(home.root, 'CEN2000'), 0);

      const short = writeDat(dir, 'short.dat', badTypes(cases.slice(0, 3)));
      const r = await sds(home.root, ['cases', 'import', 'CEN2000', short, '--json']);
      assert.equal(r.code, 2, show(r));
      assert.match(r.json().message, /: all 3 of its cases have only record types CEN2000 does not know/);

      const bad = await sds(home.root, ['cases', 'import', 'CEN2000', short, '--json'], { env: { SDS_LIMIT_IMPORT_MISMATCH_CASES: '0' } });
      assert.equal(bad.code, 2, show(bad));
      assert.equal(bad.json().error, 'CONFIG_INVALID');
    } finally {
      await home.cleanup();
    }
  });
});
