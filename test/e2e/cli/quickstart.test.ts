import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { tempDir } from '../../helpers/temp-home.js';

test('quickstart --json on a fresh home stores 4872 cases; a second run finds them unchanged', async () => {
  const home = tempDir();
  try {
    const r = await sds(home.root, ['quickstart', '--json']);
    assert.equal(r.code, 0, show(r));
    const q = r.json();
    assert.equal(q.home, home.root);
    assert.equal(q.dictionary, 'CEN2000');
    assert.equal(q.label, 'popstan');
    assert.equal(q.cases_stored, 4872);
    assert.equal(q.import.inserted, 4872);
    assert.equal(q.import.failed, 0);
    assert.ok(existsSync(home.db));
    if ('breakout' in q) {
      const person = q.breakout.tables.find((t: { name: string }) => t.name === 'popstan_person');
      assert.ok(person, `breakout tables include popstan_person: ${JSON.stringify(q.breakout.tables)}`);
      // Persons in the census data: one per person line (record type 1).
      assert.equal(person.row_count, 24271);
      const cases = q.breakout.tables.find((t: { name: string }) => t.name === 'popstan_cases');
      if (cases) assert.equal(cases.row_count, 4872);
    }

    const again = await sds(home.root, ['quickstart', '--json']);
    assert.equal(again.code, 0, show(again));
    const q2 = again.json();
    assert.equal(q2.cases_stored, 4872);
    assert.equal(q2.import.unchanged, 4872);
    assert.equal(q2.import.inserted, 0);
    assert.equal(q2.import.updated, 0);
    if ('breakout' in q2) {
      const person = q2.breakout.tables.find((t: { name: string }) => t.name === 'popstan_person');
      assert.equal(person?.row_count, 24271, 'a second run does not duplicate rows');
    }

    const list = (await sds(home.root, ['dict', 'list', '--json'])).json();
    assert.deepEqual(
      list.map((d: { name: string; label: string }) => [d.name, d.label]),
      [['CEN2000', 'popstan']],
    );
  } finally {
    home.cleanup();
  }
});
