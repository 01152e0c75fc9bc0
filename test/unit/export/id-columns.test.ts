import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { planExport } from '../../../src/export/export-plan.js';
import { caseIds } from '../../../src/export/id-columns.js';
import type { ExportCell } from '../../../src/export/model.js';
import { dictionary, level, num, record } from '../breakout/plan-helpers.js';

describe('caseIds: the id values of a case inserted after case_id (docs/export.md#id-items)', () => {
  const dict = dictionary('TWO', [
    level('L1', [num('PROV', 2), num('DIST', 2)], [record('HOUSE', 1, [num('ROOMS', 2)])]),
    level('L2', [num('HH', 3)], [record('PERSON', 30, [num('AGE', 3)])]),
    level('L3', [num('ROOM', 2)], [record('ITEM', 5, [num('KIND', 1)])]),
  ]);
  const plan = planExport(dict, 'two');
  const table = (name: string) => plan.tables.find((t) => t.table.name === name)!;
  const index = (name: string) => plan.breakout.tables.findIndex((t) => t.name === name);

  // One case as the flattener gives it: rows per breakout table.
  const rows: ExportCell[][][] = plan.breakout.tables.map(() => []);
  rows[index('two_cases')]!.push(['g', 'key', 'label', 12, 34, false, 7, 't', 't']);
  rows[index('two_level_2')]!.push(['g', 1, 101], ['g', 2, 102]);
  rows[index('two_level_3')]!.push(['g', 1, 1, 11], ['g', 2, 1, 21], ['g', 2, 2, 22]);
  const insert = caseIds(plan, rows);

  it('level 1: the cases row ids', () => {
    assert.deepEqual(insert(table('two_house'), ['g', 1, 5]), ['g', 12, 34, 1, 5]);
  });

  it('level 2 and 3: the ancestor nodes by their occurrences', () => {
    assert.deepEqual(insert(table('two_person'), ['g', 2, 1, 40]), ['g', 12, 34, 102, 2, 1, 40]);
    assert.deepEqual(insert(table('two_item'), ['g', 2, 2, 3, 9]), ['g', 12, 34, 102, 22, 2, 2, 3, 9]);
    assert.deepEqual(insert(table('two_item'), ['g', 1, 1, 1, 9]), ['g', 12, 34, 101, 11, 1, 1, 1, 9]);
    assert.deepEqual(insert(table('two_level_3'), ['g', 2, 1, 21]), ['g', 12, 34, 102, 2, 1, 21]);
  });

  it('a node without a row gives blanks; the cases and notes tables are left as they are', () => {
    assert.deepEqual(insert(table('two_person'), ['g', 9, 1, 40]), ['g', 12, 34, null, 9, 1, 40]);
    const cases = rows[index('two_cases')]![0]!;
    assert.equal(insert(table('two_cases'), cases), cases);
  });
});
