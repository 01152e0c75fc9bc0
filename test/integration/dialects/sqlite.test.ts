/** SQLite target: the shared suite on a temporary file, plus how opening failures map to codes. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { AppError } from '../../../src/shared/errors.js';
import { getDialect } from '../../../src/breakout/dialects/index.js';
import { createSqliteFile } from '../../helpers/test-databases.js';
import { describeTargetSuite } from './dialect-suite.js';

describeTargetSuite('sqlite', async () => createSqliteFile());

test('sqlite: a path under a regular file cannot be opened -> DB-003', async () => {
  const db = createSqliteFile();
  try {
    writeFileSync(db.name, 'not a directory');
    await assert.rejects(getDialect('sqlite').connect({ type: 'sqlite', file: `${db.name}/inside.sqlite` }), (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.equal(err.code, 'DB-003');
      return true;
    });
  } finally {
    await db.drop();
  }
});

test('sqlite: a file that is not a database -> DB-003', async () => {
  const db = createSqliteFile();
  try {
    writeFileSync(db.name, 'this is not a SQLite database, just some text long enough to have a header....'.repeat(20));
    await assert.rejects(
      (async () => {
        const s = await getDialect('sqlite').connect(db.config);
        await s.close();
      })(),
      (err: unknown) => err instanceof AppError && err.code === 'DB-003',
    );
  } finally {
    await db.drop();
  }
});
