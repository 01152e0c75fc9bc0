/**
 * Line lexing of the text `.dcf` form, as CSPro's CSpecFile::GetLine does it
 * (docs/cspro-formats.md#line-lexing): trimmed lines, blank lines skipped, `.` comment lines,
 * a trailing `&` joining the next line, and a split at the first `=`.
 */

/** One logical command of a text dictionary. */
export interface SpecCommand {
  /** Left of the first `=` (or the whole line), right-trimmed, e.g. `Len` or `[Item]`. */
  command: string;
  /** Right of the first `=`, left-trimmed; empty for a section header. */
  argument: string;
  /** 1-based physical line where the command starts. */
  line: number;
}

/** Splits the text of a dictionary into commands with their line numbers. */
export function lexSpecText(text: string): SpecCommand[] {
  const lines = text.split(/\r\n|\n|\r/);
  const out: SpecCommand[] = [];
  for (let i = 0; i < lines.length; i++) {
    const startLine = i + 1;
    let content = (lines[i] ?? '').trim();
    if (content === '' || content.startsWith('.')) continue;
    while (content.endsWith('&') && i + 1 < lines.length) {
      i++;
      content = content.slice(0, -1) + (lines[i] ?? '').trim();
    }
    if (content.endsWith('&')) content = content.slice(0, -1);
    const eq = content.indexOf('=');
    if (eq < 0) out.push({ command: content, argument: '', line: startLine });
    else out.push({ command: content.slice(0, eq).trimEnd(), argument: content.slice(eq + 1).trimStart(), line: startLine });
  }
  return out;
}
