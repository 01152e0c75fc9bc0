/**
 * MySQL/MariaDB target: the shared suite through LOAD DATA LOCAL INFILE, the same suite through
 * the multi-row INSERT fallback (client not offering LOCAL INFILE, as when a server refuses it),
 * and how connection failures map to DB-00x codes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../../src/shared/errors.js';
import { getDialect } from '../../../src/breakout/dialects/index.js';
import type { TargetConfig } from '../../../src/breakout/dialects/dialect.js';
import { createMysqlDatabase, uniqueName, type TestDatabase } from '../../helpers/test-databases.js';
import { describeTargetSuite } from './dialect-suite.js';
import { unusedPort } from './fake-servers.js';

describeTargetSuite('mysql (LOAD DATA LOCAL INFILE)', createMysqlDatabase);

describeTargetSuite('mysql (INSERT fallback when LOCAL INFILE is refused)', createMysqlDatabase, (db) => ({
  ...db,
  config: { ...db.config, url: `${db.config.url}?local_infile=0` },
}));

async function connectError(config: TargetConfig): Promise<AppError> {
  try {
    const s = await getDialect('mysql').connect(config);
    await s.close();
  } catch (err) {
    assert.ok(err instanceof AppError, `expected an AppError, got ${String(err)}`);
    return err;
  }
  assert.fail('the connection should have failed');
}

describe('mysql connection errors', () => {
  let db: TestDatabase;
  const user = uniqueName('sds_u').slice(0, 32);
  const limited = uniqueName('sds_l').slice(0, 32);
  const password = 'S3cret-pw-do-not-print';
  const hosts = ['%', 'localhost', '127.0.0.1'];

  before(async () => {
    db = await createMysqlDatabase();
    for (const h of hosts) {
      await db.admin(`CREATE USER '${user}'@'${h}' IDENTIFIED BY '${password}'`);
      await db.admin(`GRANT ALL ON \`${db.name}\`.* TO '${user}'@'${h}'`);
      await db.admin(`CREATE USER '${limited}'@'${h}' IDENTIFIED BY '${password}' WITH MAX_USER_CONNECTIONS 1`);
      await db.admin(`GRANT ALL ON \`${db.name}\`.* TO '${limited}'@'${h}'`);
    }
  });

  after(async () => {
    for (const h of hosts) {
      await db.admin(`DROP USER IF EXISTS '${user}'@'${h}'`).catch(() => undefined);
      await db.admin(`DROP USER IF EXISTS '${limited}'@'${h}'`).catch(() => undefined);
    }
    await db.drop();
  });

  test('the right password connects', async () => {
    const s = await getDialect('mysql').connect({ type: 'mysql', host: '127.0.0.1', database: db.name, user, password });
    assert.equal(s.databaseName(), db.name);
    await s.close();
  });

  test('a port with nothing listening -> DB-001 naming host:port/database', async () => {
    const port = await unusedPort();
    const err = await connectError({ type: 'mysql', host: '127.0.0.1', port, database: db.name, user: 'root' });
    assert.equal(err.code, 'DB-001');
    assert.match(err.message, new RegExp(`127\\.0\\.0\\.1:${port}/${db.name}`));
  });

  test('a wrong password -> DB-002, and the password is never printed', async () => {
    const err = await connectError({ type: 'mysql', url: `mysql://${user}:wrong-${password}@127.0.0.1:3306/${db.name}` });
    assert.equal(err.code, 'DB-002');
    assert.ok(!err.message.includes(password));
    assert.ok(!JSON.stringify(err.details).includes(password));
  });

  test('a database that does not exist -> DB-003', async () => {
    const err = await connectError({ type: 'mysql', host: '127.0.0.1', database: `${db.name}_missing`, user: 'root' });
    assert.equal(err.code, 'DB-003');
  });

  test('an account over its connection limit -> DB-005', async () => {
    const first = await getDialect('mysql').connect({ type: 'mysql', host: '127.0.0.1', database: db.name, user: limited, password });
    try {
      const err = await connectError({ type: 'mysql', host: '127.0.0.1', database: db.name, user: limited, password });
      assert.equal(err.code, 'DB-005');
    } finally {
      await first.close();
    }
  });
});

describe('mysql LOAD DATA refused by the server', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createMysqlDatabase();
  });
  after(async () => db.drop());

  test('falls back to multi-row INSERTs without losing the rows of the refused attempt', async () => {
    const { connect } = await import('../../../src/breakout/dialects/mysql/session.js');
    const session = await connect(getDialect('mysql'), db.config, { localInfile: true, announceLocalFiles: false });
    try {
      const table = {
        name: 'refused',
        kind: 'record' as const,
        columns: [
          { name: 'n', type: { kind: 'integer' as const, digits: 5 }, nullable: false },
          { name: 's', type: { kind: 'varchar' as const, length: 10 }, nullable: true },
        ],
        primaryKey: ['n'],
      };
      await session.createTables([table]);
      async function* rows(): AsyncGenerator<(string | number | null)[]> {
        for (let n = 0; n < 70_000; n++) yield [n, n % 3 ? `v${n}` : null];
      }
      // 70,000 rows of 2 columns: more than one INSERT batch of floor(65535 / 2) rows.
      assert.equal(await session.bulkLoad(table, rows()), 70_000);
      assert.equal(await session.countRows('refused'), 70_000);
      assert.deepEqual(await session.readRows(table, { orderBy: [{ column: 'n', desc: true }], limit: 2 }), [
        [69_999, null],
        [69_998, 'v69998'],
      ]);
    } finally {
      await session.close();
    }
  });
});

describe('mysql row-size fallback to TEXT', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createMysqlDatabase();
  });
  after(async () => db.drop());

  const wide = (name: string, count: number, length: number) => ({
    name,
    kind: 'record' as const,
    columns: [
      { name: 'case_id', type: { kind: 'guid' as const }, nullable: false },
      { name: 'occ', type: { kind: 'integer' as const, digits: 3 }, nullable: false },
      ...Array.from({ length: count }, (_, i) => ({ name: `c${i}`, type: { kind: 'varchar' as const, length }, nullable: true })),
    ],
    primaryKey: ['case_id', 'occ'],
  });

  // Each of these fails with error 1118 if declared with VARCHARs only (measured on MariaDB 10.11).
  for (const [count, length] of [
    [150, 50],
    [190, 20],
    [360, 5],
    [180, 64],
    [100, 1000],
    [40, 63],
  ] as const) {
    test(`${count} VARCHAR(${length}) columns create, and full-width and worst-case rows load`, async () => {
      const table = wide(`w_${count}_${length}`, count, length);
      const session = await getDialect('mysql').connect(db.config);
      try {
        await session.createTables([table]);
        // Full-width values, and 40-byte values (10 emoji): the worst case, stored inline even in TEXT.
        const rows = [length, Math.min(length, 10)].map((n, i) => [
          `00000000-0000-4000-8000-00000000000${i}`,
          1,
          ...Array.from({ length: count }, () => '😀'.repeat(n)),
        ]);
        assert.equal(await session.bulkLoad(table, rows), 2);
        assert.deepEqual(await session.readRows(table, { orderBy: [{ column: 'case_id' }] }), rows);
      } finally {
        await session.close();
      }
    });
  }
});
