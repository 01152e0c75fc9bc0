/**
 * A dictionary re-uploaded with a new label, through the compiled CLI on the embedded SQLite
 * target: the upload announces the drop and rebuild with the table names, `breakout tables` shows
 * the old tables still in the target (stale), the incremental breakout logs each drop and create,
 * and the tables are then the new ones. Needs `npm run build`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { popstanStore, POPSTAN, runCli } from '../../helpers/breakout-helpers.js';
import { fixture } from '../../helpers/temp-home.js';

const OLD = [
  'popstan_cases',
  'popstan_person',
  'popstan_housing',
  'popstan_notes',
  'popstan_cspro_jobs',
  'popstan_value_sets',
  'popstan_items',
];
const NEW = [
  'census2_cases',
  'census2_person',
  'census2_housing',
  'census2_notes',
  'census2_cspro_jobs',
  'census2_value_sets',
  'census2_items',
];
const sorted = (a: string[]) => [...a].sort();

/** Table names in the SQLite target file, read with SQLite itself. */
function targetTables(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  } finally {
    db.close();
  }
}

test(
  'SQLite target: a new label is announced at upload, old tables show as stale, the breakout logs each drop',
  { timeout: 120_000 },
  async () => {
    const t = await popstanStore([fixture('popstan-census.dat')]);
    const home = t.home.root;
    const file = join(t.home.targets, 'breakout.sqlite');
    try {
      const first = await runCli(home, ['process-cases-by-dict', POPSTAN, '--json']);
      assert.equal(first.code, 0, first.stdout + first.stderr);
      assert.deepEqual(sorted(targetTables(file)), sorted(OLD));

      // The same file and label again: nothing to announce.
      const same = await runCli(home, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'popstan', '--json']);
      assert.equal(same.code, 0, same.stderr);
      assert.equal(JSON.parse(same.stdout).breakout_rebuild, null);

      const text = await runCli(home, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'census2']);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^replaced CEN2000 \(label census2\)\n/);
      assert.match(
        text.stdout,
        /warning: the next breakout drops and rebuilds the breakout tables \(label\): the label changed: table prefix popstan_ becomes census2_/,
      );
      assert.match(text.stdout, new RegExp(`drops in sqlite .*, if the target still holds them: ${OLD.join(', ')}`));
      assert.match(text.stdout, new RegExp(`creates: ${NEW.join(', ')}`));

      const json = await runCli(home, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'census2', '--json']);
      assert.equal(json.code, 0, json.stderr);
      const reply = JSON.parse(json.stdout);
      assert.equal(reply.label, 'census2');
      assert.equal(reply.breakout_rebuild.reason, 'label');
      assert.deepEqual(reply.breakout_rebuild.tables_dropped, OLD);
      assert.deepEqual(reply.breakout_rebuild.tables_created, NEW);
      assert.match(reply.breakout_rebuild.target, /^sqlite /);
      assert.doesNotMatch(JSON.stringify(reply), new RegExp(t.home.root.replace(/[/\\\\.]/g, '\\$&')), 'no server path in the reply');
      // Nothing was dropped yet.
      assert.deepEqual(sorted(targetTables(file)), sorted(OLD));

      const before = await runCli(home, ['breakout', 'tables', POPSTAN, '--json']);
      assert.equal(before.code, 0, before.stdout + before.stderr);
      const held = JSON.parse(before.stdout);
      assert.deepEqual(
        held.tables.map((x: { name: string }) => x.name),
        sorted(OLD),
      );
      assert.ok(held.tables.every((x: { stale: boolean }) => x.stale));
      assert.equal(held.tables.find((x: { name: string }) => x.name === 'popstan_cases').type, 'main');
      assert.equal(held.tables.find((x: { name: string }) => x.name === 'popstan_cases').row_count, 4872);
      const beforeText = await runCli(home, ['breakout', 'tables', POPSTAN]);
      assert.match(beforeText.stdout, /7 stale table\(s\): no longer in the plan of CEN2000; the next breakout drops them/);

      const rerun = await runCli(home, ['process-cases-by-dict', POPSTAN]);
      assert.equal(rerun.code, 0, rerun.stdout + rerun.stderr);
      assert.match(rerun.stdout, /cases\s+4872/);
      // Said on screen without --verbose.
      assert.match(
        rerun.stderr,
        new RegExp(
          `CEN2000: dropped 7 table\\(s\\) \\(label: the label changed: table prefix popstan_ becomes census2_\\): ${OLD.join(', ')}`,
        ),
      );
      assert.deepEqual(sorted(targetTables(file)), sorted(NEW));

      const logs = await runCli(home, ['logs', '--dictionary', POPSTAN, '--json', '--limit', '1000']);
      assert.equal(logs.code, 0, logs.stderr);
      const messages: { level: string; message: string }[] = JSON.parse(logs.stdout).logs;
      const drops = messages.filter((l) => / dropped table /.test(l.message));
      assert.deepEqual(sorted(drops.map((l) => /dropped table (\S+)/.exec(l.message)![1]!)), sorted(OLD));
      for (const d of drops) {
        assert.equal(d.level, 'warn');
        assert.match(d.message, /\(label: the label changed: table prefix popstan_ becomes census2_\)$/);
      }
      const creates = messages.filter((l) => / created table /.test(l.message) && /\(label:/.test(l.message));
      assert.deepEqual(sorted(creates.map((l) => /created table (\S+)/.exec(l.message)![1]!)), sorted(NEW));

      const after = await runCli(home, ['breakout', 'tables', POPSTAN, '--json']);
      const now = JSON.parse(after.stdout);
      assert.deepEqual(
        now.tables.map((x: { name: string }) => x.name),
        sorted(NEW),
      );
      assert.equal(now.tables.find((x: { name: string }) => x.name === 'census2_cases').row_count, 4872);
      assert.ok(now.tables.every((x: { stale: boolean }) => !x.stale));

      // The state now matches the dictionary: a further upload announces nothing.
      const again = await runCli(home, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'census2', '--json']);
      assert.equal(JSON.parse(again.stdout).breakout_rebuild, null);
    } finally {
      await t.cleanup();
    }
  },
);
