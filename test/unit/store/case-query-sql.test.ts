import { test } from 'node:test';
import assert from 'node:assert/strict';
import { caseQuerySql, prefixUpperBound } from '../../../src/store/case-query-sql.js';

test('a key prefix becomes a range of the key index: the next string after every string with that prefix', () => {
  assert.equal(prefixUpperBound('01'), '02');
  assert.equal(prefixUpperBound('a9'), 'a:');
  assert.equal(prefixUpperBound('é'), 'ê');
  assert.equal(prefixUpperBound('x\u{10FFFF}'), 'y');
  assert.equal(prefixUpperBound('\u{10FFFF}'), undefined);
  assert.equal(prefixUpperBound('\uD7FF'), '\uE000');
  assert.equal(prefixUpperBound('a\u{1F600}'), 'a\u{1F601}');
  // Every string that starts with the prefix sorts below the bound in code point order (SQLite's BINARY on UTF-8).
  const cmp = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  for (const s of ['01', '01\u{10FFFF}\u{10FFFF}', '01zz', '01\uFFFF']) assert.ok(cmp(s, prefixUpperBound('01')!) < 0, s);
  assert.ok(cmp('02', prefixUpperBound('01')!) >= 0);
});

test('statuses, filters and orders become where clauses and an order, values as parameters', () => {
  const live = caseQuerySql({ status: 'notDeletedOnly', order: 'position', ascending: true });
  assert.equal(live.from, 'FROM cases WHERE dictionary_id = @dict AND deleted = 0');
  assert.equal(live.orderBy, 'ORDER BY position ASC');
  assert.deepEqual(live.params, {});

  const all = caseQuerySql({ status: 'all', order: 'key', ascending: false, filter: { field: 'key', operator: '<=', value: "0'1" } });
  assert.equal(all.from, 'FROM cases WHERE dictionary_id = @dict AND case_key <= @value');
  assert.equal(all.orderBy, 'ORDER BY case_key DESC, position DESC');
  assert.deepEqual(all.params, { value: "0'1" });

  const partials = caseQuerySql({
    status: 'partialsOnly',
    order: 'position',
    ascending: true,
    filter: { field: 'uuid', operator: '=', value: 'ab' },
  });
  assert.match(partials.from, /deleted = 0 AND partial_save IS NOT NULL AND guid = @value$/);

  const dups = caseQuerySql({
    status: 'duplicatesOnly',
    order: 'key',
    ascending: true,
    filter: { field: 'key', operator: 'startswith', value: '01' },
  });
  assert.match(
    dups.from,
    /case_key IN \(SELECT case_key FROM cases WHERE dictionary_id = @dict AND deleted = 0 GROUP BY case_key HAVING count\(\*\) > 1\)/,
  );
  assert.match(dups.from, /case_key >= @prefix AND case_key < @upper$/);
  assert.deepEqual(dups.params, { prefix: '01', upper: '02' });

  // The same shape with other values shares one statement; another shape does not.
  const a = caseQuerySql({ status: 'all', order: 'position', ascending: true, filter: { field: 'position', operator: '>', value: 1 } });
  const b = caseQuerySql({ status: 'all', order: 'position', ascending: true, filter: { field: 'position', operator: '>', value: 99 } });
  const c = caseQuerySql({ status: 'all', order: 'position', ascending: true, filter: { field: 'position', operator: '>=', value: 1 } });
  assert.equal(a.shape, b.shape);
  assert.notEqual(a.shape, c.shape);
  assert.equal(a.from, b.from);
});
