import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { planBreakout } from '../../../src/breakout/plan.js';
import { shortenIdentifier } from '../../../src/breakout/shorten-identifier.js';
import { AppError } from '../../../src/shared/errors.js';
import { dictionary, level, num, record, surveyDict, twoLevelDict } from './plan-helpers.js';

const sha8 = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 8);

describe('shortenIdentifier', () => {
  for (const limit of [63, 64, 128]) {
    it(`keeps names of at most ${limit} characters and shortens longer ones to exactly ${limit}`, () => {
      const fits = 'x'.repeat(limit);
      assert.equal(shortenIdentifier(fits, limit), fits);
      const long = `${'a'.repeat(limit - 5)}_too_long_by_a_lot`;
      const short = shortenIdentifier(long, limit);
      assert.equal(short, `${long.slice(0, limit - 9)}_${sha8(long)}`);
      assert.equal(short.length, limit);
      assert.equal(shortenIdentifier(long, limit), short, 'deterministic');
    });
  }

  it('gives different results to long names that share their head', () => {
    const head = 'p_'.padEnd(70, 'x');
    const a = shortenIdentifier(`${head}_alpha`, 63);
    const b = shortenIdentifier(`${head}_beta`, 63);
    assert.equal(a.slice(0, 54), b.slice(0, 54));
    assert.notEqual(a, b);
  });

  it('a known value (the rule must not drift: names in existing targets depend on it)', () => {
    assert.equal(shortenIdentifier('survey_a_record_name_that_is_long', 20), 'survey_a_re_4f358620');
  });
});

/** Asserts `fn` throws NAME_COLLISION and that the message names every one of `mentions`. */
function assertCollision(fn: () => unknown, mentions: string[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof AppError, String(e));
    assert.equal(e.code, 'NAME_COLLISION');
    for (const m of mentions) assert.ok(e.message.includes(m), `message "${e.message}" should mention ${m}`);
    return true;
  });
}

const oneRecord = (recordName: string, items = [num('X', 1)]) =>
  dictionary('D', [level('Q', [num('ID', 1)], [record(recordName, 1, items)])]);

describe('planBreakout: name collisions', () => {
  const limits = { maxIdentifierLength: 63 };

  for (const [name, other] of [
    ['CASES', 'the cases table'],
    ['NOTES', 'the notes table'],
    ['CSPRO_JOBS', 'the jobs table'],
  ] as const) {
    it(`a record named ${name} collides with ${other}`, () => {
      assertCollision(() => planBreakout(oneRecord(name), 'p', limits), [`"p_${name.toLowerCase()}"`, other, `record ${name}`]);
    });
  }

  it('a record named LEVEL_2 collides with the level-2 table', () => {
    const dict = twoLevelDict();
    dict.levels[1]!.records[0]!.name = 'LEVEL_2';
    assertCollision(() => planBreakout(dict, 'p', limits), ['"p_level_2"', 'the table of level 2 (HOUSEHOLD)', 'record LEVEL_2']);
  });

  it('an item named OCC or CASE_ID collides with the key columns', () => {
    assertCollision(
      () => planBreakout(oneRecord('R', [num('OCC', 1)]), 'p', limits),
      ['"occ"', '"p_r"', 'the occurrence column', 'item of record R OCC'],
    );
    assertCollision(
      () => planBreakout(oneRecord('R', [num('CASE_ID', 1)]), 'p', limits),
      ['"case_id"', 'the case id column', 'item of record R CASE_ID'],
    );
  });

  it('a level-2 item named LEVEL_2_OCC collides with the level path column', () => {
    const dict = twoLevelDict();
    dict.levels[1]!.records[1]!.items.push(num('LEVEL_2_OCC', 1));
    assertCollision(
      () => planBreakout(dict, 'p', limits),
      ['"level_2_occ"', 'the level 2 occurrence column', 'item of record POP_REC LEVEL_2_OCC'],
    );
  });

  it('level-1 id items collide with the fixed columns of the cases table', () => {
    const dict = oneRecord('R');
    dict.levels[0]!.ids.push(num('VERIFIED', 1));
    assertCollision(() => planBreakout(dict, 'p', limits), ['"verified"', '"p_cases"', 'id item VERIFIED', 'the verified column']);
  });

  it('a level id item named OCC collides in the level table', () => {
    const dict = twoLevelDict();
    dict.levels[1]!.ids.push(num('OCC', 1));
    assertCollision(() => planBreakout(dict, 'p', limits), ['"p_level_2"', 'id item of level 2 OCC', 'the occurrence column']);
  });

  it('occurrence columns of a repeating item collide with a like-named item', () => {
    const items = [num('A', 1, { occurrences: 2 }), num('A_1', 1)];
    assertCollision(
      () => planBreakout(oneRecord('R', items), 'p', limits),
      ['"a_1"', 'item of record R A occurrence 1', 'item of record R A_1'],
    );
  });

  it('two records whose names differ only in case collide', () => {
    const dict = dictionary('D', [level('Q', [num('ID', 1)], [record('R', 1, [num('X', 1)]), record('r', 1, [num('Y', 1)])])]);
    assertCollision(() => planBreakout(dict, 'p', limits), ['"p_r"', 'record R', 'record r']);
  });

  it('a shortened name that equals another literal name collides', () => {
    const long = 'ABCDEFGHIJKLMNOPQRSTUV';
    const shortened = shortenIdentifier(`p_${long.toLowerCase()}`, 20);
    const literal = shortened.slice(2).toUpperCase();
    const dict = dictionary('D', [level('Q', [num('ID', 1)], [record(long, 1, [num('X', 1)]), record(literal, 1, [num('Y', 1)])])]);
    assertCollision(() => planBreakout(dict, 'p', { maxIdentifierLength: 20 }), [`"${shortened}"`, `record ${long}`, `record ${literal}`]);
  });

  it('puts the clashing names in the error details', () => {
    try {
      planBreakout(oneRecord('R', [num('OCC', 1)]), 'p', limits);
      assert.fail('no error');
    } catch (e) {
      assert.ok(e instanceof AppError);
      assert.deepEqual(e.details, { table: 'p_r', name: 'occ', first: 'the occurrence column', second: 'item of record R OCC' });
    }
  });
});

