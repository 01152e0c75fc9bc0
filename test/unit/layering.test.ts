/**
 * The layer rule of the README's layout section, checked on the source itself: every relative
 * import of src/ points down (or stays inside its own folder), so no lower layer can climb back
 * into a use case again; cli/ and http/ reach core only through a module's index.ts, the public
 * API of that feature module; and core never starts the CLI.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProgram, loadCommandGroups } from '../../src/cli/main.js';

/** Every command group: these tests read the whole command tree. */
const ALL_GROUPS = await loadCommandGroups();

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
  csweb: 3,
  // The export engine builds on the breakout engine's planner and flattener (docs/export.md).
  export: 3.5,
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

/** `core/cases` for any file under src/core/cases/; undefined outside core. */
const coreModuleOf = (file: string) => {
  const [layer, module] = relative(SRC, file).split('/');
  return layer === 'core' && module && !module.endsWith('.ts') ? `core/${module}` : undefined;
};

/** The public API of a core module: its index.ts (imports name it `index.js`). */
const isModuleIndex = (target: string) => /^core\/[^/]+\/index\.js$/.test(relative(SRC, target));

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

test('cli/ and http/ reach core only through a module index', () => {
  // Besides core's indexes: shared/, their own layer, and (for `sds serve` and its config) the CLI
  // may start the HTTP layer below it. Types go through the indexes too, so this holds for them.
  const allowed: Record<string, string[]> = { cli: ['cli', 'http', 'shared'], http: ['http', 'shared'] };
  const wrong: string[] = [];
  for (const layer of Object.keys(allowed)) {
    for (const file of sources(join(SRC, layer))) {
      for (const target of relativeImports(file)) {
        if (allowed[layer]!.includes(layerOf(target)) || isModuleIndex(target)) continue;
        wrong.push(`${relative(SRC, file)} imports ${relative(SRC, target)}`);
      }
    }
  }
  assert.deepEqual(wrong, [], 'import the module index (src/core/<module>/index.ts) instead, exporting what is missing there');
});

test('a core module reaches another core module only through its index', () => {
  const wrong: string[] = [];
  for (const file of sources(join(SRC, 'core'))) {
    const from = coreModuleOf(file);
    for (const target of relativeImports(file)) {
      const to = coreModuleOf(target);
      if (!to || to === from || isModuleIndex(target)) continue;
      wrong.push(`${relative(SRC, file)} imports ${relative(SRC, target)}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('every folder of src/core has an index.ts', () => {
  const folders = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? [join(dir, n), ...folders(join(dir, n))] : []));
  const core = join(SRC, 'core');
  const missing = folders(core).filter((f) => !readdirSync(f).includes('index.ts'));
  assert.deepEqual(
    missing.map((f) => relative(SRC, f)),
    [],
  );
  assert.deepEqual(
    readdirSync(core).filter((n) => n.endsWith('.ts')),
    [],
    'src/core holds feature modules only: put the file in one',
  );
});

const quoted = (s: string) => `['"]${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"]`;

/**
 * Text that starts the CLI: its path, or an argv of it (`'breakout', 'run-job'`, or a global
 * flag followed by a command, `'--json', 'process-cases-by-dict'`).
 */
const launchPatterns = [
  /bin\/sds/,
  ...buildProgram(ALL_GROUPS).commands.flatMap((top) => [
    new RegExp(`['"]--[a-z-]+['"]\\s*,\\s*${quoted(top.name())}`),
    ...top.commands.map((sub) => new RegExp(`${quoted(top.name())}\\s*,\\s*${quoted(sub.name())}`)),
  ]),
];

function cliLaunches(text: string): string[] {
  return launchPatterns.flatMap((p) => text.match(p)?.[0] ?? []);
}

test('the launch check sees the CLI argv it is meant to catch', () => {
  assert.deepEqual(cliLaunches("spawn(process.execPath, [SDS, '--home', h, 'breakout', 'run-job', id])"), ["'breakout', 'run-job'"]);
  assert.deepEqual(cliLaunches("const args = [SDS_BIN, '--json', 'process-cases-by-dict', d];"), ["'--json', 'process-cases-by-dict'"]);
  assert.deepEqual(cliLaunches("new URL('../../bin/sds', import.meta.url)"), ['bin/sds']);
  assert.deepEqual(cliLaunches("origin: 'process-cases-by-dict', threads: 1"), []);
});

test('nothing under src/core starts the CLI: background work runs src/entry/ through the launcher', () => {
  const found: string[] = [];
  for (const file of sources(join(SRC, 'core'))) {
    for (const hit of cliLaunches(readFileSync(file, 'utf8'))) found.push(`${relative(SRC, file)}: ${hit}`);
  }
  assert.deepEqual(found, []);
});

/**
 * The store's case-writing methods and the one file of the cases module that may call each
 * (docs/architecture.md#where-cases-are-written): every write of a case row goes through
 * `putCase`, every revision through `revisions.ts`, every binary-item row of a case through
 * the cases module.
 */
const caseWrites: { pattern: RegExp; allowed: string[] }[] = [
  { pattern: /\bcases\s*\.\s*upsert(?:Many)?\b/, allowed: ['core/cases/write.ts'] },
  // A sync upload in one statement on PostgreSQL: its cases, its revision and its binary items.
  { pattern: /\bcases\s*\.\s*writeUploadIfUnchanged\b/, allowed: ['core/cases/write.ts'] },
  { pattern: /\bcases\s*\.\s*(?:nextRevision|recordRevision)\b/, allowed: ['core/cases/revisions.ts'] },
  { pattern: /\bbinaryItems\s*\.\s*replaceForCases?\b/, allowed: ['core/cases/binary-items.ts', 'core/cases/replace.ts'] },
];

function caseWritesIn(file: string, text: string): string[] {
  return caseWrites.flatMap(({ pattern, allowed }) => {
    const hit = text.match(pattern)?.[0];
    return hit !== undefined && !allowed.includes(file) ? [`${file}: ${hit}`] : [];
  });
}

test('the case-write check sees the calls it is meant to catch', () => {
  assert.deepEqual(caseWritesIn('core/sync/sync.ts', 'store.cases.upsert(dict.id, w, r)'), ['core/sync/sync.ts: cases.upsert']);
  assert.deepEqual(caseWritesIn('core/csweb/x.ts', 'store.cases\n  .recordRevision(r, 0, o)'), [
    'core/csweb/x.ts: cases\n  .recordRevision',
  ]);
  assert.deepEqual(caseWritesIn('core/x.ts', 'store.binaryItems.replaceForCase(d, g, [])'), ['core/x.ts: binaryItems.replaceForCase']);
  assert.deepEqual(caseWritesIn('core/cases/write.ts', 'store.cases.upsert(dictionaryId, write, revision, now)'), []);
  assert.deepEqual(caseWritesIn('core/sync/sync.ts', 'store.cases.getMany(d, guids); store.sync.record(h)'), []);
});

test("only the cases module writes the store's cases: rows, revisions and binary-item rows", () => {
  const found: string[] = [];
  for (const file of sources(SRC)) {
    const rel = relative(SRC, file);
    if (layerOf(file) === 'store') continue;
    found.push(...caseWritesIn(rel, readFileSync(file, 'utf8')));
  }
  assert.deepEqual(found, [], 'write cases through src/core/cases (putCase, newRevision, keepRevision, replaceCases)');
});
