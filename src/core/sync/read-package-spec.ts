import type { Entry, ZipFile } from 'yauzl';
import { lazyRequire } from '../../shared/lazy-require.js';

/** yauzl, loaded when a package is first read (docs/cli.md#start-up-time). */
const loadYauzl = lazyRequire<typeof import('yauzl')>('yauzl');

/** The names CSPro gives a package's deployment specification, preferred first (as CSWeb reads them). */
const SPEC_NAMES = ['package.json', 'package.csds'];

/**
 * Reads the deployment specification (`package.json`, else `package.csds`) at the root of the zip
 * at `path`, streaming, at most `maxBytes` of it (`limits.app_package_json_bytes`,
 * docs/limits.md). Answers its bytes, or the problem: not a zip, no specification, too large.
 */
export async function readPackageSpec(path: string, maxBytes: number): Promise<{ name: string; bytes: Buffer } | { problem: string }> {
  let zip: ZipFile;
  try {
    zip = await loadYauzl().openPromise(path, { lazyEntries: true, autoClose: false });
  } catch (err) {
    return { problem: `it is not a zip (${(err as Error).message})` };
  }
  try {
    const found = new Map<string, Entry>();
    for await (const entry of zip.eachEntry()) if (SPEC_NAMES.includes(entry.fileName)) found.set(entry.fileName, entry);
    const name = SPEC_NAMES.find((n) => found.has(n));
    if (name === undefined) return { problem: 'it holds no package.json' };
    const entry = found.get(name)!;
    const tooLarge = { problem: `its ${name} is larger than the limit of ${maxBytes} bytes (limits.app_package_json_bytes)` };
    if (entry.uncompressedSize > maxBytes) return tooLarge;
    const chunks: Buffer[] = [];
    let size = 0;
    const stream = await zip.openReadStreamPromise(entry);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      // The sizes were checked against the central directory, but a chunk count costs nothing.
      if (size > maxBytes) {
        stream.destroy();
        return tooLarge;
      }
      chunks.push(chunk);
    }
    return { name, bytes: Buffer.concat(chunks) };
  } catch (err) {
    return { problem: `it is not a readable zip (${(err as Error).message})` };
  } finally {
    zip.close();
  }
}
