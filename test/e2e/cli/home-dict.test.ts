import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, show } from '../../helpers/run-cli.js';
import { fixture, tempDir, tempHome } from '../../helpers/temp-home.js';

const POPSTAN_DCF = fixture('popstan-census.json.dcf');

test('init creates the home layout; a second run is fine; migrate --json reports the schema', () => {
  const home = tempDir();
  try {
    const r = runCli(home.root, ['init']);
    assert.equal(r.code, 0, show(r));
    for (const p of [home.db, home.media, home.breakoutLogs, home.locks]) assert.ok(existsSync(p), `${p} exists after init`);
    assert.ok(statSync(home.media).isDirectory());
    assert.ok(statSync(home.db).size > 0);
    assert.equal(join(home.root, 'files', 'media'), home.media);
    assert.equal(join(home.root, 'logs', 'breakout'), home.breakoutLogs);

    const again = runCli(home.root, ['init', '--json']);
    assert.equal(again.code, 0, show(again));
    const j = again.json();
    assert.equal(j.created, false);
    assert.equal(j.home, home.root);
    assert.equal(j.store, home.db);
    assert.equal(typeof j.schema_version, 'number');
    assert.deepEqual(j.migrations_applied, []);
    assert.deepEqual(j.permissions_tightened, []);
    assert.equal(typeof j.message, 'string');

    const m = runCli(home.root, ['migrate', '--json']);
    assert.equal(m.code, 0, show(m));
    assert.deepEqual(m.json(), {
      home: home.root,
      from_version: j.schema_version,
      schema_version: j.schema_version,
      migrations_applied: [],
      backup: null,
    });
  } finally {
    home.cleanup();
  }
});

test('init --json on a fresh home reports created and the migrations it applied; migrate on a fresh directory is HOME_NOT_FOUND and creates nothing', () => {
  const home = tempDir();
  const other = tempDir();
  try {
    const r = runCli(home.root, ['init', '--json']);
    assert.equal(r.code, 0, show(r));
    const j = r.json();
    assert.equal(j.created, true);
    assert.ok(j.schema_version >= 1);
    assert.ok(Array.isArray(j.migrations_applied) && j.migrations_applied.length >= 1, show(r));

    // Only init and quickstart make a home (docs/decisions.md): migrate needs one.
    const m = runCli(other.root, ['migrate', '--json']);
    assert.equal(m.code, 3, show(m));
    assert.equal(m.json().error, 'HOME_NOT_FOUND');
    assert.deepEqual(readdirSync(other.root), []);
    assert.equal(existsSync(other.db), false);
  } finally {
    home.cleanup();
    other.cleanup();
  }
});

