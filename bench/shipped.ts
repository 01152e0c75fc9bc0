/**
 * Loads a module of the compiled build (`dist/`, made by `npm run bench` first) typed as its
 * source: the benchmarks measure what users run, not the TypeScript loader used by tests (which
 * also adds its own memory, and a second copy of itself in every worker thread).
 */
export async function shipped<T>(modulePath: string): Promise<T> {
  return (await import(new URL(`../dist/${modulePath}`, import.meta.url).href)) as T;
}
