/**
 * A home whose store is in PostgreSQL, through the real CLI (docs/production.md#choosing-a-store):
 * `sds init` makes the store in an empty database, the other commands use it, `migrate --status`
 * and `config` report it; `--store` chooses it as SDS_STORE_URL does; an empty database is not a
 * home (HOME_NOT_FOUND) and a server that cannot be reached is STORE_UNAVAILABLE, the password
 * never shown; `sds backup` points at pg_dump, and a pg_dump / pg_restore copy is the same store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../helpers/run-cli.js';
import { fixture, tempDir } from '../../helpers/temp-home.js';
import { createPostgresDatabase } from '../../helpers/test-databases.js';

const show = (r: { code: number | null; stdout: string; stderr: string }) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;

test('init, dict upload, dict list, --store, migrate --status and config on a PostgreSQL store', async () => {
  const home = tempDir();
  const db = await createPostgresDatabase();
  const env = { SDS_STORE_URL: db.config.url! };
  try {
    const before = runCli(home.root, ['dict', 'list'], { env: { SDS_STORE_URL: db.config.url!, SDS_HOME: '' } });
    assert.equal(before.code, 3, show(before));

    const init = runCli(home.root, ['init', '--json'], { env });
    assert.equal(init.code, 0, show(init));
    const reply = init.json<{ created: boolean; store: string; schema_version: number }>();
    assert.equal(reply.created, true);
    assert.equal(reply.store, db.config.url);
    assert.equal(existsSync(home.db), false, 'no SQLite file is made');
    const again = runCli(home.root, ['init', '--json'], { env });
    assert.equal(again.json<{ created: boolean }>().created, false, show(again));

    const up = runCli(home.root, ['dict', 'upload', fixture('simple-capi.dcf'), '--label', 'simple'], { env });
    assert.equal(up.code, 0, show(up));
    const list = runCli(home.root, ['dict', 'list', '--json'], { env });
    assert.equal(list.code, 0, show(list));
    assert.deepEqual(
      list.json<{ name: string; label: string }[]>().map((d) => [d.name, d.label]),
      [['SIMPLECAPI_DICT', 'simple']],
    );
    // The flag chooses the same store without the variable.
    const byFlag = runCli(home.root, ['--store', db.config.url!, 'dict', 'list', '--json']);
    assert.equal(byFlag.code, 0, show(byFlag));
    assert.equal(byFlag.json<unknown[]>().length, 1);
    // Without either, the home has no SQLite store: it is not a home for SQLite.
    const sqlite = runCli(home.root, ['dict', 'list']);
    assert.equal(sqlite.code, 3, show(sqlite));

    // The database is backed up with PostgreSQL's tools; sds backup says so and writes nothing.
    const backup = runCli(home.root, ['backup', join(home.root, 'backups'), '--json'], { env });
    assert.equal(backup.code, 2, show(backup));
    assert.equal(backup.json<{ error: string }>().error, 'BACKUP_STORE_EXTERNAL');
    assert.match(backup.stdout, /pg_dump/);
    assert.equal(existsSync(join(home.root, 'backups')), false, 'nothing was written');

    const status = runCli(home.root, ['migrate', '--status', '--json'], { env });
    assert.equal(status.code, 0, show(status));
    const s = status.json<{ schema_version: number; latest_version: number; up_to_date: boolean }>();
    assert.equal(s.up_to_date, true);
    assert.equal(s.schema_version, s.latest_version);

    const config = runCli(home.root, ['config', '--json'], { env: { ...env, SDS_STORE_PASSWORD: 'hunter2' } });
    assert.equal(config.code, 0, show(config));
    assert.ok(!config.stdout.includes('hunter2'), 'the password is never shown');
    const effective = config.json<{ home: { exists: boolean }; settings: { name: string; value: unknown; source: string }[] }>();
    assert.equal(effective.home.exists, true, 'the home is its folder; its store is the database');
    const settings = effective.settings;
    const url = settings.find((x) => x.name === 'store.url');
    assert.deepEqual([url?.value, url?.source], [db.config.url, 'environment']);
    assert.equal(settings.find((x) => x.name === 'store_password')?.value, 'set');
  } finally {
    home.cleanup();
    await db.drop();
  }
});

test('an empty database is not a home; an unreachable server is STORE_UNAVAILABLE without the password', async () => {
  const home = tempDir();
  const db = await createPostgresDatabase();
  try {
    writeFileSync(join(home.root, 'config.json'), JSON.stringify({ store: { url: db.config.url } }));
    const empty = runCli(home.root, ['dict', 'list', '--json']);
    assert.equal(empty.code, 3, show(empty));
    assert.equal(empty.json<{ error: string }>().error, 'HOME_NOT_FOUND');
    assert.match(empty.stdout, /holds no sds store; run `sds init`/);

    const down = runCli(home.root, ['dict', 'list', '--json'], {
      env: { SDS_STORE_URL: 'postgresql://sds@127.0.0.1:1/sds', SDS_STORE_PASSWORD: 'hunter2' },
    });
    assert.notEqual(down.code, 0, show(down));
    assert.equal(down.json<{ error: string }>().error, 'STORE_UNAVAILABLE', show(down));
    assert.ok(!down.stdout.includes('hunter2') && !down.stderr.includes('hunter2'), show(down));
    assert.match(down.stdout, /cannot connect to the PostgreSQL store postgresql:\/\/sds@127\.0\.0\.1:1\/sds: .*ECONNREFUSED/);
    const inUrl = runCli(home.root, ['dict', 'list', '--json'], { env: { SDS_STORE_URL: 'postgresql://sds:hunter2@127.0.0.1:1/sds' } });
    assert.equal(inUrl.json<{ error: string }>().error, 'STORE_UNAVAILABLE', show(inUrl));
    assert.ok(!inUrl.stdout.includes('hunter2'), show(inUrl));
    assert.match(inUrl.stdout, /postgresql:\/\/sds:\*\*\*@127\.0\.0\.1:1\/sds/);
  } finally {
    home.cleanup();
    await db.drop();
  }
});

test('a PostgreSQL store backed up with pg_dump and restored with pg_restore into another database is the same store', async () => {
  const home = tempDir();
  const source = await createPostgresDatabase();
  const copy = await createPostgresDatabase();
  const dump = join(home.root, 'sds.dump');
  try {
    const env = { SDS_STORE_URL: source.config.url! };
    assert.equal(runCli(home.root, ['init'], { env }).code, 0);
    const up = runCli(home.root, ['dict', 'upload', fixture('simple-capi.dcf'), '--label', 'simple'], { env });
    assert.equal(up.code, 0, show(up));
    // The commands docs/production.md#backup-of-a-postgresql-store gives.
    const dumped = spawnSync('pg_dump', ['--format=custom', `--file=${dump}`, source.config.url!], { encoding: 'utf8' });
    assert.equal(dumped.status, 0, dumped.stderr);
    const restored = spawnSync('pg_restore', [`--dbname=${copy.config.url!}`, '--no-owner', dump], { encoding: 'utf8' });
    assert.equal(restored.status, 0, restored.stderr);

    const onCopy = { SDS_STORE_URL: copy.config.url! };
    const status = runCli(home.root, ['migrate', '--status', '--json'], { env: onCopy });
    assert.equal(status.json<{ up_to_date: boolean }>().up_to_date, true, show(status));
    const list = runCli(home.root, ['dict', 'list', '--json'], { env: onCopy });
    assert.deepEqual(
      list.json<{ name: string; label: string }[]>().map((d) => [d.name, d.label]),
      [['SIMPLECAPI_DICT', 'simple']],
    );
    // The restored store takes writes: its sequences and triggers came with it.
    const again = runCli(home.root, ['dict', 'upload', fixture('popstan-census.json.dcf'), '--label', 'census'], { env: onCopy });
    assert.equal(again.code, 0, show(again));
    assert.equal(runCli(home.root, ['dict', 'list', '--json'], { env: onCopy }).json<unknown[]>().length, 2);
  } finally {
    home.cleanup();
    await source.drop();
    await copy.drop();
  }
});

test('sds migrate on a PostgreSQL store: refused without --no-backup, nothing migrated; with it, the pending migration is applied', async () => {
  const home = tempDir();
  const db = await createPostgresDatabase();
  const env = { SDS_STORE_URL: db.config.url! };
  try {
    assert.equal(runCli(home.root, ['init'], { env }).code, 0);
    // The store as the release before 0030 left it: 0030 only creates the login_attempts table,
    // and the later migrations only their own tables (0034: the audit trail's), dropped here.
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: db.config.url });
    await client.connect();
    const version = async () => (await client.query<{ v: number }>('SELECT max(version) AS v FROM sds_schema')).rows[0]!.v;
    try {
      await client.query('DROP TABLE login_attempts');
      await client.query('DROP TABLE audit_log, audit_chain');
      await client.query('UPDATE sds_schema SET version = 29');
      const used = runCli(home.root, ['dict', 'list', '--json'], { env });
      assert.equal(used.code, 3, show(used));
      assert.equal(used.json<{ error: string }>().error, 'STORE_NEEDS_MIGRATION');

      const refused = runCli(home.root, ['migrate', '--json'], { env });
      assert.equal(refused.code, 2, show(refused));
      const e = refused.json<{ error: string; message: string }>();
      assert.equal(e.error, 'BACKUP_STORE_EXTERNAL');
      assert.match(e.message, /^nothing was migrated: .*pg_dump.*; back the database up first, then run `sds migrate --no-backup`$/);
      assert.equal(await version(), 29, 'nothing was migrated');
      assert.equal(existsSync(join(home.root, 'backups')), false, 'nothing was written');

      const migrated = runCli(home.root, ['migrate', '--no-backup', '--json'], { env });
      assert.equal(migrated.code, 0, show(migrated));
      const m = migrated.json<{ from_version: number; migrations_applied: string[]; backup: string | null }>();
      assert.equal(m.from_version, 29);
      assert.ok(m.migrations_applied.includes('0030-login-attempts'), show(migrated));
      assert.equal(m.backup, null);
      assert.ok((await version()) >= 30);
      assert.equal(runCli(home.root, ['dict', 'list'], { env }).code, 0);
    } finally {
      await client.end();
    }
  } finally {
    home.cleanup();
    await db.drop();
  }
});
