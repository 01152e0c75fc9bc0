import { fileURLToPath } from 'node:url';

/**
 * The module `file` (a URL relative to `callerUrl`, written without an extension): `.js` in the
 * compiled build, `.ts` when the caller itself runs as TypeScript (tests, `node --import tsx`).
 * So code run from source starts the source of its workers and entry points, never a stale dist/.
 */
export function entryModule(callerUrl: string, file: string): { url: URL; fromSource: boolean } {
  const fromSource = callerUrl.endsWith('.ts');
  return { url: new URL(`${file}${fromSource ? '.ts' : '.js'}`, callerUrl), fromSource };
}

/**
 * Arguments of `process.execPath` that run the background entry point `src/entry/<name>` as a
 * process (docs/decisions.md, "Process model"): the `.js` of dist/, or the `.ts` of src/ under
 * tsx's loader, named by its absolute URL so the child finds it whatever its working directory.
 * Resolved from this file, which sits one level below src/ and dist/ alike.
 */
export function entryProcessArgs(name: string): string[] {
  const { url, fromSource } = entryModule(import.meta.url, `../entry/${name}`);
  return fromSource ? ['--import', import.meta.resolve('tsx'), fileURLToPath(url)] : [fileURLToPath(url)];
}