describe('dict', () => {
  let home!: Awaited<ReturnType<typeof tempHome>>;
  before(async () => {
    home = await tempHome();
  });
  after(() => home.cleanup());

  test('upload → {message, name: CEN2000, label, breakout_rebuild: null}', () => {
    const r = runCli(home.root, ['dict', 'upload', POPSTAN_DCF, '--label', 'popstan', '--json']);
    assert.equal(r.code, 0, show(r));
    const j = r.json();
    assert.deepEqual(Object.keys(j).sort(), ['breakout_rebuild', 'label', 'message', 'name', 'sync_name']);
    assert.equal(j.breakout_rebuild, null);
    assert.equal(j.sync_name, null, 'a text dictionary has no syncable name');
    assert.equal(j.name, 'CEN2000');
    assert.equal(j.label, 'popstan');
    assert.match(j.message, /CEN2000/);

    const human = runCli(home.root, ['dict', 'upload', POPSTAN_DCF, '--label', 'popstan']);
    assert.equal(human.code, 0, show(human));
    assert.match(human.stdout, /CEN2000.*popstan/);
  });

  test('list --json → [{name,label,version,created_at,caseCount,dictionaryName,modifiedTime}]: the spec list form plus what CSPro clients read', () => {
    const r = runCli(home.root, ['dict', 'list', '--json']);
    assert.equal(r.code, 0, show(r));
    const list = r.json();
    assert.equal(list.length, 1);
    assert.deepEqual(Object.keys(list[0]).sort(), [
      'caseCount',
      'created_at',
      'dictionaryName',
      'label',
      'modifiedTime',
      'name',
      'version',
    ]);
    assert.equal(typeof list[0].caseCount, 'number');
    assert.equal(list[0].name, 'CEN2000');
    assert.equal(list[0].label, 'popstan');
    assert.equal(typeof list[0].version, 'string');
    assert.ok(!Number.isNaN(Date.parse(list[0].created_at)), list[0].created_at);

    const human = runCli(home.root, ['dict', 'list']);
    assert.equal(human.code, 0, show(human));
    assert.match(human.stdout, /CEN2000/);
    assert.match(human.stdout, /popstan/);
  });

  test('show --json gives the detail form; --short only name, label, levels, records', () => {
    const r = runCli(home.root, ['dict', 'show', 'CEN2000', '--json']);
    assert.equal(r.code, 0, show(r));
    const d = r.json();
    assert.deepEqual(Object.keys(d).sort(), [
      'created_at',
      'description',
      'gps',
      'label',
      'levels',
      'name',
      'records',
      'sync_name',
      'updated_at',
      'version',
    ]);
    assert.equal(d.name, 'CEN2000');
    assert.equal(d.sync_name, null);
    assert.equal(d.label, 'popstan');
    assert.equal(d.levels.length, 1);
    assert.deepEqual(Object.keys(d.levels[0]).sort(), ['label', 'name']);
    assert.deepEqual(
      d.records.map((x: { name: string }) => x.name),
      ['PERSON', 'HOUSING'],
    );
    for (const rec of d.records) assert.equal(typeof rec.label, 'string');

    const s = runCli(home.root, ['dict', 'show', 'CEN2000', '--short', '--json']);
    assert.equal(s.code, 0, show(s));
    const short = s.json();
    assert.deepEqual(Object.keys(short).sort(), ['label', 'levels', 'name', 'records']);
    assert.deepEqual(short, { name: d.name, label: d.label, levels: d.levels, records: d.records });

    const human = runCli(home.root, ['dict', 'show', 'CEN2000']);
    assert.equal(human.code, 0, show(human));
    assert.match(human.stdout, /PERSON/);
    assert.match(human.stdout, /HOUSING/);
  });

  test('an invalid label exits 2 with LABEL_INVALID', () => {
    for (const label of ['1bad', 'has-dash', 'x'.repeat(31)]) {
      const r = runCli(home.root, ['dict', 'upload', fixture('capi-household.dcf'), '--label', label, '--json']);
      assert.equal(r.code, 2, `${label}: ${show(r)}`);
      assert.equal(r.json().error, 'LABEL_INVALID', label);
    }
    const t = runCli(home.root, ['dict', 'upload', fixture('capi-household.dcf'), '--label', '1bad']);
    assert.equal(t.code, 2);
    assert.match(t.stderr, /^sds: LABEL_INVALID: /);
    assert.equal(runCli(home.root, ['dict', 'list', '--json']).json().length, 1, 'nothing stored');
  });

  test('a label used by another dictionary exits 4 (CONFLICT)', () => {
    const r = runCli(home.root, ['dict', 'upload', fixture('capi-household.dcf'), '--label', 'popstan', '--json']);
    assert.equal(r.code, 4, show(r));
    assert.equal(r.json().error, 'CONFLICT');
    assert.match(r.json().message, /CEN2000/);
    const t = runCli(home.root, ['dict', 'upload', fixture('capi-household.dcf'), '--label', 'POPSTAN']);
    assert.equal(t.code, 4, `labels differing only in case still collide: ${show(t)}`);
    assert.deepEqual(
      runCli(home.root, ['dict', 'list', '--json'])
        .json()
        .map((d: { name: string }) => d.name),
      ['CEN2000'],
    );
  });

  test('show of an unknown dictionary exits 3 (DICTIONARY_NOT_FOUND)', () => {
    const r = runCli(home.root, ['dict', 'show', 'NOPE', '--json']);
    assert.equal(r.code, 3, show(r));
    assert.equal(r.json().error, 'DICTIONARY_NOT_FOUND');
    const t = runCli(home.root, ['dict', 'show', 'NOPE']);
    assert.equal(t.code, 3);
    assert.match(t.stderr, /^sds: DICTIONARY_NOT_FOUND: .*NOPE/);
    assert.equal(t.stdout, '');
  });

  test('delete is refused while the dictionary has cases (exit 4, DICT_IN_USE) and allowed without', () => {
    const dir = tempDir();
    try {
      // One case: the first 4 lines of the census data.
      const dat = join(dir.root, 'one.dat');
      const lines = readFileSync(fixture('popstan-census.dat'), 'utf8').split(/\r?\n/);
      writeFileSync(dat, lines.slice(0, 4).join('\n') + '\n');
      const imp = runCli(home.root, ['cases', 'import', 'CEN2000', dat, '--json']);
      assert.equal(imp.code, 0, show(imp));
      assert.equal(imp.json().total.inserted, 1);

      const r = runCli(home.root, ['dict', 'delete', 'CEN2000', '--json']);
      assert.equal(r.code, 4, show(r));
      assert.equal(r.json().error, 'DICT_IN_USE');
      assert.equal(runCli(home.root, ['dict', 'list', '--json']).json().length, 1);

      const up = runCli(home.root, ['dict', 'upload', fixture('capi-household.dcf'), '--label', 'hh', '--json']);
      assert.equal(up.code, 0, show(up));
      const name = up.json().name;
      const del = runCli(home.root, ['dict', 'delete', name, '--json']);
      assert.equal(del.code, 0, show(del));
      assert.equal(del.json().name, name);
      assert.equal(typeof del.json().message, 'string');
      assert.deepEqual(
        runCli(home.root, ['dict', 'list', '--json'])
          .json()
          .map((d: { name: string }) => d.name),
        ['CEN2000'],
      );
      const again = runCli(home.root, ['dict', 'delete', name, '--json']);
      assert.equal(again.code, 3, show(again));
      assert.equal(again.json().error, 'DICTIONARY_NOT_FOUND');
    } finally {
      dir.cleanup();
    }
  });
});

