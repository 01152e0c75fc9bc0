/** Importing the registry must not load any database driver (docs/architecture.md#database-drivers-load-lazily: fast `sds --help`). */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

test('the dialect registry loads no driver until a session is opened', () => {
  const script = `
    import { createRequire } from 'node:module';
    const { getDialect } = await import('./src/breakout/dialects/index.ts');
    getDialect('postgresql'); getDialect('mysql'); getDialect('sqlserver'); getDialect('sqlite');
    const cache = createRequire(import.meta.url)('module')._cache;
    const drivers = Object.keys(cache).filter((k) => /node_modules\\/(pg|mysql2|tedious|better-sqlite3|pg-copy-streams)\\//.test(k));
    process.stdout.write(JSON.stringify(drivers));
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), []);
});