describe('planBreakout: long names', () => {
  /** Names near and past every limit: a 40-character label, 60-character records, 62-character items. */
  function longDict() {
    const rec = (i: number) => `REC${i}_`.padEnd(60, 'R');
    const itm = (i: number) => `ITEM${i}_`.padEnd(62, 'I');
    return dictionary('LONG_DICT', [
      level(
        'Q',
        [num('ID_'.padEnd(60, 'D'), 2)],
        [record(rec(1), 1, [num(itm(1), 1, { occurrences: 12 }), num(itm(2), 2)]), record(rec(2), 5, [num(itm(1), 1)])],
      ),
      level('Q2', [num('ID2', 1)], [record(rec(3), 2, [num(itm(3), 1)])]),
    ]);
  }
  const label = 'L'.padEnd(40, 'x');

  for (const limit of [63, 64, 128]) {
    it(`every identifier fits ${limit} characters and names stay distinct`, () => {
      const plan = planBreakout(longDict(), label, { maxIdentifierLength: limit });
      const tableNames = plan.tables.map((t) => t.name);
      assert.equal(new Set(tableNames).size, tableNames.length);
      for (const t of plan.tables) {
        assert.ok(t.name.length <= limit, t.name);
        assert.ok(t.name.startsWith(`${label.toLowerCase()}_`), t.name);
        const cols = t.columns.map((c) => c.name);
        assert.equal(new Set(cols).size, cols.length, t.name);
        for (const c of cols) assert.ok(c.length <= limit, c);
        for (const k of t.primaryKey) assert.ok(cols.includes(k));
      }
    });
  }

  it('shortens exactly the names over the limit, the same way every time', () => {
    const p63 = planBreakout(longDict(), label, { maxIdentifierLength: 63 });
    const p128 = planBreakout(longDict(), label, { maxIdentifierLength: 128 });
    const fullRecord = `${label.toLowerCase()}_${'rec1_'.padEnd(60, 'r')}`;
    assert.equal(fullRecord.length, 101);
    assert.equal(p63.tables[2]!.name, shortenIdentifier(fullRecord, 63));
    assert.equal(p128.tables[2]!.name, fullRecord);
    const fullItem = `${'item1_'.padEnd(62, 'i')}_12`;
    assert.equal(fullItem.length, 65);
    assert.equal(p63.tables[2]!.columns[13]!.name, `${fullItem.slice(0, 54)}_${sha8(fullItem)}`);
    assert.equal(p128.tables[2]!.columns[13]!.name, fullItem);
    assert.equal(p63.tables[0]!.name, `${label.toLowerCase()}_cases`);
    assert.deepEqual(planBreakout(longDict(), label, { maxIdentifierLength: 63 }), p63);
    assert.notEqual(p63.structureHash, p128.structureHash);
  });

  it('the small survey needs no shortening at 63', () => {
    const plan = planBreakout(surveyDict(), 'Survey', { maxIdentifierLength: 63 });
    assert.deepEqual(
      plan.tables.map((t) => t.name),
      ['survey_cases', 'survey_housing', 'survey_person', 'survey_notes', 'survey_cspro_jobs', 'survey_value_sets', 'survey_items'],
    );
  });
});
