import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HomePaths } from '../../../src/shared/home.js';
import { runCliAsync as sds, show } from '../../helpers/run-cli.js';
import { fixture, storeSql, tempHome, withStore } from '../../helpers/temp-home.js';

const DAT_TEXT = readFileSync(fixture('popstan-census.dat'), 'utf8').replace(/^\uFEFF/, '');
const DAT_LINES = DAT_TEXT.split('\n').filter((l) => l !== '');
/** Level-1 key of a census line: columns 2-19. */
const keyOf = (line: string): string => line.slice(1, 19);

/** Revision of every case of the store, by case key, read straight from the store. */
async function revisions(home: HomePaths): Promise<Map<string, number>> {
  const rows = await withStore(home, (store) => storeSql(store, 'SELECT case_key AS k, revision AS r FROM cases'));
  return new Map(rows.map((x) => [x.k as string, Number(x.r)]));
}

async function uploadPopstan(root: string): Promise<void> {
  const r = await sds(root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan', '--json']);
  assert.equal(r.code, 0, show(r));
}

describe('cases import of the census .dat', async () => {
  const home = await tempHome();
  after(() => home.cleanup());

  test('imports 4872 cases, then finds them unchanged, then updates exactly the 2 corrected ones', async () => {
    await uploadPopstan(home.root);
    const first = await sds(home.root, ['cases', 'import', 'CEN2000', fixture('popstan-census.dat'), '--json']);
    assert.equal(first.code, 0, show(first));
    const r1 = first.json();
    assert.equal(r1.dictionary, 'CEN2000');
    assert.equal(r1.total.inserted, 4872);
    assert.equal(r1.total.read, 4872);
    assert.equal(r1.total.failed, 0);
    assert.equal(r1.files.length, 1);
    assert.deepEqual(r1.files[0].errors, []);

    const second = await sds(home.root, ['cases', 'import', 'CEN2000', fixture('popstan-census.dat'), '--json']);
    assert.equal(second.code, 0, show(second));
    assert.equal(second.json().total.unchanged, 4872);
    assert.equal(second.json().total.inserted, 0);
    assert.equal(second.json().total.updated, 0);

    const before = await revisions(home);
    assert.equal(before.size, 4872);

    // Correct the age (columns 24-25 of a person line) of one person in two cases.
    const lines = [...DAT_LINES];
    const changed: string[] = [];
    for (const i of [0, 4]) {
      const line = lines[i]!;
      assert.equal(line[0], '1', 'a person line');
      const age = Number(line.slice(23, 25));
      lines[i] = line.slice(0, 23) + String((age + 1) % 90).padStart(2, '0') + line.slice(25);
      changed.push(keyOf(line));
    }
    assert.notEqual(changed[0], changed[1]);
    const corrected = join(home.root, 'corrected.dat');
    writeFileSync(corrected, lines.join('\n') + '\n');

    const third = await sds(home.root, ['cases', 'import', 'CEN2000', corrected, '--json']);
    assert.equal(third.code, 0, show(third));
    const t = third.json().total;
    assert.deepEqual(
      { updated: t.updated, inserted: t.inserted, unchanged: t.unchanged, failed: t.failed },
      { updated: 2, inserted: 0, unchanged: 4870, failed: 0 },
    );

    const afterRev = await revisions(home);
    const maxBefore = Math.max(...before.values());
    for (const [k, rev] of afterRev) {
      if (changed.includes(k)) assert.ok(rev > maxBefore, `corrected case ${k} got a higher revision (${rev} > ${maxBefore})`);
      else assert.equal(rev, before.get(k), `case ${k} kept its revision`);
    }

    // The human form is a table; text output still exits 0.
    const human = await sds(home.root, ['cases', 'import', 'CEN2000', corrected]);
    assert.equal(human.code, 0, show(human));
    assert.match(human.stdout, /unchanged/);
    assert.match(human.stdout, /4872/);
  });

  test('cases list pages with --limit/--offset', async () => {
    const r = await sds(home.root, ['cases', 'list', 'CEN2000', '--limit', '10', '--offset', '5', '--json']);
    assert.equal(r.code, 0, show(r));
    const page = r.json();
    assert.deepEqual(
      { total: page.total, limit: page.limit, offset: page.offset, n: page.data.length },
      { total: 4872, limit: 10, offset: 5, n: 10 },
    );
    for (const c of page.data) {
      assert.deepEqual(Object.keys(c).sort(), ['case_label', 'deleted', 'guid', 'modified_date', 'verified']);
      assert.match(c.guid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.equal(c.verified, false);
      assert.equal(c.deleted, false);
      assert.ok(!Number.isNaN(Date.parse(c.modified_date)));
    }
    const all = (await sds(home.root, ['cases', 'list', 'CEN2000', '--limit', '15', '--json'])).json();
    assert.deepEqual(page.data, all.data.slice(5, 15), 'offset 5 skips the first 5 of the same order');

    const human = await sds(home.root, ['cases', 'list', 'CEN2000', '--limit', '3']);
    assert.equal(human.code, 0, show(human));
    assert.match(human.stdout, /3 of 4872 cases/);

    for (const bad of [
      ['--limit', '0'],
      ['--limit', 'x'],
      ['--limit', '1001'],
      ['--offset', '-1'],
    ]) {
      const b = await sds(home.root, ['cases', 'list', 'CEN2000', ...bad, '--json']);
      assert.equal(b.code, 2, `${bad.join(' ')}: ${show(b)}`);
      assert.equal(b.json().error, 'USAGE');
    }
    const nf = await sds(home.root, ['cases', 'list', 'NOPE', '--json']);
    assert.equal(nf.code, 3, show(nf));
    assert.equal(nf.json().error, 'DICTIONARY_NOT_FOUND');
  });

  test('cases show --json of a census case is in the sync JSON shape; an unknown guid exits 3', async () => {
    const guid = (await sds(home.root, ['cases', 'list', 'CEN2000', '--limit', '1', '--json'])).json().data[0].guid;
    const r = await sds(home.root, ['cases', 'show', 'CEN2000', guid, '--json']);
    assert.equal(r.code, 0, show(r));
    const c = r.json();
    for (const k of ['id', 'caseids', 'label', 'deleted', 'verified', 'notes', 'clock', 'level-1']) assert.ok(k in c, `field ${k}`);
    assert.equal(c.id, guid);
    assert.equal(typeof c['level-1'], 'object');
    assert.equal(typeof c['level-1'].id, 'object');

    const nf = await sds(home.root, ['cases', 'show', 'CEN2000', '00000000-0000-4000-8000-000000000000', '--json']);
    assert.equal(nf.code, 3, show(nf));
    assert.equal(nf.json().error, 'NOT_FOUND');
  });
});

describe('cases import, other formats and failures', { concurrency: true }, () => {
  test('a .dat with two broken cases stores the others, reports both with file:line and case key, exits 2', async () => {
    const home = await tempHome();
    try {
      await uploadPopstan(home.root);
      const src = DAT_LINES.slice(0, 35);
      const keys = [...new Set(src.map(keyOf))];
      const unknownTypeKey = keys[1]!;
      const badIdKey = keys[3]!;
      const out: string[] = [];
      let unknownLine = 0;
      let badIdLine = 0;
      for (const line of src) {
        if (keyOf(line) === badIdKey) {
          out.push(line[0] + '0X' + line.slice(3));
          badIdLine ||= out.length;
        } else out.push(line);
        if (keyOf(line) === unknownTypeKey && !unknownLine) {
          out.push('9' + unknownTypeKey + '123');
          unknownLine = out.length;
        }
      }
      const file = join(home.root, 'broken.dat');
      writeFileSync(file, out.join('\n') + '\n');

      const r = await sds(home.root, ['cases', 'import', 'CEN2000', file]);
      assert.equal(r.code, 2, show(r));
      const errLines = r.stderr.split('\n').filter((l) => l.startsWith('sds: '));
      assert.equal(errLines.length, 2, show(r));
      assert.ok(
        errLines.some((l) => l.includes(`${file}:${unknownLine}`) && l.includes(unknownTypeKey)),
        `unknown record type reported at ${file}:${unknownLine}\n${r.stderr}`,
      );
      const badKey = '0X' + badIdKey.slice(2);
      assert.ok(
        errLines.some((l) => l.includes(`${file}:${badIdLine}`) && l.includes(badKey)),
        `bad id reported at ${file}:${badIdLine}\n${r.stderr}`,
      );
      for (const l of errLines) assert.match(l, /^sds: CASE_INVALID: /);

      const list = (await sds(home.root, ['cases', 'list', 'CEN2000', '--json'])).json();
      assert.equal(list.total, keys.length - 2, 'the other cases are stored');

      const j = await sds(home.root, ['cases', 'import', 'CEN2000', file, '--json']);
      assert.equal(j.code, 2, show(j));
      const rep = j.json();
      assert.equal(rep.files[0].errors.length, 2);
      assert.equal(rep.files[0].failed, 2);
      assert.equal(rep.total.failed, 2);
      assert.equal(rep.total.unchanged, keys.length - 2);
      const byLine = Object.fromEntries(rep.files[0].errors.map((e: { details: { line: number } }) => [e.details.line, e]));
      assert.equal(byLine[unknownLine].details.case, unknownTypeKey);
      assert.equal(byLine[unknownLine].details.file, file);
      assert.equal(byLine[unknownLine].code, 'CASE_INVALID');
      assert.equal(byLine[badIdLine].details.case, badKey);
      assert.equal(byLine[badIdLine].code, 'CASE_INVALID');
      assert.equal(j.stderr, '', 'with --json nothing on stderr');
    } finally {
      await home.cleanup();
    }
  });

  test('an unknown file extension exits 2 (FILE_FORMAT_UNKNOWN) and an unknown dictionary exits 3', async () => {
    const home = await tempHome();
    try {
      await uploadPopstan(home.root);
      const file = join(home.root, 'cases.xlsx');
      writeFileSync(file, 'x');
      const r = await sds(home.root, ['cases', 'import', 'CEN2000', file, '--json']);
      assert.equal(r.code, 2, show(r));
      assert.equal(r.json().error, 'FILE_FORMAT_UNKNOWN');
      const t = await sds(home.root, ['cases', 'import', 'CEN2000', file]);
      assert.equal(t.code, 2);
      assert.match(t.stderr, /^sds: FILE_FORMAT_UNKNOWN: /);
      const nf = await sds(home.root, ['cases', 'import', 'NOPE', fixture('popstan-census.dat'), '--json']);
      assert.equal(nf.code, 3, show(nf));
      assert.equal(nf.json().error, 'DICTIONARY_NOT_FOUND');
    } finally {
      await home.cleanup();
    }
  });

  test('a .csdb imports 4 cases; the partial save shows in cases show --json', async () => {
    const home = await tempHome();
    try {
      const up = await sds(home.root, ['dict', 'upload', fixture('capi-household.dcf'), '--label', 'hh', '--json']);
      assert.equal(up.code, 0, show(up));
      const dict = up.json().name;
      assert.equal(dict, 'PSC_HOUSEHOLD_DICT', 'the name inside the .dcf');
      const r = await sds(home.root, ['cases', 'import', dict, fixture('capi-household.csdb'), '--json']);
      assert.equal(r.code, 0, show(r));
      assert.equal(r.json().total.inserted, 4);
      assert.equal(r.json().total.failed, 0);
      const list = (await sds(home.root, ['cases', 'list', dict, '--json'])).json();
      assert.equal(list.total, 4);
      const shown = await Promise.all(list.data.map((c: { guid: string }) => sds(home.root, ['cases', 'show', dict, c.guid, '--json'])));
      const partial = shown.map((s) => s.json()).filter((c) => c.partialSave);
      assert.equal(partial.length, 1, 'one partial-save case');
      assert.equal(typeof partial[0].partialSave.mode, 'string');
      assert.equal(partial[0].partialSave.field.name, 'HH_GPS_READING');
      assert.equal(typeof partial[0]['level-1'], 'object');
    } finally {
      await home.cleanup();
    }
  });

  test('a sync JSON array imports; cases show --json returns level-1 as an object with notes and clock', async () => {
    const home = await tempHome();
    try {
      await uploadPopstan(home.root);
      const ids = { PROVINCE: 1, DISTRICT: 1, VILLAGE: 30, EA: 1, UR: 1, BUILDING: 21, HU: 24, HH: 1 };
      const field = { name: 'P04_AGE', levelKey: '', recordOccurrence: 1, itemOccurrence: 1, subitemOccurrence: 0 };
      const notes = [{ content: 'age checked', field, operatorId: 'enum1', modifiedTime: '2024-03-01T10:00:00Z' }];
      const cases = [
        {
          id: '11111111-1111-4111-8111-111111111111',
          caseids: '010103000110210241',
          label: 'first household',
          verified: true,
          clock: [{ deviceId: 'tab-1', revision: 2 }],
          notes,
          'level-1': JSON.stringify({
            id: ids,
            PERSON: [
              { LINE: 1, P04_AGE: 19 },
              { LINE: 2, P04_AGE: 7 },
            ],
            HOUSING: { H01_TYPE: 1 },
          }),
        },
        {
          id: '22222222-2222-4222-8222-222222222222',
          caseids: '010103000110210242',
          clock: [{ deviceId: 'tab-2', revision: 1 }],
          'level-1': JSON.stringify({ id: { ...ids, HH: 2 }, PERSON: [{ LINE: 1, P04_AGE: 40 }] }),
        },
      ];
      const file = join(home.root, 'upload.json');
      writeFileSync(file, JSON.stringify(cases));
      const r = await sds(home.root, ['cases', 'import', 'CEN2000', file, '--json']);
      assert.equal(r.code, 0, show(r));
      assert.equal(r.json().total.inserted, 2);

      const s = await sds(home.root, ['cases', 'show', 'CEN2000', cases[0]!.id, '--json']);
      assert.equal(s.code, 0, show(s));
      const c = s.json();
      assert.equal(c.id, cases[0]!.id);
      assert.equal(c.caseids, '010103000110210241');
      assert.equal(c.label, 'first household');
      assert.equal(c.deleted, false);
      assert.equal(c.verified, true);
      assert.deepEqual(c.notes, notes);
      assert.deepEqual(c.clock, [{ deviceId: 'tab-1', revision: 2 }]);
      assert.equal(typeof c['level-1'], 'object', 'level-1 is an object, not a string');
      assert.deepEqual(c['level-1'].id, ids);
      assert.deepEqual(
        c['level-1'].PERSON.map((p: { P04_AGE: number }) => p.P04_AGE),
        [19, 7],
      );
      assert.equal(c['level-1'].HOUSING.H01_TYPE, 1);
      assert.equal('partialSave' in c, false);

      const s2 = (await sds(home.root, ['cases', 'show', 'CEN2000', cases[1]!.id, '--json'])).json();
      for (const k of ['id', 'caseids', 'label', 'deleted', 'verified', 'notes', 'clock', 'level-1']) assert.ok(k in s2, `field ${k}`);
      assert.equal(s2.verified, false);
      assert.deepEqual(s2.notes, []);
      assert.deepEqual(s2.clock, [{ deviceId: 'tab-2', revision: 1 }]);

      const again = await sds(home.root, ['cases', 'import', 'CEN2000', file, '--json']);
      assert.equal(again.code, 0, show(again));
      assert.equal(again.json().total.unchanged, 2);
    } finally {
      await home.cleanup();
    }
  });
});
