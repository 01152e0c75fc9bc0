import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { runCli, SDS_BIN, show } from '../../helpers/run-cli.js';
import { fixture, tempHome } from '../../helpers/temp-home.js';

/** A home with popstan uploaded and its cases imported; returns the dictionary name. */
function seeded(root: string): string {
  assert.equal(runCli(root, ['init']).code, 0);
  const up = runCli(root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan', '--json']);
  assert.equal(up.code, 0, show(up));
  const name = up.json<{ name: string }>().name;
  const imp = runCli(root, ['cases', 'import', name, fixture('popstan-census.dat')]);
  assert.equal(imp.code, 0, show(imp));
  return name;
}

test('dict delete: without --with-cases the spec refusal (DICT_IN_USE); --with-cases without a terminal and without --yes is USAGE (exit 2) and removes nothing', async () => {
  const home = await tempHome();
  try {
    const name = seeded(home.root);
    const plain = runCli(home.root, ['dict', 'delete', name]);
    assert.equal(plain.code, 4, show(plain));
    assert.match(plain.stderr, /DICT_IN_USE/);
    const r = runCli(home.root, ['dict', 'delete', name, '--with-cases']);
    assert.equal(r.code, 2, show(r));
    assert.match(r.stderr, /USAGE/);
    assert.match(r.stderr, /--yes/);
    const tablesOnly = runCli(home.root, ['dict', 'delete', name, '--drop-tables', '--yes']);
    assert.equal(tablesOnly.code, 2, show(tablesOnly));
    assert.match(tablesOnly.stderr, /--drop-tables needs --with-cases/);
    const list = runCli(home.root, ['dict', 'list', '--json']);
    assert.equal(list.json<{ name: string }[]>().length, 1, show(list));
  } finally {
    await home.cleanup();
  }
});

test('dict delete --with-cases --yes --json: the reply counts what went; the dictionary is gone', async () => {
  const home = await tempHome();
  try {
    const name = seeded(home.root);
    const r = runCli(home.root, ['dict', 'delete', name, '--with-cases', '--yes', '--json']);
    assert.equal(r.code, 0, show(r));
    const j = r.json();
    assert.equal(j.name, name);
    assert.ok(j.removed.cases > 0);
    assert.deepEqual(j.dropped_tables, []);
    assert.deepEqual(j.tables_left, []);
    const text = runCli(home.root, ['dict', 'list', '--json']);
    assert.deepEqual(text.json(), []);
  } finally {
    await home.cleanup();
  }
});

test('dict delete --with-cases --drop-tables --yes after a breakout into a SQLite target drops its tables there', async () => {
  const home = await tempHome();
  try {
    const name = seeded(home.root);
    const file = join(home.root, 'target.sqlite');
    assert.equal(runCli(home.root, ['target', 'set', name, '--type', 'sqlite', '--file', file]).code, 0);
    const b = runCli(home.root, ['breakout', 'start', name, '--wait']);
    assert.equal(b.code, 0, show(b));
    const tablesBefore = () => {
      const db = new Database(file, { readonly: true });
      try {
        return (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'popstan%'`).all() as { name: string }[])
          .map((t) => t.name)
          .sort();
      } finally {
        db.close();
      }
    };
    const before = tablesBefore();
    assert.ok(before.length > 0);
    const r = runCli(home.root, ['dict', 'delete', name, '--with-cases', '--drop-tables', '--yes']);
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, new RegExp(`Dictionary ${name} purged`));
    assert.match(r.stdout, /dropped tables: /);
    assert.ok(existsSync(file));
    assert.deepEqual(tablesBefore(), []);
    const again = runCli(home.root, ['dict', 'delete', name, '--with-cases', '--yes']);
    assert.equal(again.code, 3, show(again));
    assert.match(again.stderr, /DICTIONARY_NOT_FOUND/);
  } finally {
    await home.cleanup();
  }
});

test('dict delete --with-cases --drop-tables with no target configured creates no default SQLite file to drop nothing', async () => {
  const home = await tempHome();
  try {
    const name = seeded(home.root);
    const embedded = join(home.root, 'targets', 'breakout.sqlite');
    assert.equal(existsSync(embedded), false);
    const r = runCli(home.root, ['dict', 'delete', name, '--with-cases', '--drop-tables', '--yes'], {
      env: { BREAKOUT_DB_TYPE: undefined, BREAKOUT_DB_URL: undefined },
    });
    assert.equal(r.code, 0, show(r));
    assert.match(r.stdout, new RegExp(`Dictionary ${name} purged`));
    assert.equal(existsSync(embedded), false, 'the embedded target file was created');
  } finally {
    await home.cleanup();
  }
});

/** Runs the CLI under a pseudo-terminal (util-linux `script`) and answers its prompt. */
function onTerminal(root: string, args: string[], answer: string): Promise<{ code: number | null; out: string }> {
  const cmd = [process.execPath, SDS_BIN, '--home', root, ...args].map((a) => `'${a}'`).join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', cmd, '/dev/null'], { env: { ...process.env, NO_COLOR: '1', CI: '' } });
    let out = '';
    let answered = false;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!answered && out.includes('[y/N]')) {
        answered = true;
        child.stdin.write(answer + '\r');
      }
    });
    child.on('close', (code) => resolve({ code, out }));
  });
}

const hasScript = spawnSync('script', ['--version']).status === 0;

test(
  'on a terminal dict delete --with-cases asks y/N on the terminal: n keeps everything (exit 1), y purges',
  { skip: !hasScript && !process.env.CI && 'no util-linux script for a pseudo-terminal' },
  async () => {
    const home = await tempHome();
    try {
      const name = seeded(home.root);
      const no = await onTerminal(home.root, ['dict', 'delete', name, '--with-cases'], 'n');
      assert.match(no.out, new RegExp(`Purge dictionary ${name} with its \\d+ cases\\? \\[y/N\\]`));
      assert.match(no.out, /not purged/);
      assert.equal(no.code, 1, no.out);
      assert.equal(runCli(home.root, ['dict', 'list', '--json']).json<unknown[]>().length, 1);
      const yes = await onTerminal(home.root, ['dict', 'delete', name, '--with-cases'], 'y');
      assert.equal(yes.code, 0, yes.out);
      assert.match(yes.out, new RegExp(`Dictionary ${name} purged`));
      assert.deepEqual(runCli(home.root, ['dict', 'list', '--json']).json(), []);
    } finally {
      await home.cleanup();
    }
  },
);
