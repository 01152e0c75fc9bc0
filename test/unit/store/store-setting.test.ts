/**
 * The store setting (docs/production.md#choosing-a-store): --store over SDS_STORE_URL over
 * store.url of config.json over the home's SQLite file; the password from SDS_STORE_PASSWORD or
 * store.password_file, never from config.json; a URL of another scheme refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { maskStoreUrl, storeSetting } from '../../../src/store/store-setting.js';
import { AppError } from '../../../src/shared/errors.js';
import { tempDir } from '../../helpers/temp-home.js';

const PG = 'postgresql://sds@db.example:5432/sds';

test('no setting is the SQLite file; SDS_STORE_URL, config.json and --store choose PostgreSQL in that precedence', () => {
  const home = tempDir();
  try {
    assert.deepEqual(storeSetting(home, {}), { kind: 'sqlite', source: 'default' });
    assert.deepEqual(storeSetting(home, { SDS_STORE_URL: 'sqlite' }), { kind: 'sqlite', source: 'default' });
    writeFileSync(join(home.root, 'config.json'), JSON.stringify({ store: { url: 'postgresql://sds@file-db/sds', pool_size: 4 } }));
    const fromFile = storeSetting(home, {});
    assert.equal(fromFile.kind, 'postgresql');
    assert.equal(fromFile.kind === 'postgresql' && fromFile.source, 'config.json');
    assert.equal(fromFile.kind === 'postgresql' && fromFile.poolSize, 4);
    const fromEnv = storeSetting(home, { SDS_STORE_URL: PG, SDS_STORE_POOL_SIZE: '7' });
    assert.equal(fromEnv.kind === 'postgresql' && fromEnv.url, PG);
    assert.equal(fromEnv.kind === 'postgresql' && fromEnv.source, 'environment');
    assert.equal(fromEnv.kind === 'postgresql' && fromEnv.poolSize, 7);
    const fromFlag = storeSetting({ ...home, storeUrl: 'postgres://sds@flag-db/sds' }, { SDS_STORE_URL: PG });
    assert.equal(fromFlag.kind === 'postgresql' && fromFlag.source, 'flag');
    assert.equal(fromFlag.kind === 'postgresql' && new URL(fromFlag.url).host, 'flag-db');
  } finally {
    home.cleanup();
  }
});

test('the password comes from SDS_STORE_PASSWORD or store.password_file and is never shown', () => {
  const home = tempDir();
  try {
    const secret = join(home.root, 'store-password');
    writeFileSync(secret, 'p@ss word/1\n');
    writeFileSync(join(home.root, 'config.json'), JSON.stringify({ store: { url: PG, password_file: secret } }));
    const fromFile = storeSetting(home, {});
    assert.ok(fromFile.kind === 'postgresql');
    assert.equal(decodeURIComponent(new URL(fromFile.url).password), 'p@ss word/1');
    assert.equal(fromFile.shownUrl, PG);
    const fromEnv = storeSetting(home, { SDS_STORE_PASSWORD: 'from-env' });
    assert.ok(fromEnv.kind === 'postgresql');
    assert.equal(new URL(fromEnv.url).password, 'from-env');
    assert.equal(maskStoreUrl('postgresql://sds:hunter2@db/sds'), 'postgresql://sds:***@db/sds');
  } finally {
    home.cleanup();
  }
});

test('refused: a password in config.json, another scheme, a URL that does not parse, an unreadable password file', () => {
  const home = tempDir();
  const refused = (config: unknown, env: NodeJS.ProcessEnv, pattern: RegExp) => {
    writeFileSync(join(home.root, 'config.json'), JSON.stringify(config));
    assert.throws(
      () => storeSetting(home, env),
      (e: unknown) => e instanceof AppError && e.code === 'CONFIG_INVALID' && pattern.test(e.message) && !e.message.includes('hunter2'),
    );
  };
  try {
    refused({ store: { url: 'postgresql://sds:hunter2@db/sds' } }, {}, /holds a password: set SDS_STORE_PASSWORD or store.password_file/);
    refused(
      {},
      { SDS_STORE_URL: 'mysql://root:hunter2@db/sds' },
      /SDS_STORE_URL must be a postgresql:\/\/ URL .*mysql:\/\/root:\*\*\*@db\/sds/,
    );
    refused({}, { SDS_STORE_URL: 'not a url' }, /SDS_STORE_URL is not a URL/);
    refused({ store: { url: PG, password_file: join(home.root, 'absent') } }, {}, /cannot read store.password_file/);
    refused({ store: { url: PG, pool_size: 0 } }, {}, /store.pool_size in .* must be a whole number/);
    refused({ store: { adress: PG } }, {}, /store.adress in .* is not a setting/);
  } finally {
    home.cleanup();
  }
});

test('the connect and query timeouts: 5 s and 60 s by default, from config.json or the environment, within range', () => {
  const home = tempDir();
  try {
    const at = (env: NodeJS.ProcessEnv) => {
      const s = storeSetting(home, { SDS_STORE_URL: PG, ...env });
      assert.equal(s.kind, 'postgresql');
      return s.kind === 'postgresql' ? [s.connectTimeoutMs, s.queryTimeoutMs] : [];
    };
    assert.deepEqual(at({}), [5000, 60_000]);
    writeFileSync(join(home.root, 'config.json'), JSON.stringify({ store: { connect_timeout_ms: 2000, query_timeout_ms: 0 } }));
    assert.deepEqual(at({}), [2000, 0]);
    assert.deepEqual(at({ SDS_STORE_CONNECT_TIMEOUT_MS: '1500', SDS_STORE_QUERY_TIMEOUT_MS: '30000' }), [1500, 30_000]);
    assert.throws(
      () => at({ SDS_STORE_CONNECT_TIMEOUT_MS: '0' }),
      (e: unknown) => e instanceof AppError && e.code === 'CONFIG_INVALID',
    );
  } finally {
    home.cleanup();
  }
});
