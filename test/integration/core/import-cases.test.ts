import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { uploadDictionary } from '../../../src/core/dictionaries/dictionaries.js';
import { importCases } from '../../../src/core/cases/import/import-cases.js';
import { AppError } from '../../../src/shared/errors.js';
import { fixture, tempStore } from '../../helpers/temp-home.js';
import { writeCsdb } from '../../helpers/build-csdb.js';
import {
  OWN_CASES,
  TRIMMED_DAT,
  TRIMMED_DCF,
  trimmedDcfText,
  trimmedDict,
  writeOtherCsdb,
  writeOwnCsdb,
} from '../../helpers/trimmed-ids.js';

/** The first `n` cases of the census .dat, each with its first person's age (cols 24-25) made "x<k>". */
function censusWithBadAges(n: number): string {
  const lines = readFileSync(fixture('popstan-census.dat'), 'utf8')
    .replace(/^\uFEFF/, '')
    .split('\n');
  const out: string[] = [];
  let key: string | undefined;
  let cases = 0;
  for (const line of lines) {
    if (line.slice(1, 19) !== key) {
      if (cases === n) break;
      cases += 1;
      key = line.slice(1, 19);
      out.push(line.slice(0, 23) + `x${cases % 10}` + line.slice(25));
    } else out.push(line);
  }
  return out.join('\r\n') + '\r\n';
}

describe('importCases', { concurrency: true }, () => {
  test('lists the first warnings with case, line, item and value, counts the rest, and logs them all', async () => {
    const t = await tempStore();
    try {
      const up = await uploadDictionary(t.store, { source: readFileSync(fixture('popstan-census.json.dcf')), label: 'popstan' });
      const file = join(t.home.root, 'bad-ages.dat');
      writeFileSync(file, censusWithBadAges(7));
      const now = () => new Date(Date.UTC(2025, 4, 6, 7, 8, 9));
      const r = await importCases(t.store, up.name, [file], { detailLimit: 3, now });
      const f = r.files[0]!;
      assert.deepEqual([f.read, f.inserted, f.failed, f.warnings, f.warningList.length, f.warningsNotListed], [7, 7, 0, 7, 3, 4]);
      const firstKey = readFileSync(fixture('popstan-census.dat'), 'utf8')
        .replace(/^\uFEFF/, '')
        .slice(1, 19);
      assert.deepEqual(f.warningList[0], {
        kind: 'invalid-value',
        message: 'item P04_AGE holds "x1", not a number; read as DEFAULT',
        record: 'PERSON',
        item: 'P04_AGE',
        occurrence: 1,
        value: 'x1',
        line: 1,
        case: firstKey,
      });
      assert.deepEqual(r.total.warnings, 7);

      assert.equal(r.log, join(t.home.root, 'logs', 'import', 'CEN2000_2025-05-06_07-08-09.log'));
      const log = readFileSync(r.log, 'utf8').split('\n');
      const warnings = log.filter((l) => l.startsWith('warning '));
      assert.equal(warnings.length, 7, 'the log has every warning, listed or not');
      assert.equal(
        warnings[0],
        `warning invalid-value: ${file}:1 (case "${firstKey}", record PERSON(1), item P04_AGE) value "x1": item P04_AGE holds "x1", not a number; read as DEFAULT`,
      );
      assert.ok(log.includes(`${file}: read 7, inserted 7, updated 0, unchanged 0, older 0, failed 0, warnings 7`), log.join('\n'));

      // A second import in the same second gets its own log.
      const again = await importCases(t.store, up.name, [file], { now });
      assert.equal(again.log, join(t.home.root, 'logs', 'import', 'CEN2000_2025-05-06_07-08-09_2.log'));
      assert.equal(again.files[0]!.warningList.length, 7);
    } finally {
      await t.cleanup();
    }
  });

  test('keeps the case with a line trimmed inside the id area, with a blank-id warning', async () => {
    const t = await tempStore();
    try {
      const up = await uploadDictionary(t.store, { source: readFileSync(TRIMMED_DCF), label: 'trim' });
      const r = await importCases(t.store, up.name, [TRIMMED_DAT]);
      assert.deepEqual([r.total.read, r.total.inserted, r.total.failed, r.total.warnings], [3, 3, 0, 2]);
      assert.deepEqual(
        r.files[0]!.warningList.map((w) => [w.kind, w.case, w.line, w.item]),
        [
          ['blank-id', '215957  ', 1, 'VISIT'],
          ['blank-id', '310001  ', 11, 'VISIT'],
        ],
      );
      assert.equal(await t.store.cases.countActive((await t.store.dictionaries.find(up.name))!.id), 3);
    } finally {
      await t.cleanup();
    }
  });

  test('refuses a .csdb of another dictionary before storing anything, even the files before it', async () => {
    const t = await tempStore();
    try {
      const up = await uploadDictionary(t.store, { source: readFileSync(TRIMMED_DCF), label: 'trim' });
      const own = join(t.home.root, 'own.csdb');
      const other = join(t.home.root, 'other.csdb');
      writeOwnCsdb(own);
      writeOtherCsdb(other);
      await assert.rejects(importCases(t.store, up.name, [TRIMMED_DAT, own, other]), (err: AppError) => {
        assert.equal(err.code, 'DICTIONARY_MISMATCH');
        assert.equal(err.details.file, other);
        assert.match(
          err.message,
          /record PERSON has items PNUM, GENDER, AGE_YEARS, FULL_NAME in the file that the dictionary does not have/,
        );
        assert.match(err.message, /no file was imported$/);
        return true;
      });
      assert.equal(await t.store.cases.countActive((await t.store.dictionaries.find(up.name))!.id), 0);
      assert.equal(existsSync(t.home.importLogs), false, 'a refused import writes no log');

      // A .csdb of its own dictionary imports; its warnings are located by the case's position.
      const r = await importCases(t.store, up.name, [own]);
      assert.deepEqual([r.total.read, r.total.inserted, r.total.failed, r.total.warnings], [3, 3, 0, 0]);
      const odd = join(t.home.root, 'odd.csdb');
      const cases = OWN_CASES.map((c, i) => (i === 1 ? { ...c, level1: { ...c.level1, PERSON: [{ LINE: 1, AGE: 'forty' }] } } : c));
      writeCsdb(odd, trimmedDict(), trimmedDcfText(), cases);
      const w = await importCases(t.store, up.name, [odd]);
      assert.deepEqual(w.files[0]!.warningList, [
        {
          kind: 'invalid-value',
          message: 'item AGE holds "forty", not a number; read as DEFAULT',
          record: 'PERSON',
          item: 'AGE',
          value: 'forty',
          case: '101002 1',
          index: 1,
        },
      ]);
      assert.match(
        readFileSync(w.log, 'utf8'),
        new RegExp(`warning invalid-value: ${odd} case #2 \\(case "101002 1", record PERSON, item AGE\\) value "forty"`),
      );
    } finally {
      await t.cleanup();
    }
  });
});
