import { test } from 'node:test';
import assert from 'node:assert/strict';
import { movedSql } from '../../../src/store/sync-repo.js';
import { storeSql, tempStore } from '../../helpers/temp-home.js';

// The SQLite store's statements that move a download's total (docs/decisions.md, "A download's
// total across new uploads"); the PostgreSQL store's are the function sds_moved_total.
test('moving a download total by the cases written since reads two indexes, not the table', async (t) => {
  const { store, cleanup } = await tempStore('sqlite');
  t.after(cleanup);
  const params = { dict: 1, from: 5, upTo: 9, afterRevision: 3, afterGuid: 'x', exclude: '[1]' };
  const plans: string[] = [];
  for (const exclude of [false, true]) {
    const sql = movedSql(exclude);
    for (const q of [sql.added, sql.removed]) {
      const rows = await storeSql(store, `EXPLAIN QUERY PLAN ${q}`, exclude ? [params] : [{ ...params, exclude: undefined }]);
      plans.push(
        rows
          .map((r) => String(r.detail))
          .filter((d) => d.includes('cases '))
          .join(' | '),
      );
    }
  }
  assert.deepEqual(
    plans.map((p) => /USING COVERING INDEX (\w+)/.exec(p)?.[1]),
    ['cases_by_revision', 'cases_changed', 'cases_by_revision', 'cases_changed'],
    plans.join('\n'),
  );
});