describe('dict upload of a malformed dictionary', () => {
  let home!: Awaited<ReturnType<typeof tempHome>>;
  before(async () => {
    home = await tempHome();
    writeFileSync(join(home.root, 'truncated.dcf'), readFileSync(POPSTAN_DCF).subarray(0, 3000));
    writeFileSync(
      join(home.root, 'bad-text.dcf'),
      '[Dictionary]\nVersion=CSPro 7.7\nLabel=Bad\nName=BAD\nRecordTypeStart=1\nRecordTypeLen=1\nPositions=Relative\nZeroFill=No\nDecimalChar=No\nbogus line here\n',
    );
  });
  after(() => home.cleanup());

  test('exits 2 with DICT_INVALID naming the line, and stores nothing', () => {
    const t = runCli(home.root, ['dict', 'upload', join(home.root, 'bad-text.dcf'), '--label', 'bad', '--json']);
    assert.equal(t.code, 2, show(t));
    const e = t.json();
    assert.equal(e.error, 'DICT_INVALID');
    assert.match(e.message, /line 10\b/);
    assert.equal(e.details.line, 10);

    const j = runCli(home.root, ['dict', 'upload', join(home.root, 'truncated.dcf'), '--label', 'bad']);
    assert.equal(j.code, 2, show(j));
    assert.match(j.stderr, /^sds: DICT_INVALID: .*line \d+/);
    assert.equal(j.stdout, '');

    const list = runCli(home.root, ['dict', 'list', '--json']);
    assert.equal(list.code, 0, show(list));
    assert.deepEqual(list.json(), []);
  });

  test('a missing file exits with IO_ERROR, not a crash', () => {
    const r = runCli(home.root, ['dict', 'upload', join(home.root, 'nope.dcf'), '--label', 'x', '--json']);
    assert.equal(r.json().error, 'IO_ERROR', show(r));
    assert.equal(r.code, 1);
  });
});
