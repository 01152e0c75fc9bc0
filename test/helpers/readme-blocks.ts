/**
 * Reads the `sh` code blocks of a Markdown page, in order, with the harness marker each one may
 * carry, and prepares a block's text for a test run. Pure: the README test (test/e2e/readme/)
 * does the running. The conventions are in docs/decisions.md ("The README runs as a test").
 *
 * A marker is an HTML comment on the last non-blank line before the opening fence:
 *   <!-- readme-test: skip (why it cannot run in a test) -->   not run; the reason is required
 *   <!-- readme-test: background -->                          started, not waited for, and
 *                                                              stopped after the last block
 * Any other `readme-test` comment, a marker not followed by an `sh` fence, or a skip without a
 * reason is an error, so a typo cannot quietly change what the test runs.
 */

type BlockMode = 'run' | 'skip' | 'background';

export interface ShellBlock {
  /** 1-based line of the opening fence in the page. */
  line: number;
  /** The nearest heading above the block (`''` before the first heading). */
  heading: string;
  mode: BlockMode;
  /** The reason given by a skip marker. */
  reason?: string;
  /** The lines between the fences, joined with `\n`. */
  code: string;
}

const MARKER = /^<!--\s*readme-test:\s*(.*?)\s*-->$/;
const FENCE = /^(`{3,}|~{3,})\s*([\w-]*)/;

function parseMarker(text: string, line: number): { mode: BlockMode; reason?: string } {
  if (text === 'background') return { mode: 'background' };
  const skip = /^skip\s*\((.+)\)$/.exec(text);
  if (skip && skip[1]!.trim() !== '') return { mode: 'skip', reason: skip[1]!.trim() };
  throw new Error(`line ${line}: unknown readme-test marker "${text}" (skip (reason) or background)`);
}

/** Every fenced `sh` block of `markdown`, in page order, with its marker. */
export function readmeBlocks(markdown: string): ShellBlock[] {
  const lines = markdown.split('\n');
  const blocks: ShellBlock[] = [];
  let heading = '';
  let pending: { mode: BlockMode; reason?: string; line: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!.trimEnd();
    const fence = FENCE.exec(text);
    if (fence) {
      const close = fence[1]!;
      const body: string[] = [];
      let j = i + 1;
      while (j < lines.length && !lines[j]!.trimEnd().startsWith(close)) body.push(lines[j++]!);
      if (j >= lines.length) throw new Error(`line ${i + 1}: code block is never closed`);
      const lang = fence[2]!;
      if (lang === 'sh') {
        blocks.push({
          line: i + 1,
          heading,
          mode: pending?.mode ?? 'run',
          ...(pending?.reason ? { reason: pending.reason } : {}),
          code: body.join('\n'),
        });
      } else if (pending) {
        throw new Error(`line ${pending.line}: readme-test marker before a "${lang || 'plain'}" block (only sh blocks run)`);
      }
      pending = null;
      i = j;
      continue;
    }
    if (text === '') continue;
    if (pending) throw new Error(`line ${pending.line}: readme-test marker not followed by a code block`);
    const marker = MARKER.exec(text);
    if (marker) pending = { ...parseMarker(marker[1]!, i + 1), line: i + 1 };
    else if (/readme-test/.test(text)) throw new Error(`line ${i + 1}: malformed readme-test marker: ${text}`);
    const h = /^#{1,6}\s+(.*)$/.exec(text);
    if (h) heading = h[1]!;
  }
  if (pending) throw new Error(`line ${pending.line}: readme-test marker not followed by a code block`);
  return blocks;
}

/**
 * The text a test runs for one block. The README's build and global-install steps are left out,
 * because the test runs on the tree already built (and never installs anything): the
 * `npm ci && npm run build && ` in front of a command goes, and so do `npm test` and `npm link`
 * lines (the test defines `sds` as a shell function calling bin/sds instead). Any other npm
 * command is an error: the test would not know whether it may run it. `port` replaces the
 * README's 8080, so the test never meets another server listening there.
 */
export function prepareBlock(code: string, port: number): string {
  const out: string[] = [];
  for (const raw of code.split('\n')) {
    const line = raw.replace(/^npm ci && npm run build && /, '');
    if (/^npm (test|link)(\s|$)/.test(line)) continue;
    if (/(^|[;&|(]\s*)npm\s/.test(line)) throw new Error(`the README test does not know how to run: ${line}`);
    out.push(line.replace(/\b8080\b/g, String(port)));
  }
  return out.join('\n');
}
