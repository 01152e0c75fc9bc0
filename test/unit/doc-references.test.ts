/**
 * Comments send the reader only to the project's own docs (docs/architecture.md#where-the-rules-come-from):
 * no comment under src/ or test/ names a design note, a research note or a numbered section of
 * the outside specification, and every `docs/<page>.md#anchor` a comment names exists, page and
 * heading (GitHub's anchor of the heading). Comments are read with the TypeScript parser, so
 * strings and regular expressions are never mistaken for comments; SQL migrations by their `--` lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(ts|sql)$/.test(name) ? [path] : [];
  });
}

interface Comment {
  file: string;
  line: number;
  text: string;
}

/** Every comment of a TypeScript file: the leading and trailing comment ranges around each node. */
function tsComments(file: string, text: string): Comment[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const seen = new Set<number>();
  const out: Comment[] = [];
  const add = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) {
      if (seen.has(r.pos)) continue;
      seen.add(r.pos);
      out.push({ file, line: source.getLineAndCharacterOfPosition(r.pos).line + 1, text: text.slice(r.pos, r.end) });
    }
  };
  const visit = (node: ts.Node) => {
    add(ts.getLeadingCommentRanges(text, node.getFullStart()));
    add(ts.getTrailingCommentRanges(text, node.getEnd()));
    ts.forEachChild(node, visit);
  };
  visit(source);
  add(ts.getLeadingCommentRanges(text, source.endOfFileToken.getFullStart()));
  return out;
}

function sqlComments(file: string, text: string): Comment[] {
  return text.split('\n').flatMap((l, i) => (/^\s*--/.test(l) ? [{ file, line: i + 1, text: l }] : []));
}

function comments(dirs: string[]): Comment[] {
  return dirs.flatMap((d) =>
    files(join(ROOT, d)).flatMap((f) => {
      const text = readFileSync(f, 'utf8');
      return f.endsWith('.sql') ? sqlComments(relative(ROOT, f), text) : tsComments(relative(ROOT, f), text);
    }),
  );
}

const ALL = comments(['src', 'test']);

/** References to documents that are not in the repository. */
const OUTSIDE: { what: string; re: RegExp }[] = [
  { what: 'a design note outside the repository', re: /DESIGN\.md/ },
  { what: 'a research note outside the repository', re: /\bresearch\/|\bresearch\s+§|service-behaviour|\bcspro-formats\s+§/i },
  { what: 'a numbered section of the specification', re: /\bspec\s+\d/i },
  { what: 'a numbered section of the specification', re: /\bspec\b[^\n]{0,60}\(\d+(?:\.\d+)?(?:, ?\d+(?:\.\d+)?)*\)/i },
  // A section sign is fine after a standard's name (RFC 6749 §5.2), not alone.
  { what: 'a numbered section of an outside document', re: /(?<!RFC \d+ )§\s*\d/ },
];

test('the comment reader finds comments (a parser change cannot silently empty the check)', () => {
  assert.ok(ALL.length > 1000, `only ${ALL.length} comments found under src/ and test/`);
  assert.ok(
    ALL.some((c) => c.file.endsWith('.sql')),
    'no SQL comment found',
  );
  const found = tsComments('x.ts', 'const a = `http://${b}/c`; // one\n/** two */\nconst d = /\\/\\/x/; /* three */\n');
  assert.deepEqual(
    found.map((c) => c.text),
    ['// one', '/** two */', '/* three */'],
  );
});

/** `file:line` of a position inside a comment. */
const where = (c: Comment, index: number) => `${c.file}:${c.line + (c.text.slice(0, index).match(/\n/g)?.length ?? 0)}`;

test('no comment under src/ or test/ points at a document outside the repository', () => {
  const wrong: string[] = [];
  for (const c of ALL) {
    for (const o of OUTSIDE) {
      const m = o.re.exec(c.text);
      if (m) wrong.push(`${where(c, m.index)}: ${o.what}: ${c.text.slice(m.index).split('\n')[0]!.slice(0, 100)}`);
    }
  }
  assert.deepEqual(wrong, []);
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a markdown page, headings inside code fences left out, repeats numbered as GitHub does. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  const count = new Map<string, number>();
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const m = !fence && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = count.get(base) ?? 0;
    count.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

test('slug and anchors follow GitHub', () => {
  assert.equal(slug('Status webhook: `GET /breakout-status-webhook.php`'), 'status-webhook-get-breakout-status-webhookphp');
  assert.equal(slug('Upload: `POST …/cases`'), 'upload-post-cases');
  assert.equal(slug('`next_run`'), 'next_run');
  assert.equal(slug('Rate limit (all four scripts)'), 'rate-limit-all-four-scripts');
  assert.deepEqual([...anchors('# A\n```\n# not a heading\n```\n## A\n### B b\n')], ['a', 'a-1', 'b-b']);
});

test('every docs/<page>.md#anchor named by a comment under src/ or test/ exists', () => {
  const pages = new Map<string, Set<string>>();
  const missing: string[] = [];
  let checked = 0;
  for (const c of ALL) {
    // Not a URL's path (a library's own docs/ on the web).
    for (const m of c.text.matchAll(/(?<![\w/.-])docs\/([A-Za-z0-9_-]+\.md)(?:#([A-Za-z0-9_-]+))?/g)) {
      const page = join(ROOT, 'docs', m[1]!);
      if (!existsSync(page)) {
        missing.push(`${where(c, m.index)}: docs/${m[1]} does not exist`);
        continue;
      }
      if (!m[2]) continue;
      if (!pages.has(page)) pages.set(page, anchors(readFileSync(page, 'utf8')));
      checked++;
      if (!pages.get(page)!.has(m[2])) missing.push(`${where(c, m.index)}: docs/${m[1]} has no heading #${m[2]}`);
    }
  }
  assert.deepEqual(missing, []);
  assert.ok(checked > 50, `only ${checked} anchored references checked`);
});
