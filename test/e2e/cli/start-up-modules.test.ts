/**
 * A command loads its own group of commands and what it uses, not the whole tree
 * (docs/cli.md#start-up-time): `sds --version` and `sds dict list` load none of the libraries
 * that only other commands need (the webhook HTTP client, JWT, argon2, the Parquet writer, zip,
 * cron), and no other group's command module. Counted in the real CLI, through loader hooks.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempHome } from '../../helpers/temp-home.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const HOOKS = join(ROOT, 'test', 'helpers', 'module-log.mjs');
const LATE_LIBRARIES = [
  'undici',
  'jose',
  '@node-rs/argon2',
  'bcryptjs',
  'hyparquet-writer',
  'yazl',
  'yauzl',
  'cron-parser',
  'stream-json',
  'cli-progress',
];

/** The module URLs a run of the real CLI loads. */
function modulesOf(home: string, args: string[]): string[] {
  const log = join(home, 'modules.log');
  const r = spawnSync(process.execPath, ['--import', HOOKS, join(ROOT, 'bin', 'sds'), '--home', home, ...args], {
    encoding: 'utf8',
    env: { ...process.env, SDS_TEST_MODULE_LOG: log },
  });
  assert.equal(r.status, 0, r.stderr);
  return [...new Set(readFileSync(log, 'utf8').trim().split('\n'))];
}

const packagesOf = (urls: string[]) => new Set(urls.flatMap((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1] ?? []));
const commandModulesOf = (urls: string[]) => urls.flatMap((u) => /\/dist\/cli\/commands\/([\w-]+)\.js$/.exec(u)?.[1] ?? []);

test('sds --version and sds dict list load only their own commands and none of the late libraries', async () => {
  const home = await tempHome();
  try {
    const version = modulesOf(home.root, ['--version']);
    const list = modulesOf(home.root, ['dict', 'list']);
    for (const [what, urls] of [
      ['--version', version],
      ['dict list', list],
    ] as const) {
      const loaded = packagesOf(urls);
      assert.deepEqual(
        LATE_LIBRARIES.filter((p) => loaded.has(p)),
        [],
        `sds ${what} loads libraries only other commands need`,
      );
    }
    assert.deepEqual(commandModulesOf(version), ['version']);
    // main.ts itself reads --version (commands/version.ts): every command line loads that one.
    assert.deepEqual(commandModulesOf(list).sort(), ['dict', 'version']);
    // The full help needs every group: the hooks do see them all.
    const help = modulesOf(home.root, ['--help']);
    assert.ok(commandModulesOf(help).length >= 20, `--help loaded ${commandModulesOf(help).length} command modules`);
  } finally {
    await home.cleanup();
  }
});
