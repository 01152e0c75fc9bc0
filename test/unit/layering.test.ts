/**
 * The layer rule of the README's layout section, checked on the source itself: every relative
 * import of src/ points down (or stays inside its own folder), so no lower layer can climb back
 * into a use case again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/** Bottom to top. Engines share a rank but may not import one another. */
const RANK: Record<string, number> = {
  shared: 0,
  cspro: 1,
  store: 2,
  breakout: 3,
  scheduler: 3,
  webhooks: 3,
  sync: 3,
  core: 4,
  http: 5,
  entry: 5,
  cli: 6,
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });
}

const layerOf = (file: string) => relative(SRC, file).split('/')[0]!;

function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => resolve(dirname(file), m[1]!));
}

test('every folder of src/ has a rank in the layer order', () => {
  const folders = readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isDirectory());
  for (const f of folders) assert.ok(f in RANK, `src/${f} has no layer; add it to the README's layout section and to RANK`);
});

test('every import of src/ points down the layer order', () => {
  const wrong: string[] = [];
  for (const file of sources(SRC)) {
    const from = layerOf(file);
    for (const target of relativeImports(file)) {
      const to = layerOf(target);
      if (to === from) continue;
      const up = RANK[to]! > RANK[from]!;
      const sideways = RANK[to] === RANK[from];
      if (up || sideways) wrong.push(`${relative(SRC, file)} imports ${relative(SRC, target)}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('the ground floor imports nothing of ours', () => {
  for (const file of sources(join(SRC, 'shared'))) {
    const outside = relativeImports(file).filter((t) => layerOf(t) !== 'shared');
    assert.deepEqual(outside, [], relative(SRC, file));
  }
});

test('nothing under src/core names bin/sds or starts the CLI: background work runs src/entry/', () => {
  const wrong = sources(join(SRC, 'core')).filter((file) => /bin\/sds|SDS_BIN|cli\/main/.test(readFileSync(file, 'utf8')));
  assert.deepEqual(wrong.map((f) => relative(SRC, f)), []);
});
