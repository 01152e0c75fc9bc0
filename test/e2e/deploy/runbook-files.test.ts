/**
 * docs/production.md and deploy/ name each other: every file of deploy/ is explained in the
 * runbook, and every deploy/ path the runbook names exists, so neither can drift from the other.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEPLOY } from '../../helpers/deploy-files.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RUNBOOK = readFileSync(join(ROOT, 'docs', 'production.md'), 'utf8');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [relative(ROOT, path)];
  });
}

test('every file of deploy/ is named in docs/production.md', () => {
  for (const file of files(DEPLOY)) {
    const base = file.split('/').at(-1)!;
    // Units may be named as a group (deploy/systemd/sds-*.service); each is named by itself in the text too.
    assert.ok(
      RUNBOOK.includes(file) || RUNBOOK.includes(`\`${base}\``) || RUNBOOK.includes(`**\`${base}\`**`),
      `${file} is not in the runbook`,
    );
  }
});

test('every deploy/ path named in docs/production.md exists', () => {
  const named = [...RUNBOOK.matchAll(/(?:^|[\s(`/])(deploy\/[\w./*-]+[\w/*])/g)].map((m) => m[1]!.replace(/\/$/, ''));
  assert.ok(named.length > 5, `only ${named.length} deploy/ paths found`);
  for (const path of named) {
    if (path.includes('*')) continue;
    assert.ok(existsSync(join(ROOT, path)), `${path} is named in the runbook but does not exist`);
  }
});
