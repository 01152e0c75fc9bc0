import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../../src/shared/errors.js';
import { parseCasesOptions } from '../../../src/sync/cases-options.js';

function refusal(text: string): AppError {
  try {
    parseCasesOptions(text);
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.code, 'CASES_OPTIONS_INVALID');
    return err;
  }
  assert.fail(`${text} was accepted`);
}

test('the requests the 8.1 client sends are read as it means them', () => {
  // The count of live cases.
  assert.deepEqual(parseCasesOptions('{"content":"count","status":"notDeletedOnly"}'), {
    content: 'count',
    query: { status: 'notDeletedOnly', order: 'position', ascending: true },
    offset: 0,
    requestMetadata: false,
  });
  // A lookup by key: filter =, top-level order, limit 1, metadata.
  assert.deepEqual(
    parseCasesOptions(
      '{"content":"cases","status":"notDeletedOnly","filter":{"operator":"=","type":"key","value":"0101"},"order":"position","limit":1,"requestMetadata":true}',
    ),
    {
      content: 'cases',
      query: { status: 'notDeletedOnly', filter: { field: 'key', operator: '=', value: '0101' }, order: 'position', ascending: true },
      offset: 0,
      limit: 1,
      requestMetadata: true,
    },
  );
  // A lookup by uuid (upper case from the client is matched against the stored lower case) and by position.
  assert.deepEqual(
    parseCasesOptions(
      '{"content":"identifiers","status":"all","filter":{"operator":"=","type":"uuid","value":"ABC-D"},"order":"position","limit":1}',
    ).query.filter,
    { field: 'uuid', operator: '=', value: 'abc-d' },
  );
  assert.deepEqual(
    parseCasesOptions('{"content":"identifiers","status":"all","filter":{"operator":"=","type":"position","value":17}}').query.filter,
    {
      field: 'position',
      operator: '=',
      value: 17,
    },
  );
  // An iterator page: sort, start operator, offset, limit.
  const it = parseCasesOptions(
    '{"content":"summaries","status":"duplicatesOnly","requestMetadata":true,"sort":{"order":"key","ascending":false},"filter":{"operator":">=","type":"key","value":"02"},"offset":2000,"limit":1000}',
  );
  assert.deepEqual(it.query, {
    status: 'duplicatesOnly',
    filter: { field: 'key', operator: '>=', value: '02' },
    order: 'key',
    ascending: false,
  });
  assert.equal(it.offset, 2000);
  assert.equal(it.limit, 1000);
  // A key prefix.
  assert.deepEqual(
    parseCasesOptions('{"content":"identifiers","status":"partialsOnly","filter":{"operator":"startswith","type":"key","value":"01"}}')
      .query,
    {
      status: 'partialsOnly',
      filter: { field: 'key', operator: 'startswith', value: '01' },
      order: 'position',
      ascending: true,
    },
  );
});

test('every status and operator is accepted; a sort with one member keeps the default of the other', () => {
  for (const status of ['all', 'notDeletedOnly', 'partialsOnly', 'duplicatesOnly']) {
    assert.equal(parseCasesOptions(`{"content":"count","status":"${status}"}`).query.status, status);
  }
  for (const op of ['=', '<', '<=', '>=', '>']) {
    assert.equal(
      parseCasesOptions(`{"content":"count","filter":{"operator":"${op}","type":"position","value":3}}`).query.filter?.operator,
      op,
    );
  }
  assert.deepEqual(parseCasesOptions('{"content":"cases","sort":{"ascending":false}}').query, {
    status: 'notDeletedOnly',
    order: 'position',
    ascending: false,
  });
  assert.deepEqual(parseCasesOptions('{"content":"cases","sort":{"order":"key"}}').query, {
    status: 'notDeletedOnly',
    order: 'key',
    ascending: true,
  });
  // A position given as a number in a string; keys a later client may add are ignored.
  assert.equal(
    parseCasesOptions('{"content":"count","filter":{"operator":">","type":"position","value":"-1"},"future":1}').query.filter?.value,
    -1,
  );
});

test('a malformed header is CASES_OPTIONS_INVALID naming the key', () => {
  assert.match(refusal('{"content":').message, /x-csw-cases-options is not JSON/);
  assert.match(refusal('[1]').message, /not a JSON object/);
  const cases: [string, string][] = [
    ['{}', 'content'],
    ['{"content":"rows"}', 'content'],
    ['{"content":"cases","status":"alive"}', 'status'],
    ['{"content":"cases","sort":{"order":"date"}}', 'sort.order'],
    ['{"content":"cases","sort":{"ascending":"yes"}}', 'sort.ascending'],
    ['{"content":"cases","sort":3}', 'sort'],
    ['{"content":"cases","order":"label"}', 'order'],
    ['{"content":"cases","offset":-1}', 'offset'],
    ['{"content":"cases","limit":1.5}', 'limit'],
    ['{"content":"cases","limit":"10"}', 'limit'],
    ['{"content":"cases","requestMetadata":1}', 'requestMetadata'],
    ['{"content":"cases","filter":{"type":"key","value":"1"}}', 'filter.operator'],
    ['{"content":"cases","filter":{"operator":"~","type":"key","value":"1"}}', 'filter.operator'],
    ['{"content":"cases","filter":{"operator":"=","type":"label","value":"1"}}', 'filter.type'],
    ['{"content":"cases","filter":{"operator":"=","type":"key","value":1}}', 'filter.value'],
    ['{"content":"cases","filter":{"operator":"=","type":"position","value":"x"}}', 'filter.value'],
    ['{"content":"cases","filter":{"operator":"=","type":"position","value":2.5}}', 'filter.value'],
    ['{"content":"cases","filter":{"operator":"startswith","type":"position","value":2}}', 'filter.operator'],
    ['{"content":"cases","filter":{"operator":">","type":"uuid","value":"a"}}', 'filter.operator'],
    ['{"content":"cases","filter":[]}', 'filter'],
  ];
  for (const [text, key] of cases) {
    const err = refusal(text);
    assert.equal(err.details.key, key, text);
    assert.ok(err.message.includes(`x-csw-cases-options: ${key} `), `${text}: ${err.message}`);
  }
  assert.match(refusal('{"content":"rows"}').message, /content is "rows", not one of "cases", "identifiers", "summaries", "count"/);
});

test('options nested deeper than the depth limit are JSON_TOO_DEEP before parsing; a deep value past the stack is still a 400', () => {
  const deep = (n: number) => `{"content":${'['.repeat(n)}${']'.repeat(n)}}`;
  assert.throws(
    () => parseCasesOptions(deep(64), 64),
    (err: unknown) =>
      err instanceof AppError &&
      err.code === 'JSON_TOO_DEEP' &&
      err.details.limit === 64 &&
      err.details.header === 'x-csw-cases-options' &&
      /at character 74/.test(err.message),
  );
  assert.throws(() => parseCasesOptions(deep(64)), /deeper than the limit of 64/, 'the default is the limit of bodies');
  assert.throws(
    () => parseCasesOptions(deep(63), 64),
    (err: unknown) => err instanceof AppError && err.code === 'CASES_OPTIONS_INVALID',
  );
  // With a limit set high, a value too deep to show is named by its kind.
  assert.throws(
    () => parseCasesOptions(deep(50_000), 100_000),
    (err: unknown) => err instanceof AppError && err.code === 'CASES_OPTIONS_INVALID' && err.message.includes('is […], not one of'),
  );
});
